import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { FakeEngine } from '../../test/api/support/fake-engine.ts';

let h: Harness;
const prefix = '/api/iop';

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  // A fresh engine state per test, same app: swap the namespaces' state in place.
  const fresh = new FakeEngine();
  h.engine.state.clear();
  for (const [name, state] of fresh.state) h.engine.state.set(name, state);
  h.engine.calls.length = 0;
  h.engine.testAnswer = () => ({ classname: 'msg.Reply', body: '{"ok":true}' });
});

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, role: 'viewer' | 'operator' | 'admin' = 'admin') {
  const response = await h.app.inject({
    method,
    url: `${prefix}${url}`,
    headers: h.auth(role),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: response.statusCode, type: response.headers['content-type'], json: () => response.json(), text: response.body };
}

describe('spec routes', () => {
  it('GET /version answers the configured version', async () => {
    const r = await call('GET', '/version');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.json()).toEqual({ version: '1.0.0', description: 'Conveyor production management API' });
  });

  it('GET /status answers production and status', async () => {
    expect((await call('GET', '/status')).json()).toEqual({ production: '', status: 'stopped' });
    await call('POST', '/start', { production: 'Demo.Production' });
    expect((await call('GET', '/status')).json()).toEqual({ production: 'Demo.Production', status: 'running' });
  });

  it('POST /start starts the named production, else the default one', async () => {
    const started = await call('POST', '/start', { production: 'Demo.Production' });
    expect(started.json()).toEqual({ status: 'started', production: 'Demo.Production' });
    await call('POST', '/stop');
    const again = await call('POST', '/start');
    expect(again.json()).toEqual({ status: 'started', production: 'Demo.Production' });
  });

  it('POST /start without a production and without a default is a 500 with the reason', async () => {
    const r = await call('POST', '/start', {});
    expect(r.status).toBe(500);
    expect(r.json().error).toMatch(/no default/i);
  });

  it.each([
    ['/stop', 'stopped'],
    ['/kill', 'killed'],
    ['/restart', 'restarted'],
    ['/update', 'updated'],
  ])('POST %s answers {status: %s} with an omitted, empty or {} body', async (url, status) => {
    for (const variant of ['omitted', 'empty', '{}'] as const) {
      await call('POST', '/start', { production: 'Demo.Production' }).then(() => undefined);
      const headers = { ...h.auth('operator'), ...(variant === 'omitted' ? {} : { 'content-type': 'application/json' }) };
      const payload = variant === 'omitted' ? undefined : variant === 'empty' ? '' : '{}';
      const response = await h.app.inject({ method: 'POST', url: `${prefix}${url}`, headers, ...(payload === undefined ? {} : { payload }) });
      expect(response.statusCode, `${url} with ${variant} body`).toBe(200);
      expect(response.json()).toEqual({ status });
    }
  });

  it('POST /stop of a stopped production is a 500 {error}', async () => {
    const r = await call('POST', '/stop');
    expect(r.status).toBe(500);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.json()).toEqual({ error: 'ERROR #PRODUCTION_NOT_RUNNING: No production is running in the namespace', code: 'ERR_PRODUCTION_NOT_RUNNING' });
  });

  it('GET /list answers records with Status, times and a boolean AutoStart', async () => {
    await call('POST', '/start', { production: 'Demo.Production' });
    const list = (await call('GET', '/list')).json();
    expect(list).toEqual({ 'Demo.Production': { Status: 'Running', LastStartTime: '2026-11-22 09:00:00', LastStopTime: '', AutoStart: false } });
  });

  it('GET and PUT /default read and set the default production', async () => {
    expect((await call('GET', '/default')).json()).toEqual({ production: '' });
    expect((await call('PUT', '/default', { production: 'Demo.Production' })).json()).toEqual({ production: 'Demo.Production' });
    expect((await call('GET', '/default')).json()).toEqual({ production: 'Demo.Production' });
  });

  it('PUT /default needs a production string: missing or of the wrong type is a 400 naming it', async () => {
    const missing = await call('PUT', '/default', {});
    expect(missing.status).toBe(400);
    expect(missing.json().error).toMatch(/production is required in the body of PUT \/api\/iop\/default$/);
    const wrongType = await call('PUT', '/default', { production: 5 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json().error).toMatch(/production must be a string, not a number in the body of PUT \/api\/iop\/default$/);
    const empty = await call('PUT', '/default', { production: '' });
    expect(empty.status).toBe(500);
    expect(empty.json().error).toMatch(/production is required/);
    expect(h.engine.lastCall('setDefault')).toBeUndefined();
  });

  it('GET /log answers the newest top entries newest first, default 10', async () => {
    h.engine.addLog('USER', 25);
    const defaultTop = (await call('GET', '/log')).json();
    expect(defaultTop.map((e: { id: number }) => e.id)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
    const three = (await call('GET', '/log?top=3')).json();
    expect(three.map((e: { id: number }) => e.id)).toEqual([25, 24, 23]);
    expect(three[0]).toEqual({
      id: 25,
      config_name: 'Python.FileOperation',
      job: '123',
      message_id: '25',
      session_id: '7',
      source_class: 'bo.FileOperation',
      source_method: 'on_message',
      text: 'entry 25',
      time_logged: '2026-11-22 10:00:25',
      type: 'Info',
    });
    expect(three[1].message_id).toBe('');
  });

  it('GET /log?since_id answers the later entries ascending, ignoring top', async () => {
    h.engine.addLog('USER', 25);
    const since = (await call('GET', '/log?since_id=20&top=2')).json();
    expect(since.map((e: { id: number }) => e.id)).toEqual([21, 22, 23, 24, 25]);
    expect((await call('GET', '/log?since_id=0')).json()).toHaveLength(25);
  });

  it('GET /log caps top at the configured maximum and refuses a bad top', async () => {
    await call('GET', '/log?top=999999');
    expect(h.engine.lastCall('logTop')?.args).toEqual([1000]);
    const bad = await call('GET', '/log?top=-1');
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/top must be >= 0 in the query of GET \/api\/iop\/log$/);
    const notNumber = await call('GET', '/log?since_id=abc');
    expect(notNumber.status).toBe(400);
    expect(notNumber.json().error).toMatch(/since_id must be an integer, not a string in the query/);
  });

  it('GET /export answers the spec shape with real booleans and integers', async () => {
    const r = await call('GET', '/export?production=Demo.Production');
    expect(r.json()).toEqual({
      name: 'Demo.Production',
      description: 'demo',
      test_enabled: true,
      log_trace_events: false,
      actor_pool_size: 2,
      items: [
        {
          name: 'Python.FileOperation',
          classname: 'Python.FileOperation',
          pool_size: 1,
          enabled: true,
          foreground: false,
          comment: '',
          log_trace_events: false,
          schedule: '',
          settings: [{ target: 'Host', name: 'path', value: '/tmp' }],
        },
        {
          name: 'Python.Router',
          classname: 'Python.Router',
          pool_size: 1,
          enabled: false,
          foreground: false,
          comment: '',
          log_trace_events: false,
          schedule: '',
          settings: [],
        },
      ],
    });
  });

  it('GET /export of an unknown production is a 500 naming it', async () => {
    const r = await call('GET', '/export?production=Nope');
    expect(r.status).toBe(500);
    expect(r.json().error).toMatch(/Production Nope does not exist$/);
  });

  describe('POST /test', () => {
    beforeEach(async () => {
      await call('POST', '/start', { production: 'Demo.Production' });
    });

    it('passes target, classname, an object body and restart (default true) to the engine', async () => {
      const r = await call('POST', '/test', { target: 'Python.FileOperation', classname: 'msg.Request', body: { a: 1 } }, 'operator');
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ classname: 'msg.Reply', body: '{"ok":true}', truncated: false });
      expect(h.engine.lastCall('test')?.args[0]).toEqual({ target: 'Python.FileOperation', classname: 'msg.Request', body: { a: 1 }, restart: true });
    });

    it('accepts a JSON string body, restart false, and no classname (an empty request)', async () => {
      await call('POST', '/test', { target: 'Python.FileOperation', body: '{"b":2}', restart: false });
      expect(h.engine.lastCall('test')?.args[0]).toEqual({ target: 'Python.FileOperation', body: '{"b":2}', restart: false });
      await call('POST', '/test', { target: 'Python.FileOperation' });
      expect(h.engine.lastCall('test')?.args[0]).toEqual({ target: 'Python.FileOperation', body: {}, restart: true });
    });

    it('cuts a response longer than 1,000,000 characters and says so', async () => {
      h.engine.testAnswer = () => ({ classname: 'msg.Big', body: JSON.stringify({ data: 'x'.repeat(1_200_000) }) });
      const reply = (await call('POST', '/test', { target: 'Python.FileOperation' })).json();
      expect(reply.truncated).toBe(true);
      expect(reply.body).toHaveLength(1_000_000);
      expect(reply.body.startsWith('{"data":"xxx')).toBe(true);
    });

    it('answers classname and body empty when the item answers nothing', async () => {
      h.engine.testAnswer = () => ({ classname: '', body: '' });
      expect((await call('POST', '/test', { target: 'Python.FileOperation' })).json()).toEqual({ classname: '', body: '', truncated: false });
    });

    it('refuses a missing target and bad types with 400, an empty target and an unknown item with 500 {error}', async () => {
      const cases: Array<[unknown, number, RegExp]> = [
        [{}, 400, /target is required in the body of POST \/api\/iop\/test$/],
        [{ target: 'Python.FileOperation', restart: 'yes' }, 400, /restart must be a boolean or null, not a string/],
        [{ target: 'Python.FileOperation', body: [1] }, 400, /body must be a string, an object or null, not an array/],
        [{ target: 'Python.FileOperation', classname: 3 }, 400, /classname must be a string or null, not a number/],
        [
          { target: 'Python.FileOperation', tagret: 'x' },
          400,
          /Unknown field tagret in the body of POST \/api\/iop\/test \(accepted: target, classname, body, restart, timeout, namespace\)/,
        ],
        [{ target: '' }, 500, /target is required/],
        [{ target: 'Nope' }, 500, /No item Nope/],
      ];
      for (const [payload, status, message] of cases) {
        const r = await call('POST', '/test', payload);
        expect(r.status, JSON.stringify(payload)).toBe(status);
        expect(r.json().error).toMatch(message);
      }
      expect(h.engine.calls.filter((c) => c.method === 'test').map((c) => (c.args[0] as { target: string }).target)).toEqual(['Nope']);
    });

    it('accepts what the real IoP client sends: a string or an object body, a null body, restart true', async () => {
      for (const body of ['hello', { a: 1 }, null]) {
        const r = await call('POST', '/test?namespace=USER', { target: 'Python.FileOperation', body, restart: true });
        expect(r.status, JSON.stringify(body)).toBe(200);
      }
      expect(h.engine.calls.filter((c) => c.method === 'test').map((c) => (c.args[0] as { body: unknown }).body)).toEqual(['hello', { a: 1 }, {}]);
    });
  });

  it('a test of a stopped production is refused', async () => {
    const r = await call('POST', '/test', { target: 'Python.FileOperation' });
    expect(r.status).toBe(500);
    expect(r.json().error).toMatch(/No production is running/);
  });
});

