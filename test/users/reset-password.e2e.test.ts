/**
 * `conveyor users reset-password NAME`, run as a user would (the real command, a real home): with
 * no server running, and with one running, which accepts the new password at once and no longer the
 * old one. Bad input (unknown user, no users file, nothing on stdin) fails with a clear message and
 * leaves the users file as it was.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UserDirectory } from '../../src/api/users.ts';
import { httpCall, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function conveyor(args: string[], stdin = '', cwd = repoRoot): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(repoRoot, 'src/server/main.ts'), ...args], {
    cwd,
    input: stdin,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CONVEYOR_HOME: '' },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function homeWithUsers(): Promise<{ home: string; file: string; remove: () => void }> {
  const dir = tempDir('conveyor-reset-');
  const file = join(dir.path, 'users.json');
  const users = await UserDirectory.open(file);
  await users.set('admin', 'old-admin-pw', 'admin');
  await users.set('ops', 'old-ops-pw', 'operator');
  return { home: dir.path, file, remove: dir.remove };
}

async function verify(file: string, name: string, password: string) {
  return (await UserDirectory.open(file)).verify(name, password);
}

describe('conveyor users reset-password, no server running', () => {
  it('generates a new password, prints it once and keeps the role; the file stays private', async () => {
    const home = await homeWithUsers();
    try {
      const run = conveyor(['users', 'reset-password', 'ops', '--home', home.home]);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const printed = /^New password of ops: (\S+)\n/.exec(run.stdout)?.[1];
      expect(printed).toBeDefined();
      expect(await verify(home.file, 'ops', printed!)).toEqual({ name: 'ops', role: 'operator' });
      expect(await verify(home.file, 'ops', 'old-ops-pw')).toBeNull();
      expect(await verify(home.file, 'admin', 'old-admin-pw')).toEqual({ name: 'admin', role: 'admin' });
      expect(statSync(home.file).mode & 0o777).toBe(0o600);
    } finally {
      home.remove();
    }
  });

  it('takes the password from stdin with --password-stdin (one line, final line break dropped), or from --password', async () => {
    const home = await homeWithUsers();
    try {
      const run = conveyor(['users', 'reset-password', 'admin', '--home', home.home, '--password-stdin'], 'chosen pw 1\n');
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`Changed the password of admin in ${home.file}\n`);
      expect(await verify(home.file, 'admin', 'chosen pw 1')).toEqual({ name: 'admin', role: 'admin' });
      const option = conveyor(['users', 'reset-password', 'ops', '--home', home.home, '--password', 'chosen pw 2']);
      expect(option.stdout).toBe(`Changed the password of ops in ${home.file}\n`);
      expect(await verify(home.file, 'ops', 'chosen pw 2')).toEqual({ name: 'ops', role: 'operator' });
    } finally {
      home.remove();
    }
  });

  it('works on the home it is run from when neither --home nor CONVEYOR_HOME names one', async () => {
    const home = await homeWithUsers();
    try {
      const run = conveyor(['users', 'reset-password', 'ops', '--password-stdin'], 'from inside\n', home.home);
      expect(run.stdout).toBe(`Changed the password of ops in ${home.file}\n`);
      expect(await verify(home.file, 'ops', 'from inside')).toEqual({ name: 'ops', role: 'operator' });
    } finally {
      home.remove();
    }
  });

  // Seven runs of the command, each a fresh Node with tsx: on a loaded machine that is past the default minute.
  it('refuses an unknown user, an empty stdin and a home without users, changing nothing', async () => {
    const home = await homeWithUsers();
    try {
      const before = readFileSync(home.file, 'utf8');
      const unknown = conveyor(['users', 'reset-password', 'bob', '--home', home.home]);
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toBe(`Error: No user named "bob" in ${home.file} (users: admin, ops)\n`);
      const empty = conveyor(['users', 'reset-password', 'admin', '--home', home.home, '--password-stdin'], '');
      expect(empty.status).toBe(1);
      expect(empty.stderr).toMatch(/^Error: No password on stdin\nPipe it in: /);
      const twoLines = conveyor(['users', 'reset-password', 'admin', '--home', home.home, '--password-stdin'], 'a\nb\n');
      expect(twoLines.stderr).toBe('Error: The password on stdin spans several lines; give one line\n');
      const both = conveyor(['users', 'reset-password', 'admin', '--home', home.home, '--password', 'x', '--password-stdin'], 'y\n');
      expect(both.stderr).toBe('Error: Give the password either with --password or on stdin (--password-stdin), not both\n');
      expect(conveyor(['users', 'reset-password', 'admin', '--home', home.home, '--password', '']).stderr).toBe('Error: --password must not be empty\n');
      expect(readFileSync(home.file, 'utf8')).toBe(before);
      const nowhere = join(home.home, 'not-a-home');
      const noFile = conveyor(['users', 'reset-password', 'admin', '--home', nowhere]);
      expect(noFile.status).toBe(1);
      expect(noFile.stderr).toContain(`Error: No users file ${join(nowhere, 'users.json')}: is ${nowhere} the home of a server?`);
    } finally {
      home.remove();
    }
  }, 300_000);
});

describe('conveyor users reset-password, server running', () => {
  let server: ServerProcess | null = null;
  const dir = tempDir('conveyor-reset-live-');
  afterEach(async () => {
    await server?.kill();
    server = null;
    dir.remove();
  });

  it('the running server takes the new password at once and refuses the old one, even just verified', async () => {
    server = await startServerProcess(dir.path, [], { CONVEYOR_ADMIN_PASSWORD: 'first-pw' });
    const status = (password: string) =>
      httpCall({ url: server!.url, headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } }, 'GET', '/api/iop/status');
    expect((await status('first-pw')).status).toBe(200);
    const run = conveyor(['users', 'reset-password', 'admin', '--home', dir.path, '--password-stdin'], 'second-pw\n');
    expect(run.status).toBe(0);
    expect((await status('first-pw')).status).toBe(401);
    expect((await status('second-pw')).status).toBe(200);
  });
});
