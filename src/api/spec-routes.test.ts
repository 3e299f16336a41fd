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
  const response = await h.app.inject({ method, url: `${prefix}${url}`, headers: h.auth(role), ...(payload === undefined ? {} : { payload: payload as object }) });
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
    expect(r.json()).toEqual({ error: 'No production is running in the namespace', code: 'ERR_PRODUCTION_NOT_RUNNING' });
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

  it('PUT /default needs a production string', async () => {
    const missing = await call('PUT', '/default', {});
    expect(missing.status).toBe(500);
    expect(missing.json().error).toMatch(/production is required/);
    const wrongType = await call('PUT', '/default', { production: 5 });
    expect(wrongType.json().error).toBe('production must be a string, not a number');
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
    expect(bad.status).toBe(500);
    expect(bad.json().error).toBe('top must be a non-negative integer, not "-1"');
    expect((await call('GET', '/log?since_id=abc')).json().error).toMatch(/since_id must be a non-negative integer/);
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
        { name: 'Python.FileOperation', classname: 'Python.FileOperation', pool_size: 1, enabled: true, foreground: false, comment: '', log_trace_events: false, schedule: '', settings: [{ target: 'Host', name: 'path', value: '/tmp' }] },
        { name: 'Python.Router', classname: 'Python.Router', pool_size: 1, enabled: false, foreground: false, comment: '', log_trace_events: false, schedule: '', settings: [] },
      ],
    });
  });

  it('GET /export of an unknown production is a 500 naming it', async () => {
    const r = await call('GET', '/export?production=Nope');
    expect(r.status).toBe(500);
    expect(r.json().error).toBe('Production Nope does not exist');
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

    it('refuses a missing target, bad types and an unknown item with 500 {error}', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^target is required/],
        [{ target: 'Python.FileOperation', restart: 'yes' }, /^restart must be true or false/],
        [{ target: 'Python.FileOperation', body: [1] }, /^body must be a JSON object or a string, not an array/],
        [{ target: 'Python.FileOperation', classname: 3 }, /^classname must be a string/],
        [{ target: 'Nope' }, /^No item Nope/],
      ];
      for (const [payload, message] of cases) {
        const r = await call('POST', '/test', payload);
        expect(r.status, JSON.stringify(payload)).toBe(500);
        expect(r.json().error).toMatch(message);
      }
    });
  });

  it('a test of a stopped production is refused', async () => {
    const r = await call('POST', '/test', { target: 'Python.FileOperation' });
    expect(r.status).toBe(500);
    expect(r.json().error).toMatch(/No production is running/);
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
    for (const [method, url, payload] of [['GET', '/status?namespace=NOPE', undefined], ['POST', '/start', { namespace: 'NOPE' }]] as const) {
      const r = await call(method, url, payload);
      expect(r.status).toBe(500);
      expect(r.json()).toEqual({ error: 'Namespace NOPE does not exist', code: 'ERR_NAMESPACE_UNKNOWN' });
    }
  });

  it('a namespace that is not a string is refused', async () => {
    const r = await call('POST', '/stop', { namespace: 3 });
    expect(r.status).toBe(500);
    expect(r.json().error).toBe('namespace must be a string, not a number');
  });

  it('a body that is JSON but not an object is refused on a spec route', async () => {
    const r = await call('POST', '/stop', [1, 2]);
    expect(r.status).toBe(500);
    expect(r.json().error).toBe('The request body of POST /api/iop/stop must be a JSON object');
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
