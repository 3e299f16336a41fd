/**
 * IoP's documentation example, as a user runs it (issue 20): a migration file that builds its
 * production from EnsLib.File.PassthroughService and EnsLib.File.PassthroughOperation with IoP's
 * Production DSL, through the real `cli` in local mode: migrated, started, a file dropped in is
 * written out under IRIS's default name `%f_%Q` and leaves the input folder. The same service
 * without its FilePath is named by `cli -s` with the reason; an IRIS class Conveyor lacks refuses
 * the migration, naming it and what is provided.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, stopHomeServer, temporaryFolder } from './support/cli-harness.ts';
import { eventually } from '../support/temp-dir.ts';

const home = join(temporaryFolder('cli-iop-example-'), 'home');
const work = temporaryFolder('cli-iop-example-work-');
const inbox = join(work, 'in');
const outbox = join(work, 'out');
const env = cleanEnv({ CONVEYOR_HOME: home });
const cli = (args: string[]) => runCli(args, { env, cwd: work });

afterAll(async () => {
  await stopHomeServer(home);
  for (const folder of [join(home, '..'), work]) rmSync(folder, { recursive: true, force: true });
});

function migrationFile(name: string, lines: string[]): string {
  const path = join(work, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

describe("IoP's EnsLib.File passthrough example through the cli", () => {
  it('migrates, starts and moves a dropped file to the output folder under %f_%Q', async () => {
    const settings = migrationFile('settings.py', [
      'from iop import Production',
      '',
      'prod = Production("Demo.Production")',
      'file_in = prod.service("FileIn", class_name="EnsLib.File.PassthroughService")',
      'file_out = prod.operation("FileOut", class_name="EnsLib.File.PassthroughOperation")',
      `file_in.adapter_setting("FilePath", ${JSON.stringify(inbox)})`,
      'file_in.adapter_setting("CallInterval", "0.2")',
      `file_out.adapter_setting("FilePath", ${JSON.stringify(outbox)})`,
      'prod.connect(file_in.target_setting("TargetConfigNames"), file_out)',
      '',
      'PRODUCTIONS = [prod]',
    ]);
    const migrated = await cli(['-m', settings]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('Registered production Demo.Production');

    const started = await cli(['-s', 'Demo.Production', '-D']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).not.toContain('did not start');

    // Written beside the folder, then renamed in: the service never sees half a file.
    writeFileSync(join(work, 'order1.txt'), 'hello\nworld\n');
    renameSync(join(work, 'order1.txt'), join(inbox, 'order1.txt'));
    const written = await eventually(
      () => (existsSync(outbox) ? readdirSync(outbox).find((name) => !name.startsWith('.')) : undefined),
      'the file written out',
    );
    expect(written).toMatch(/^order1\.txt_\d{4}-\d{2}-\d{2}_\d{2}\.\d{2}\.\d{2}\.\d{3}$/);
    expect(readFileSync(join(outbox, written), 'utf8')).toBe('hello\nworld\n');
    await eventually(() => !existsSync(join(inbox, 'order1.txt')), 'the input file deleted');
    expect((await cli(['-S'])).code).toBe(0);
  }, 90_000);

  it('names the item that did not start and why', async () => {
    const settings = migrationFile('nopath.py', [
      'from iop import Production',
      'prod = Production("Demo.NoPath")',
      'file_in = prod.service("FileIn", class_name="EnsLib.File.PassthroughService")',
      'file_out = prod.operation("FileOut", class_name="EnsLib.File.PassthroughOperation")',
      `file_out.adapter_setting("FilePath", ${JSON.stringify(outbox)})`,
      'prod.connect(file_in.target_setting("TargetConfigNames"), file_out)',
      'PRODUCTIONS = [prod]',
    ]);
    expect((await cli(['-m', settings])).code).toBe(0);
    const started = await cli(['-s', 'Demo.NoPath', '-D']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain(
      'Warning: 1 item of Demo.NoPath did not start:\n  FileIn (EnsLib.File.PassthroughService): Item FileIn needs the setting FilePath',
    );
    expect((await cli(['-S'])).code).toBe(0);
  }, 60_000);

  it('refuses a migration naming an IRIS class Conveyor does not provide, and registers nothing of it', async () => {
    mkdirSync(join(work, 'hl7'), { recursive: true });
    const settings = migrationFile('hl7/settings.py', [
      "PRODUCTIONS = [{'Demo.Hl7': {'Item': [",
      "  {'@Name': 'Hl7In', '@ClassName': 'EnsLib.HL7.Service.FileService'},",
      "  {'@Name': 'Out', '@ClassName': 'EnsLib.File.PassthroughOperation'},",
      ']}}]',
    ]);
    const refused = await cli(['-m', settings]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'Unknown classes: item Hl7In of production Demo.Hl7 uses EnsLib.HL7.Service.FileService, an IRIS class Conveyor does not provide',
    );
    expect(refused.stderr).toContain('Conveyor provides EnsLib.File.PassthroughService, EnsLib.File.PassthroughOperation, EnsLib.MsgRouter.RoutingEngine');
    expect((await cli(['-l'])).stdout).not.toContain('Demo.Hl7');
  }, 60_000);
});
