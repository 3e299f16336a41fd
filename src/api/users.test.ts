import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureFirstAdmin, roleAllows, UserDirectory } from './users.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conveyor-users-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('UserDirectory', () => {
  it('stores salted scrypt hashes, never the password, in a 0600 file', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await users.set('alice', 's3cret', 'operator');
    await users.set('bob', 's3cret', 'viewer');
    const text = await readFile(users.file, 'utf8');
    expect(text).not.toContain('s3cret');
    const saved = JSON.parse(text).users;
    expect(saved.map((u: { name: string; role: string }) => [u.name, u.role])).toEqual([
      ['alice', 'operator'],
      ['bob', 'viewer'],
    ]);
    expect(saved[0].salt).not.toBe(saved[1].salt);
    expect(saved[0].hash).not.toBe(saved[1].hash);
    expect((await stat(users.file)).mode & 0o777).toBe(0o600);
  });

  it('removes the half-written file a killed writer left, keeping the users', async () => {
    const first = await UserDirectory.open(join(dir, 'users.json'));
    await first.set('alice', 's3cret', 'admin');
    // No process has this pid (pids stay below 2^22 on Linux): its writer is gone.
    await writeFile(join(dir, 'users.json.99999999.tmp'), '{"users": [');
    const reopened = await UserDirectory.open(join(dir, 'users.json'));
    expect(await reopened.verify('alice', 's3cret')).toEqual({ name: 'alice', role: 'admin' });
    expect((await readdir(dir)).sort()).toEqual(['users.json']);
  });

  it('keeps every one of many changes made at the same time, and each succeeds', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await users.set('admin', 'pw-admin', 'admin');
    const names = Array.from({ length: 30 }, (_, i) => `u${i}`);
    const added = await Promise.allSettled(names.map((name) => users.set(name, `pw-${name}`, 'viewer')));
    expect(added.filter((result) => result.status === 'rejected')).toEqual([]);
    // Removals and a refused change at the same time as further additions: the refusal stops nothing.
    const mixed = await Promise.allSettled([
      ...names.slice(0, 10).map((name) => users.remove(name)),
      users.remove('nobody'),
      ...['v1', 'v2', 'v3'].map((name) => users.set(name, 'pw', 'operator')),
    ]);
    expect(mixed.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([
      expect.stringMatching(/No user named "nobody"/),
    ]);
    const expected = ['admin', ...names.slice(10), 'v1', 'v2', 'v3'].sort();
    const saved = JSON.parse(await readFile(users.file, 'utf8')).users.map((user: { name: string }) => user.name);
    expect(saved.sort()).toEqual(expected);
    expect(
      (await UserDirectory.open(users.file))
        .list()
        .map((user) => user.name)
        .sort(),
    ).toEqual(expected);
    expect(await users.verify('u29', 'pw-u29')).toEqual({ name: 'u29', role: 'viewer' });
    expect(await readdir(dir)).toEqual(['users.json']);
  });

  it('verifies the right password only', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await users.set('alice', 's3cret', 'admin');
    expect(await users.verify('alice', 's3cret')).toEqual({ name: 'alice', role: 'admin' });
    expect(await users.verify('alice', 'S3cret')).toBeNull();
    expect(await users.verify('nobody', 's3cret')).toBeNull();
    expect(await users.verify('', '')).toBeNull();
  });

  it('sees changes another process wrote, and removals', async () => {
    const first = await UserDirectory.open(join(dir, 'users.json'));
    const second = await UserDirectory.open(join(dir, 'users.json'));
    await first.set('carol', 'pw', 'viewer');
    await second.reload();
    expect(second.list()).toEqual([{ name: 'carol', role: 'viewer', disabled: false }]);
    await second.remove('carol');
    await first.reload();
    expect(first.size).toBe(0);
  });

  it('reloadIfChanged notices a file another writer replaced through the watch of its folder, and leaves an unchanged file unread', async () => {
    const server = await UserDirectory.open(join(dir, 'users.json'));
    const writer = await UserDirectory.open(join(dir, 'users.json'));
    await writer.set('dave', 'old', 'operator');
    await server.reloadIfChanged();
    expect(await server.verify('dave', 'old')).toEqual({ name: 'dave', role: 'operator' });
    const unchanged = server.generation;
    await server.reloadIfChanged();
    expect(server.generation).toBe(unchanged);
    await writer.setPassword('dave', 'new');
    // The watch's event arrives on a later turn of the event loop; the look it triggers must come
    // before the once-a-second look that would find the change without any watch.
    const started = Date.now();
    while (server.generation === unchanged && Date.now() - started < 900) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await server.reloadIfChanged();
    }
    expect(await server.verify('dave', 'old')).toBeNull();
    expect(await server.verify('dave', 'new')).toEqual({ name: 'dave', role: 'operator' });
    server.close();
  });

  it('refuses bad names, roles, empty passwords and unknown users with clear errors', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await expect(users.set('a b', 'pw', 'admin')).rejects.toThrow(/Invalid user name "a b"/);
    await expect(users.set('ann', 'pw', 'root' as never)).rejects.toThrow(/Invalid role "root"/);
    await expect(users.set('ann', '', 'admin')).rejects.toThrow(/must not be empty/);
    await expect(users.remove('ghost')).rejects.toThrow(/No user named "ghost"/);
  });

  it('keeps a disabled flag in the file across a reload, a new password and a new role, until enabled', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await users.set('root', 'pw', 'admin');
    await users.set('ops', 'pw', 'operator');
    await users.setDisabled('ops', true);
    await users.setPassword('ops', 'pw2');
    await users.setRole('ops', 'viewer');
    const again = await UserDirectory.open(join(dir, 'users.json'));
    expect(again.get('ops')).toEqual({ name: 'ops', role: 'viewer', disabled: true });
    expect(again.isDisabled('ops')).toBe(true);
    // The password still verifies: refusing a disabled user is the API's job, which checks the password first.
    expect(await again.verify('ops', 'pw2')).toEqual({ name: 'ops', role: 'viewer' });
    await again.setDisabled('ops', false);
    expect(JSON.parse(await readFile(join(dir, 'users.json'), 'utf8')).users.find((user: { name: string }) => user.name === 'ops')).not.toHaveProperty(
      'disabled',
    );
  });

  it('counts only enabled admins when keeping the last one', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    await users.set('root', 'pw', 'admin');
    await users.set('spare', 'pw', 'admin');
    await users.setDisabled('spare', true);
    await expect(users.setDisabled('root', true)).rejects.toThrow('Cannot disable root: it is the last enabled admin');
    await expect(users.setRole('root', 'operator')).rejects.toThrow('Cannot make root an operator: it is the last enabled admin');
    await expect(users.remove('root')).rejects.toThrow('Cannot remove root: it is the last enabled admin');
    // A disabled admin may go: it is not the one keeping the users manageable.
    await users.remove('spare');
    await expect(users.setDisabled('ghost', true)).rejects.toThrow('No user named "ghost" (users: root)');
    expect(users.list()).toEqual([{ name: 'root', role: 'admin', disabled: false }]);
  });

  it('reports a broken users file as a configuration error', async () => {
    await writeFile(join(dir, 'users.json'), '{"users": [{"name": "x"}]}');
    await expect(UserDirectory.open(join(dir, 'users.json'))).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    await writeFile(join(dir, 'users.json'), 'nope');
    await expect(UserDirectory.open(join(dir, 'users.json'))).rejects.toThrow(/not valid JSON/);
  });
});

describe('ensureFirstAdmin', () => {
  it('creates admin with a generated password returned once', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    const first = await ensureFirstAdmin(users, {});
    expect(first?.name).toBe('admin');
    expect(first?.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await users.verify('admin', first?.generatedPassword ?? '')).toEqual({ name: 'admin', role: 'admin' });
    expect(await ensureFirstAdmin(users, {})).toBeNull();
  });

  it('uses CONVEYOR_ADMIN_USER and CONVEYOR_ADMIN_PASSWORD when given', async () => {
    const users = await UserDirectory.open(join(dir, 'users.json'));
    expect(await ensureFirstAdmin(users, { CONVEYOR_ADMIN_USER: 'root', CONVEYOR_ADMIN_PASSWORD: 'given' })).toEqual({ name: 'root', generatedPassword: null });
    expect(await users.verify('root', 'given')).toEqual({ name: 'root', role: 'admin' });
  });
});

describe('roles', () => {
  it('orders viewer < operator < admin', () => {
    expect(roleAllows('admin', 'operator')).toBe(true);
    expect(roleAllows('operator', 'operator')).toBe(true);
    expect(roleAllows('viewer', 'operator')).toBe(false);
    expect(roleAllows('operator', 'admin')).toBe(false);
  });
});
