import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('user routes', () => {
  it('lists users without any secret', async () => {
    const reply = await h.app.inject({ url: '/api/iop/users', headers: h.auth('admin') });
    expect(reply.json()).toEqual([
      { name: 'viewer', role: 'viewer', disabled: false },
      { name: 'operator', role: 'operator', disabled: false },
      { name: 'admin', role: 'admin', disabled: false },
    ]);
  });

  it('creates a user that can then sign in, and removes it', async () => {
    const created = await h.app.inject({
      method: 'PUT',
      url: '/api/iop/users/dana',
      headers: h.auth('admin'),
      payload: { password: 'pw-dana', role: 'operator' },
    });
    expect(created.json()).toEqual({ name: 'dana', role: 'operator', disabled: false });
    expect((await h.app.inject({ url: '/api/iop/status', headers: { authorization: basic('dana', 'pw-dana') } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'DELETE', url: '/api/iop/users/dana', headers: h.auth('admin') })).json()).toEqual({
      status: 'removed',
      name: 'dana',
    });
    expect((await h.app.inject({ url: '/api/iop/status', headers: { authorization: basic('dana', 'pw-dana') } })).statusCode).toBe(401);
  });

  it('refuses a bad role, a missing password, an unknown user and losing the last admin', async () => {
    const badRole = await h.app.inject({ method: 'PUT', url: '/api/iop/users/eve', headers: h.auth('admin'), payload: { password: 'x', role: 'root' } });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json().error).toBe('ERROR #INVALID_INPUT: role must be "viewer", "operator" or "admin", not "root" in the body of PUT /api/iop/users/:name');
    const noPassword = await h.app.inject({ method: 'PUT', url: '/api/iop/users/eve', headers: h.auth('admin'), payload: { role: 'viewer' } });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().error).toBe('ERROR #INVALID_INPUT: password is required in the body of PUT /api/iop/users/:name');
    expect((await h.app.inject({ method: 'DELETE', url: '/api/iop/users/ghost', headers: h.auth('admin') })).json().error).toMatch(
      /No user named "ghost" \(users: viewer, operator, admin\)$/,
    );
    const lastAdmin = await h.app.inject({ method: 'DELETE', url: '/api/iop/users/admin', headers: h.auth('admin') });
    expect(lastAdmin.json().error).toMatch(/Cannot remove admin: it is the last enabled admin \(Give another user the admin role first\)$/);
    const demote = await h.app.inject({ method: 'PUT', url: '/api/iop/users/admin', headers: h.auth('admin'), payload: { password: 'x', role: 'viewer' } });
    expect(demote.json().error).toMatch(/Cannot make admin a viewer: it is the last enabled admin/);
  });

  it('answers 30 user changes sent at the same time with success, and keeps them all', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `parallel${i}`);
    const replies = await Promise.all(
      names.map((name) =>
        h.app.inject({ method: 'PUT', url: `/api/iop/users/${name}`, headers: h.auth('admin'), payload: { password: `pw-${name}`, role: 'viewer' } }),
      ),
    );
    expect(replies.map((reply) => reply.statusCode)).toEqual(names.map(() => 200));
    const saved = JSON.parse(await readFile(h.users.file, 'utf8')).users.map((user: { name: string }) => user.name);
    expect(saved).toEqual(expect.arrayContaining(names));
    const listed = (await h.app.inject({ url: '/api/iop/users', headers: h.auth('admin') })).json().map((user: { name: string }) => user.name);
    expect(listed).toEqual(expect.arrayContaining(names));
    await Promise.all(names.map((name) => h.app.inject({ method: 'DELETE', url: `/api/iop/users/${name}`, headers: h.auth('admin') })));
    expect(JSON.parse(await readFile(h.users.file, 'utf8')).users.map((user: { name: string }) => user.name)).toEqual(['viewer', 'operator', 'admin']);
  });

  it('is for admins only', async () => {
    expect((await h.app.inject({ url: '/api/iop/users', headers: h.auth('operator') })).statusCode).toBe(403);
  });
});
