import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createHarness, passwords, type Harness } from '../../test/api/support/harness.ts';
import { parseBasic } from './auth.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ bodyLimit: 4096 });
});
afterAll(async () => h.close());

describe('authentication', () => {
  it.each([
    ['no header', undefined, /Authentication required/],
    ['empty credentials (what the IoP client sends without a user)', 'Basic Og==', /Wrong user name or password/],
    ['a wrong password', basic('admin', 'nope'), /Wrong user name or password/],
    ['an unknown user', basic('mallory', passwords.admin), /Wrong user name or password/],
    ['a header that is not Basic', 'Bearer abc', /Wrong user name or password/],
  ])('refuses %s with 401, WWW-Authenticate: Basic and JSON', async (_case, authorization, message) => {
    const response = await h.app.inject({ url: '/api/iop/status', headers: authorization === undefined ? {} : { authorization } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="Conveyor"/);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json().error).toMatch(message);
  });

  it('accepts good credentials, again from the cache, and drops them when the user changes', async () => {
    const headers = { authorization: basic('viewer', passwords.viewer) };
    expect((await h.app.inject({ url: '/api/iop/status', headers })).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/api/iop/status', headers })).statusCode).toBe(200);
    await h.users.set('viewer', 'changed', 'viewer');
    expect((await h.app.inject({ url: '/api/iop/status', headers })).statusCode).toBe(401);
    await h.users.set('viewer', passwords.viewer, 'viewer');
  });

  it('answers every one of many concurrent sign-ins (verifications queue, none is lost)', async () => {
    const attempts = Array.from({ length: 6 }, (_, index) =>
      h.app.inject({ url: '/api/iop/version', headers: { authorization: basic(index % 2 ? 'operator' : 'nobody', index % 2 ? passwords.operator : 'x') } }),
    );
    expect((await Promise.all(attempts)).map((reply) => reply.statusCode)).toEqual([401, 200, 401, 200, 401, 200]);
  });

  it('parses Basic headers, passwords with colons included', () => {
    expect(parseBasic(basic('a', 'b:c'))).toEqual({ name: 'a', password: 'b:c' });
    expect(parseBasic('Basic Og==')).toEqual({ name: '', password: '' });
    expect(parseBasic('Basic bm9jb2xvbg==')).toBeNull();
    expect(parseBasic(undefined)).toBeNull();
  });
});

describe('roles', () => {
  it.each([
    ['viewer', 'POST', '/api/iop/start', 'operator'],
    ['viewer', 'POST', '/api/iop/test', 'operator'],
    ['operator', 'PUT', '/api/iop/migrate', 'admin'],
    ['operator', 'PUT', '/api/iop/default', 'admin'],
    ['operator', 'PUT', '/api/atelier/v1/USER/doc/A.cls', 'admin'],
  ] as const)('a %s may not %s %s: 403 JSON', async (role, method, url, needed) => {
    const response = await h.app.inject({ method, url, headers: h.auth(role), payload: {} });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: `ERROR #FORBIDDEN: User ${role} has the role ${role}; this operation needs the role ${needed}`,
      code: 'ERR_FORBIDDEN',
    });
  });

  it('a viewer may read', async () => {
    for (const url of ['/api/iop/version', '/api/iop/list', '/api/iop/log', '/api/iop/openapi.json', '/metrics']) {
      expect((await h.app.inject({ url, headers: h.auth('viewer') })).statusCode, url).toBe(200);
    }
  });
});

describe('transport errors', () => {
  it('an unknown route is a 404 JSON', async () => {
    const response = await h.app.inject({ url: '/api/iop/nope', headers: h.auth('viewer') });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toEqual('ERROR #ROUTE_NOT_FOUND: No route GET /api/iop/nope: see GET /api/iop/openapi.json for the routes');
  });

  it('a body over the limit is a 413 JSON', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/iop/stop',
      headers: { ...h.auth('admin'), 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toBe('ERROR #BODY_TOO_LARGE: The request body is larger than the limit of 4096 bytes');
  });

  it('a body that is not JSON is a 400 JSON, whatever its content type', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/iop/start',
        headers: { ...h.auth('admin'), 'content-type': type },
        payload: '{"production": ',
      });
      expect(response.statusCode, type).toBe(400);
      expect(response.json().error).toMatch(/^ERROR #BODY_NOT_JSON: The request body is not valid JSON/);
    }
  });

  it('JSON sent without a JSON content type (curl -d) is accepted', async () => {
    const response = await h.app.inject({
      method: 'PUT',
      url: '/api/iop/default',
      headers: { ...h.auth('admin'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: '{"production":"Demo.Production"}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ production: 'Demo.Production' });
  });

  it('an unexpected failure is a 500 JSON without a stack trace, with the status line "500 Error"', async () => {
    const original = h.engine.status.bind(h.engine);
    h.engine.status = async () => {
      throw new TypeError('boom at engine.ts:12');
    };
    try {
      const response = await h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') });
      expect(response.statusCode).toBe(500);
      expect(response.statusMessage).toBe('Error');
      expect(response.json()).toEqual({ error: 'ERROR #INTERNAL: Internal error: boom at engine.ts:12', code: 'ERR_INTERNAL' });
      expect(response.body).not.toMatch(/\n\s+at /);
    } finally {
      h.engine.status = original;
    }
  });
});
