/**
 * Issue 18's user management and the server side of the portal defects, on a real `conveyor serve`
 * process over TCP with HTTP Basic: disabling and enabling users (a disabled user gets 401 with a clear
 * message, the last enabled admin is kept), roles and password resets; a definition with an unknown
 * class stored with a warning; an invalid schedule refused; schema import limited to the configured
 * import folder (`..`, absolute paths outside it and the home's files refused).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, startServerProcess, type HttpReply, type ServerProcess } from '../support/server-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
const errorOf = (reply: HttpReply) => (reply.json as { error: string }).error;

describe('users and the portal defects, server side', () => {
  const dir = tempDir('conveyor-users-defects-');
  const home = join(dir.path, 'home');
  const importFolder = join(dir.path, 'schema-drop');
  let server: ServerProcess;
  const as = (name: string, password: string) => (method: string, path: string, body?: unknown) =>
    httpCall({ url: server.url, headers: { authorization: basic(name, password) } }, method, path, body);
  let admin: ReturnType<typeof as>;

  beforeAll(async () => {
    await mkdir(importFolder, { recursive: true });
    server = await startServerProcess(home, [], { CONVEYOR_ADMIN_USER: 'root', CONVEYOR_ADMIN_PASSWORD: 'root-pw', CONVEYOR_IMPORT_FOLDER: importFolder });
    admin = as('root', 'root-pw');
  });
  afterAll(async () => {
    await server.kill();
    dir.remove();
  });

  describe('users', () => {
    it('lists users with their role and disabled flag, never a secret', async () => {
      const reply = await admin('GET', '/api/iop/users');
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual([{ name: 'root', role: 'admin', disabled: false }]);
    });

    it('disables a user: its next request is refused with 401 and a clear message; enabled again it works', async () => {
      expect((await admin('PUT', '/api/iop/users/dana', { password: 'pw-dana', role: 'operator' })).json).toEqual({
        name: 'dana',
        role: 'operator',
        disabled: false,
      });
      const dana = as('dana', 'pw-dana');
      expect((await dana('GET', '/api/iop/status')).status).toBe(200);
      expect((await admin('POST', '/api/iop/users/dana/disable')).json).toEqual({ name: 'dana', role: 'operator', disabled: true });
      const refused = await dana('GET', '/api/iop/status');
      expect(refused.status).toBe(401);
      expect(errorOf(refused)).toBe('ERROR #AUTH: User dana is disabled: an admin can enable it again (portal Users page)');
      expect((await as('dana', 'wrong')('GET', '/api/iop/status')).json).toMatchObject({ error: expect.stringMatching(/Wrong user name or password/) });
      // A new password or role keeps the user disabled.
      await admin('POST', '/api/iop/users/dana/password', { password: 'pw-dana-2' });
      expect((await as('dana', 'pw-dana-2')('GET', '/api/iop/status')).status).toBe(401);
      expect((await admin('POST', '/api/iop/users/dana/enable')).json).toEqual({ name: 'dana', role: 'operator', disabled: false });
      expect((await as('dana', 'pw-dana-2')('GET', '/api/iop/status')).status).toBe(200);
    });

    it('sets a role without touching the password, and resets a password: the old one stops working at once', async () => {
      await admin('PUT', '/api/iop/users/ed', { password: 'pw-ed', role: 'viewer' });
      expect((await as('ed', 'pw-ed')('POST', '/api/iop/users/ed/role', { role: 'admin' })).status).toBe(403);
      expect((await admin('POST', '/api/iop/users/ed/role', { role: 'admin' })).json).toEqual({ name: 'ed', role: 'admin', disabled: false });
      expect((await as('ed', 'pw-ed')('GET', '/api/iop/users')).status).toBe(200);
      expect((await admin('POST', '/api/iop/users/ed/password', { password: 'pw-ed-new' })).json).toEqual({ name: 'ed', role: 'admin', disabled: false });
      expect((await as('ed', 'pw-ed')('GET', '/api/iop/users')).status).toBe(401);
      expect((await as('ed', 'pw-ed-new')('GET', '/api/iop/users')).status).toBe(200);
      await admin('DELETE', '/api/iop/users/ed');
    });

    it('keeps the last enabled admin: it cannot be disabled, demoted or removed, also when the other admin is disabled', async () => {
      await admin('PUT', '/api/iop/users/backup', { password: 'pw-backup', role: 'admin' });
      await admin('POST', '/api/iop/users/backup/disable');
      const disable = await admin('POST', '/api/iop/users/root/disable');
      expect(disable.status).toBe(400);
      expect(errorOf(disable)).toBe('ERROR #INVALID_INPUT: Cannot disable root: it is the last enabled admin (Give another user the admin role first)');
      expect(errorOf(await admin('POST', '/api/iop/users/root/role', { role: 'operator' }))).toMatch(
        /Cannot make root an operator: it is the last enabled admin/,
      );
      expect(errorOf(await admin('DELETE', '/api/iop/users/root'))).toMatch(/Cannot remove root: it is the last enabled admin/);
      // With the other admin enabled again, root may be disabled (and backup enables it back).
      await admin('POST', '/api/iop/users/backup/enable');
      expect((await admin('POST', '/api/iop/users/root/disable')).status).toBe(200);
      expect((await admin('GET', '/api/iop/users')).status).toBe(401);
      expect((await as('backup', 'pw-backup')('POST', '/api/iop/users/root/enable')).status).toBe(200);
      expect((await admin('GET', '/api/iop/users')).status).toBe(200);
      await admin('DELETE', '/api/iop/users/backup');
    });

    it('refuses bad input with a clear error and changes nothing', async () => {
      const before = (await admin('GET', '/api/iop/users')).json;
      expect(errorOf(await admin('POST', '/api/iop/users/ghost/disable'))).toMatch(/No user named "ghost" \(users: .*root/);
      expect(errorOf(await admin('POST', '/api/iop/users/ghost/password', { password: 'x' }))).toMatch(/No user named "ghost"/);
      expect(errorOf(await admin('POST', '/api/iop/users/dana/role', { role: 'root' }))).toMatch(/role must be "viewer", "operator" or "admin", not "root"/);
      expect(errorOf(await admin('POST', '/api/iop/users/dana/password', { password: '' }))).toMatch(/password/);
      expect(errorOf(await admin('POST', '/api/iop/users/dana/password', {}))).toMatch(/password is required/);
      expect((await as('dana', 'pw-dana-2')('POST', '/api/iop/users/root/disable')).status).toBe(403);
      expect((await admin('GET', '/api/iop/users')).json).toEqual(before);
    });
  });

  describe('production definitions', () => {
    const definition = (schedule: string, classname = 'Conveyor.Operation.Echo') => ({
      definition: { name: 'Defects.Production', items: [{ name: 'Echo', classname, schedule }] },
    });

    it('stores a definition whose class is not registered, and says so in the reply', async () => {
      const reply = await admin('PUT', '/api/iop/definition', definition('', 'Demo.NoSuchOperation'));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toEqual({
        production: 'Defects.Production',
        items: 1,
        warnings: [
          'Item Echo: class Demo.NoSuchOperation is not registered in namespace USER; the item cannot start until it is (migrate its package, or correct the class name)',
        ],
      });
      expect((await admin('PUT', '/api/iop/definition', definition(''))).json).toMatchObject({ warnings: [] });
    });

    it('refuses an invalid schedule with the reason and keeps the stored definition; a valid one is stored', async () => {
      const refused = await admin('PUT', '/api/iop/definition', definition('every day at 8'));
      expect(refused.status).toBe(400);
      expect(errorOf(refused)).toBe(
        'ERROR #INVALID_INPUT: item Echo: schedule "every day at 8" is not an IRIS schedule: "every day at 8" must be START:… or STOP:… (e.g. START:*-*-*T08:00:00,STOP:*-*-*T17:00:00, or @Name)',
      );
      expect(errorOf(await admin('PUT', '/api/iop/definition', definition('START:*-13-*T08:00:00')))).toMatch(/the month "13" must be 01 to 12 or \*/);
      expect(errorOf(await admin('POST', '/api/iop/production/plan', definition('START:*-*-*T8:00')))).toMatch(/the time "8:00" must be hh:mm:ss/);
      // IoP's export form, sent to validate, plan or apply, is checked the same way.
      const iopForm = {
        definition: {
          'Defects.Production': {
            '@Name': 'Defects.Production',
            Item: [{ '@Name': 'Echo', '@ClassName': 'Conveyor.Operation.Echo', '@Schedule': 'STOP:*-*-*' }],
          },
        },
      };
      const iopRefused = await admin('POST', '/api/iop/production/validate', iopForm);
      expect(iopRefused.status).toBe(400);
      expect(errorOf(iopRefused)).toMatch(/item Echo: schedule "STOP:\*-\*-\*" is not an IRIS schedule: "\*-\*-\*" must be a date and a time/);
      const stored = await admin('GET', '/api/iop/definition?production=Defects.Production');
      expect((stored.json as { items: Array<{ schedule: string }> }).items[0]?.schedule).toBe('');
      const schedule = 'START:WEEK-*-01T08:00:00,STOP:WEEK-*-05T17:00:00';
      expect((await admin('PUT', '/api/iop/definition', definition(schedule))).status).toBe(200);
      const again = await admin('GET', '/api/iop/definition?production=Defects.Production');
      expect((again.json as { items: Array<{ schedule: string }> }).items[0]?.schedule).toBe(schedule);
    });
  });

  describe('schema import from the configured import folder', () => {
    const importFrom = (path: string, name: string) => admin('POST', '/api/iop/schemas/import', { path, package: 'drop', name });

    it('reads a file of the import folder by its name or its absolute path', async () => {
      await writeFile(join(importFolder, 'person.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } } }));
      expect((await importFrom('person.json', 'drop.Person')).json).toEqual({ imported: 'drop.Person', package: 'drop' });
      expect((await importFrom(join(importFolder, 'person.json'), 'drop.Person2')).json).toEqual({ imported: 'drop.Person2', package: 'drop' });
    });

    it("refuses ../ out of the folder, absolute paths elsewhere, the home's own imports folder and its users file, storing nothing", async () => {
      await mkdir(join(home, 'imports'), { recursive: true });
      await writeFile(join(home, 'imports', 'old.json'), JSON.stringify({ type: 'object' }));
      await writeFile(join(dir.path, 'beside.json'), JSON.stringify({ type: 'object', title: 'beside-title' }));
      const paths = [
        '../beside.json',
        '../home/users.json',
        join(importFolder, '..', 'beside.json'),
        join(home, 'imports', 'old.json'),
        join(home, 'users.json'),
        '/etc/passwd',
      ];
      for (const [index, path] of paths.entries()) {
        const reply = await importFrom(path, `drop.Leak${index}`);
        expect(reply.status, path).toBe(400);
        // Error texts write the home and temporary folders as <home> and <tmp>.
        expect(errorOf(reply), path).toMatch(
          /^ERROR #UNSAFE_PATH: path ".*" is outside the folders the server reads schema files from \(Put the file in the server's import folder \(importFolder, default <home>\/imports\) and give its name, or upload the schema document itself as schema\)$/,
        );
        expect(reply.text).not.toMatch(/salt|hash|root:x|beside-title/);
        expect((await admin('GET', `/api/iop/schemas/drop.Leak${index}`)).status).toBe(404);
      }
      expect(errorOf(await importFrom('missing.json', 'drop.Missing'))).toMatch(/Cannot read the schema file "missing.json": ENOENT/);
    });

    it('still imports an uploaded schema document', async () => {
      const reply = await admin('POST', '/api/iop/schemas/import', { package: 'drop', name: 'drop.Upload', schema: JSON.stringify({ type: 'object' }) });
      expect(reply.json).toEqual({ imported: 'drop.Upload', package: 'drop' });
    });
  });
});
