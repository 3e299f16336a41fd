/**
 * The real `cli` executable in local mode: it talks to the home's server over `<home>/conveyor.sock`,
 * starting one in the background when none runs (and saying so on stderr), and never for help.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, echoPackageCopy, runCli, stopHomeServer, temporaryFolder } from './support/cli-harness.ts';

const home = join(temporaryFolder('cli-local-'), 'home');
const work = temporaryFolder('cli-local-work-');
const packageFolder = echoPackageCopy();
// No CLI_URL: local mode. CONVEYOR_PORT=0 keeps the auto-started server off the shared default port.
const env = cleanEnv({ CONVEYOR_HOME: home });
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, cwd: work });

beforeAll(() => {
  mkdirSync(join(work, 'classes'), { recursive: true });
  writeFileSync(join(work, 'classes', 'Local.Thing.cls'), 'Class Local.Thing Extends %RegisteredObject\n{\n}\n');
});

afterAll(async () => {
  await stopHomeServer(home);
  for (const folder of [join(home, '..'), work, packageFolder]) rmSync(folder, { recursive: true, force: true });
});

describe('cli in local mode', () => {
  it('help does not start a server; it shows the built-in default production and Mode: LOCAL (<home>)', async () => {
    const result = await cli([]);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').slice(-3)).toEqual(['Default production: Python.Production', 'Namespace: USER', `Mode: LOCAL (${home})`]);
    expect(existsSync(join(home, 'server.log'))).toBe(false);
  });

  it('the first command starts a server for the home, says so on stderr, and answers', async () => {
    const result = await cli(['-x']);
    expect(result.code, result.stderr).toBe(0);
    const [starting, started, ...rest] = result.stderr.split('\n');
    expect(starting).toBe(`No Conveyor server runs for ${home}: starting one in the background (log: ${join(home, 'server.log')})`);
    expect(started).toMatch(/^Started it \(pid \d+\): portal at http:\/\/127\.0\.0\.1:\d+\/portal\/; stop it with: conveyor stop --home /);
    expect(rest).toEqual(['']);
    expect(JSON.parse(result.stdout)).toEqual({ Production: '', Status: 'stopped' });
    expect(existsSync(join(home, 'conveyor.sock'))).toBe(true);
  });

  it('later commands use the running server silently', async () => {
    expect(await cli(['-l'])).toEqual({ code: 0, stdout: '{}\n', stderr: '' });
    // No default production in a fresh namespace: the client's built-in name stands in.
    expect(await cli(['-d'])).toEqual({ code: 0, stdout: 'default production: Python.Production\n', stderr: '' });
  });

  it('-d NAME of a production that does not exist is refused with the server text', async () => {
    const result = await cli(['-d', 'No.Such.Production']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ERROR #PRODUCTION_NOT_FOUND: .*No\.Such\.Production/);
  });

  it('-n overrides the namespace, CLI_NAMESPACE sets it', async () => {
    expect((await cli(['-h', '-n', 'OTHER'])).stdout).toContain('Namespace: OTHER');
    expect((await cli(['-h'], { CLI_NAMESPACE: 'THIRD' })).stdout).toContain('Namespace: THIRD');
  });

  it('-i DIR loads class files from the local disk over the socket', async () => {
    const result = await cli(['-i', 'classes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Uploaded: Local.Thing.cls');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('Loaded 1 class file into namespace USER');
  });

  it('-m migrates the settings file in place (no upload); -d then sets its production as default', async () => {
    const result = await cli(['-m', join(packageFolder, 'settings.py')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Migrated ${join(packageFolder, 'settings.py')}`);
    expect(JSON.parse((await cli(['-l'])).stdout)).toHaveProperty(['Echo.Production']);
    expect(existsSync(join(home, 'packages', 'USER', 'python', 'settings.py'))).toBe(false);
    expect((await cli(['-d', 'Echo.Production'])).code).toBe(0);
    expect(await cli(['-d'])).toEqual({ code: 0, stdout: 'default production: Echo.Production\n', stderr: '' });
  });

  it('-L N reads the log of the home', async () => {
    const result = await cli(['-L', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
  });

  it('server errors come back as ERROR #CODE: <text>, exit 1', async () => {
    const result = await cli(['-s', 'No.Such.Production', '-D']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ERROR #PRODUCTION_NOT_FOUND: .*No\.Such\.Production/);
  });
});
