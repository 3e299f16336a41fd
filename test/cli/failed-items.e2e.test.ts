/**
 * The real `cli` (local mode, its own server) on a production with an item that cannot start:
 * `-s` still starts it (the spec's status stays `running`) and says on stderr which item did not
 * start and why; `-r` says it again; a production whose items all start gets no warning.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, stopHomeServer, temporaryFolder } from './support/cli-harness.ts';

const home = join(temporaryFolder('cli-failed-items-'), 'home');
const work = temporaryFolder('cli-failed-items-work-');
const env = cleanEnv({ CONVEYOR_HOME: home });
const cli = (args: string[]) => runCli(args, { env, cwd: work });

beforeAll(() => {
  mkdirSync(join(work, 'pkg'), { recursive: true });
  writeFileSync(
    join(work, 'pkg', 'components.py'),
    [
      'from iop import BusinessOperation',
      'class Broken(BusinessOperation):',
      '    def on_init(self):',
      "        raise RuntimeError('the database is not reachable')",
      'class Fine(BusinessOperation):',
      '    pass',
    ].join('\n'),
  );
  writeFileSync(
    join(work, 'pkg', 'settings.py'),
    [
      'from components import Broken, Fine',
      "CLASSES = {'Demo.Broken': Broken, 'Demo.Fine': Fine}",
      'PRODUCTIONS = [',
      "  {'Demo.Partly': {'Item': [{'@Name': 'Db', '@ClassName': 'Demo.Broken'}, {'@Name': 'Ok', '@ClassName': 'Demo.Fine'}]}},",
      "  {'Demo.Whole': {'Item': [{'@Name': 'Ok', '@ClassName': 'Demo.Fine'}]}},",
      ']',
    ].join('\n'),
  );
});

afterAll(async () => {
  await stopHomeServer(home);
  for (const folder of [join(home, '..'), work]) rmSync(folder, { recursive: true, force: true });
});

describe('cli -s with items that do not start', () => {
  it('starts the production and names each item that did not start with its reason', async () => {
    const migrated = await cli(['-m', join(work, 'pkg', 'settings.py')]);
    expect(migrated.code, migrated.stderr).toBe(0);
    const started = await cli(['-s', 'Demo.Partly', '-D']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toBe('Production Demo.Partly started\n');
    expect(started.stderr).toContain('Warning: 1 item of Demo.Partly did not start:\n  Db (Demo.Broken): ');
    expect(started.stderr).toContain('RuntimeError: the database is not reachable');
    expect(started.stderr).not.toContain('Ok (Demo.Fine)');
    expect(JSON.parse((await cli(['-x'])).stdout)).toEqual({ Production: 'Demo.Partly', Status: 'running' });
    const restarted = await cli(['-r']);
    expect(restarted.stderr).toContain('Warning: 1 item of Demo.Partly did not start:\n  Db (Demo.Broken): ');
    expect((await cli(['-S'])).code).toBe(0);
  });

  it('says nothing more when every item starts', async () => {
    const started = await cli(['-s', 'Demo.Whole', '-D']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).not.toContain('did not start');
    expect((await cli(['-S'])).code).toBe(0);
  });
});