describe('request validation', () => {
  it('POST /start with a misspelt field is a 400 naming it, and starts nothing', async () => {
    await call('PUT', '/default', { production: 'Demo.Production' });
    const r = await call('POST', '/start', { prodution: 'X' });
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.json()).toEqual({
      error: 'ERROR #INVALID_INPUT: Unknown field prodution in the body of POST /api/iop/start (accepted: production, namespace)',
      code: 'ERR_INVALID_INPUT',
    });
    expect(h.engine.lastCall('start')).toBeUndefined();
    expect((await call('GET', '/status')).json()).toEqual({ production: '', status: 'stopped' });
  });

  it('names every unknown field at once, in the body and in the query', async () => {
    const body = await call('POST', '/stop', { force: true, wait: 1 });
    expect(body.json().error).toMatch(/Unknown fields force, wait in the body of POST \/api\/iop\/stop \(accepted: namespace\)$/);
    const query = await call('GET', '/log?tpo=3');
    expect(query.status).toBe(400);
    expect(query.json().error).toMatch(/Unknown field tpo in the query of GET \/api\/iop\/log \(accepted: namespace, top, since_id\)$/);
    expect(h.engine.lastCall('logTop')).toBeUndefined();
  });

  it('refuses a repeated query parameter', async () => {
    const r = await call('GET', '/status?namespace=USER&namespace=OTHER');
    expect(r.status).toBe(400);
    expect(r.json().error).toMatch(/namespace must be a string, not an array in the query of GET \/api\/iop\/status$/);
  });

  it('converts query numbers but not body values', async () => {
    h.engine.addLog('USER', 5);
    expect((await call('GET', '/log?top=2')).json()).toHaveLength(2);
    const r = await call('POST', '/start', { production: 7 });
    expect(r.status).toBe(400);
    expect(h.engine.lastCall('start')).toBeUndefined();
  });
});

