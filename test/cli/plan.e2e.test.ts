/**
 * IoP 4's cli options end to end: the real `cli` in remote mode against a real server (SQLite home,
 * python3 workers). --plan / --review-plan / --apply-plan / --rollback-backup on a settings.py read by
 * python3 here, --bindings / --unbind, -q, and their refusals.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPassword, cleanEnv, echoPackageCopy, runCli, startServer, temporaryFolder, type RunningServer } from './support/cli-harness.ts';

let server: RunningServer;
let env: Record<string, string>;
const packageFolder = echoPackageCopy();
const settings = join(packageFolder, 'settings.py');
const original = readFileSync(settings, 'utf8');
const cli = (args: string[]) => runCli(args, { env, cwd: packageFolder });

beforeAll(async () => {
  server = await startServer(temporaryFolder('cli-plan-home-'));
  env = cleanEnv({ CLI_URL: server.url, CLI_USERNAME: 'admin', CLI_PASSWORD: adminPassword });
  const migrated = await cli(['-m', settings]);
  expect(migrated.code, migrated.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  for (const folder of [server?.home, packageFolder]) if (folder) rmSync(folder, { recursive: true, force: true });
});

async function greeting(): Promise<string> {
  const exported = JSON.parse((await cli(['-e', 'Echo.Production'])).stdout) as { Production: { Item: Array<{ Setting: Array<{ '#text': string }> }> } };
  return exported.Production.Item[0]?.Setting[0]?.['#text'] ?? '';
}

describe('cli plan options (IoP 4 spelling)', () => {
  it('plans, reviews, applies and rolls back a change of settings.py', async () => {
    writeFileSync(settings, original.replace("'#text': 'hello'", "'#text': 'bonjour'"));
    const printed = await cli(['--plan', 'settings.py']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^Production change plan: Echo.Production\n {2}id: [0-9a-f]{64}\n {2}namespace: USER\n {2}operations:\n/);
    expect(printed.stdout).toContain('    0001-set_setting set_setting items.Echo.Operation.settings.Host.greeting [safe]');

    const written = await cli(['--plan', 'settings.py', '--production', 'Echo.Production', '--out', 'plans/p.json']);
    expect(written.stdout.trim()).toBe('Production change plan written to plans/p.json');
    expect((await cli(['--review-plan', 'plans/p.json'])).stdout).toBe(printed.stdout);
    expect(await greeting()).toBe('hello');

    const noSettings = await cli(['--apply-plan', 'plans/p.json']);
    expect(noSettings.code).toBe(2);
    expect(noSettings.stderr).toContain('--apply-plan requires --settings.');
    const applied = await cli(['--apply-plan', 'plans/p.json', '--settings', 'settings.py']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^Production apply result: Echo.Production\n {2}plan: [0-9a-f]{64}\n {2}applied: 1, skipped: 0, failed: 0\n/);
    expect(await greeting()).toBe('bonjour');
    const verified = await cli(['--verify-plan', 'plans/p.json']);
    expect(verified.stdout).toMatch(
      /^Production verify result: Echo.Production\n {2}plan: [0-9a-f]{64}\n {2}success: true\n {2}converged: 1\n {2}failed: 0\n {2}residual: 0\n$/,
    );

    const again = await cli(['--apply-plan', 'plans/p.json', '--settings', 'settings.py']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no longer gives the plan/);

    const rolled = await cli(['--rollback-backup', 'Echo.Production']);
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(await greeting()).toBe('hello');
    const residual = await cli(['--verify-plan', 'plans/p.json', '--production', 'Echo.Production']);
    expect(residual.stdout).toContain(
      '  success: false\n  converged: 0\n  failed: 0\n  residual: 1\n  residual operations:\n    0001-set_setting items.Echo.Operation.settings.Host.greeting',
    );
  }, 120_000);

  it("applies a plan's safe operations and skips its destructive ones without --allow-destructive (as IoP), and applies them with", async () => {
    async function item(): Promise<{ '@Comment': string; Setting?: Array<{ '#text': string }> }> {
      const exported = JSON.parse((await cli(['-e', 'Echo.Production'])).stdout) as {
        Production: { Item: Array<{ '@Comment': string; Setting?: Array<{ '#text': string }> }> };
      };
      return exported.Production.Item[0]!;
    }
    writeFileSync(
      settings,
      original.replace("'Setting': [{'@Target': 'Host', '@Name': 'greeting', '#text': 'hello'}],", '').replace("'upper-cases'", "'shouts'"),
    );
    expect((await cli(['--plan', 'settings.py', '--out', 'd.json'])).code).toBe(0);
    const safeOnly = await cli(['--apply-plan', 'd.json', '--settings', 'settings.py']);
    expect(safeOnly.code, safeOnly.stderr).toBe(0);
    expect(safeOnly.stdout).toMatch(
      /^Production apply result: Echo.Production\n {2}plan: [0-9a-f]{64}\n {2}applied: 1, skipped: 1, failed: 0\n {2}operations:\n {4}0001-set_item_field set_item_field: applied\n {4}0002-remove_setting remove_setting: skipped\n/,
    );
    expect(await item()).toMatchObject({ '@Comment': 'shouts', Setting: [{ '#text': 'hello' }] });
    // The stored production moved on from the plan's source: plan again, then allow the deletion.
    expect((await cli(['--plan', 'settings.py', '--out', 'd2.json'])).code).toBe(0);
    const onlyBlocked = await cli(['--apply-plan', 'd2.json', '--settings', 'settings.py']);
    expect(onlyBlocked.stdout).toContain('  applied: 0, skipped: 1, failed: 0\n  operations:\n    0001-remove_setting remove_setting: skipped\n');
    expect(await greeting()).toBe('hello');
    const allowed = await cli(['--apply-plan', 'd2.json', '--settings', 'settings.py', '--allow-destructive']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('  applied: 1, skipped: 0, failed: 0\n  operations:\n    0001-remove_setting remove_setting: applied\n');
    expect(await greeting()).toBe('');
    expect((await cli(['--rollback-backup', 'Echo.Production'])).code).toBe(0);
    expect(await item()).toMatchObject({ '@Comment': 'shouts', Setting: [{ '#text': 'hello' }] });
    writeFileSync(settings, original);
    expect((await cli(['-m', settings])).code).toBe(0);
  }, 120_000);

  it('renders the export as IoP 4 does with --format', async () => {
    const mermaid = await cli(['-e', 'Echo.Production', '--format', 'mermaid']);
    expect(mermaid.code, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).toMatch(/^flowchart LR\n {2}%% Production: Echo.Production\n/);
    expect(mermaid.stdout).toContain('node_Echo_Operation["Echo.Operation<br/>Echo.Operation"]');
    expect((await cli(['-e', 'Echo.Production', '--format', 'graph'])).stdout).toBe('Echo.Production\n  Echo.Operation [Echo.Operation]\n');
    expect((await cli(['-e', 'Echo.Production', '--format', 'python'])).stdout).toContain("prod = Production('Echo.Production'");
    expect((await cli(['-e', 'Echo.Production', '--format', 'json'])).stdout).toBe((await cli(['-e', 'Echo.Production'])).stdout);
    const unknown = await cli(['-e', 'Echo.Production', '--format', 'xml']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--format takes one of json, python, class, graph, mermaid, not 'xml'");
    expect((await cli(['-l', '--format', 'json'])).stderr).toContain('--format can only be used with -e.');
  }, 120_000);

  it('lists bindings and queues as JSON, refuses to unbind a used class', async () => {
    const bindings = JSON.parse((await cli(['--bindings'])).stdout) as Array<{ class: string; used: number; used_by: unknown[] }>;
    expect(bindings).toContainEqual(
      expect.objectContaining({ class: 'Echo.Operation', used: 1, used_by: [{ production: 'Echo.Production', item: 'Echo.Operation' }] }),
    );
    expect(JSON.parse((await cli(['--bindings', '--unused'])).stdout)).not.toContainEqual(expect.objectContaining({ class: 'Echo.Operation' }));
    const unbind = await cli(['--unbind', 'Echo.Operation']);
    expect(unbind.code).toBe(1);
    expect(unbind.stderr).toContain('used by production items Echo.Production/Echo.Operation');
    const queues = JSON.parse((await cli(['-q', 'Echo.Production'])).stdout) as { production: string; items: unknown[] };
    expect(queues).toMatchObject({ production: 'Echo.Production', items: [expect.objectContaining({ item: 'Echo.Operation', count: 0 })] });
    const misplaced = await cli(['-l', '--unused']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--unused can only be used with --bindings.');
  }, 120_000);

  it('-m --strict-production-validation: the server refuses a production with validation issues, and writes nothing', async () => {
    const folder = temporaryFolder('cli-strict-');
    try {
      writeFileSync(
        join(folder, 'strict_counter.py'),
        'from iop import BusinessOperation, setting\n\n\nclass Counter(BusinessOperation):\n    limit: int = setting(5)\n',
      );
      writeFileSync(
        join(folder, 'settings.py'),
        [
          'from iop import Production',
          'from strict_counter import Counter',
          "prod = Production('Cli.Strict')",
          "prod.operation('Count', Counter, settings={'Limitt': '3'})",
          'PRODUCTIONS = [prod]',
          '',
        ].join('\n'),
      );
      const refused = await cli(['-m', join(folder, 'settings.py'), '--strict-production-validation']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Production validation: Cli.Strict');
      expect(refused.stderr).toContain('items.Count.settings.Host.Limitt: Unknown setting name');
      expect(JSON.parse((await cli(['-l'])).stdout)).not.toHaveProperty('Cli.Strict');
      // Without the flag the issue is a warning, as in IoP: the production is migrated.
      const migrated = await cli(['-m', join(folder, 'settings.py')]);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(JSON.parse((await cli(['-l'])).stdout)).toHaveProperty('Cli.Strict');
      const misplaced = await cli(['-x', '--strict-production-validation']);
      expect(misplaced.code).toBe(2);
      expect(misplaced.stderr).toContain('--strict-production-validation can only be used with -m');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
