import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { FakeEngine } from '../../test/api/support/fake-engine.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  const fresh = new FakeEngine();
  h.engine.state.clear();
  for (const [name, state] of fresh.state) h.engine.state.set(name, state);
  await h.app.inject({ method: 'POST', url: '/api/iop/start', headers: h.auth('operator'), payload: { production: 'Demo.Production' } });
});

describe('component routes', () => {
  it.each([
    ['start', 'started', 'componentStart'],
    ['stop', 'stopped', 'componentStop'],
    ['restart', 'restarted', 'componentRestart'],
  ])('POST /component/%s answers {status: %s, component}', async (action, status, method) => {
    const r = await h.app.inject({
      method: 'POST',
      url: `/api/iop/component/${action}`,
      headers: h.auth('operator'),
      payload: { component: 'Python.FileOperation' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status, component: 'Python.FileOperation' });
    expect(h.engine.lastCall(method)?.args).toEqual(['Python.FileOperation']);
  });

  it('accepts item as an alias of component', async () => {
    const r = await h.app.inject({ method: 'POST', url: '/api/iop/component/restart', headers: h.auth('operator'), payload: { item: 'Python.Router' } });
    expect(r.json()).toEqual({ status: 'restarted', component: 'Python.Router' });
  });

  it('uses the status of the error code: 400 missing name, 404 unknown item, 409 not running', async () => {
    const missing = await h.app.inject({ method: 'POST', url: '/api/iop/component/start', headers: h.auth('operator') });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('ERROR #INVALID_INPUT: component is required: the config name of the item (item is accepted as an alias)');
    const unknown = await h.app.inject({ method: 'POST', url: '/api/iop/component/start', headers: h.auth('operator'), payload: { component: 'Nope' } });
    expect(unknown.statusCode).toBe(404);
    await h.app.inject({ method: 'POST', url: '/api/iop/stop', headers: h.auth('operator') });
    const stopped = await h.app.inject({
      method: 'POST',
      url: '/api/iop/component/start',
      headers: h.auth('operator'),
      payload: { component: 'Python.FileOperation' },
    });
    expect(stopped.statusCode).toBe(409);
  });
});

describe('GET /queues', () => {
  it('lists each item with its queue depth, in the IoP 4 shape', async () => {
    h.engine.ns('USER').queues = [{ target: 'Python.FileOperation', queued: 4, delivered: 1, oldest: 0 }];
    const r = await h.app.inject({ url: '/api/iop/queues', headers: h.auth('viewer') });
    expect(r.json()).toEqual({
      production: 'Demo.Production',
      items: [
        { item: 'Python.FileOperation', queue_name: 'Python.FileOperation', class_name: 'Python.FileOperation', exists: 1, count: 4 },
        { item: 'Python.Router', queue_name: 'Python.Router', class_name: 'Python.Router', exists: 0, count: 0 },
      ],
      warnings: [],
    });
  });

  it('fails with 404 for an unknown production', async () => {
    const r = await h.app.inject({ url: '/api/iop/queues?production=Nope', headers: h.auth('viewer') });
    expect(r.statusCode).toBe(404);
    expect(r.json().error).toBe('ERROR #PRODUCTION_NOT_FOUND: Production Nope does not exist');
  });
});

describe('GET /connections', () => {
  it('lists items, their kinds, Python identity and targets, with warnings', async () => {
    h.engine.bindings = [
      {
        name: 'Python.FileOperation',
        kind: 'operation',
        runtime: 'python',
        module: 'bo',
        className: 'FileOperation',
        classpaths: ['/a', '/b'],
        settings: [],
        adapterType: null,
        updatedAt: 0,
      },
      {
        name: 'Python.Router',
        kind: 'process',
        runtime: 'python',
        module: 'bp',
        className: 'Router',
        classpaths: ['/a'],
        settings: [],
        adapterType: null,
        updatedAt: 0,
      },
    ];
    h.engine.edges = [
      { from: 'Python.Router', to: 'Python.FileOperation' },
      { from: 'Python.Router', to: 'Ghost' },
    ];
    const r = await h.app.inject({ url: '/api/iop/connections?production=Demo.Production', headers: h.auth('viewer') });
    const body = r.json();
    expect(body.production).toBe('Demo.Production');
    expect(body.items[0]).toEqual({
      item: 'Python.FileOperation',
      class_name: 'Python.FileOperation',
      kind: 'operation',
      iop: 1,
      module: 'bo',
      classname: 'FileOperation',
      classpaths: '/a|/b',
      connections: [],
      warnings: [],
    });
    expect(body.items[1].connections).toEqual(['Python.FileOperation', 'Ghost']);
    expect(body.warnings).toEqual(['Python.Router sends to Ghost, which is not an item of Demo.Production']);
  });
});