describe('namespace rules', () => {
  it('GET takes the namespace from the query, default USER', async () => {
    await call('GET', '/status?namespace=OTHER');
    expect(h.engine.lastCall('status')?.namespace).toBe('OTHER');
    await call('GET', '/status');
    expect(h.engine.lastCall('status')?.namespace).toBe('USER');
  });

  it('POST takes it from the body, which wins over the query', async () => {
    await call('POST', '/kill', { namespace: 'OTHER' });
    expect(h.engine.lastCall('kill')?.namespace).toBe('OTHER');
    await call('POST', '/kill?namespace=USER', { namespace: 'OTHER' });
    expect(h.engine.lastCall('kill')?.namespace).toBe('OTHER');
    await call('POST', '/kill?namespace=OTHER');
    expect(h.engine.lastCall('kill')?.namespace).toBe('OTHER');
    await call('PUT', '/default?namespace=USER', { namespace: 'OTHER', production: 'Demo.Production' });
    expect(h.engine.lastCall('setDefault')?.namespace).toBe('OTHER');
  });

  it('an unknown namespace is a 500 naming it, on GET and POST', async () => {
    for (const [method, url, payload] of [
      ['GET', '/status?namespace=NOPE', undefined],
      ['POST', '/start', { namespace: 'NOPE' }],
    ] as const) {
      const r = await call(method, url, payload);
      expect(r.status).toBe(500);
      expect(r.json()).toEqual({ error: 'ERROR #NAMESPACE_UNKNOWN: Namespace NOPE does not exist', code: 'ERR_NAMESPACE_UNKNOWN' });
    }
  });

  it('a namespace that is not a string is refused', async () => {
    const r = await call('POST', '/stop', { namespace: 3 });
    expect(r.status).toBe(400);
    expect(r.json().error).toMatch(/namespace must be a string, not a number in the body of POST \/api\/iop\/stop$/);
  });

  it('a body that is JSON but not an object is refused on a spec route', async () => {
    const r = await call('POST', '/stop', [1, 2]);
    expect(r.status).toBe(400);
    expect(r.json().error).toMatch(/The body must be an object, not an array in the body of POST \/api\/iop\/stop$/);
    expect(h.engine.lastCall('stop')).toBeUndefined();
  });
});

describe('the /v1 alias', () => {
  it('answers every spec route under {prefix}/v1 too', async () => {
    for (const url of ['/version', '/status', '/list', '/default', '/log']) {
      const direct = await h.app.inject({ url: `${prefix}${url}`, headers: h.auth('viewer') });
      const alias = await h.app.inject({ url: `${prefix}/v1${url}`, headers: h.auth('viewer') });
      expect(alias.statusCode, url).toBe(200);
      expect(alias.json()).toEqual(direct.json());
    }
    const started = await h.app.inject({ method: 'POST', url: `${prefix}/v1/start`, headers: h.auth('operator'), payload: { production: 'Demo.Production' } });
    expect(started.json()).toEqual({ status: 'started', production: 'Demo.Production' });
  });
});
