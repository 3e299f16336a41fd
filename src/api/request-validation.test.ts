/** Requests checked against a route's declaration, through a real Fastify app and the error handler. */
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closed, namespaceBody, namespaceQuery, ok, route } from '../core/contract/route.ts';
import { installErrorReplies, installJsonParser } from './error-replies.ts';
import { contractScope, serve } from './route-catalog.ts';

const save = route({
  method: 'POST',
  path: '/save',
  role: 'viewer',
  spec: true,
  tag: 'Test',
  summary: 'Saves',
  querystring: namespaceQuery({ count: Type.Optional(Type.Integer({ minimum: 0 })) }),
  body: namespaceBody({
    name: Type.Optional(Type.String()),
    mode: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('safe')])),
    items: Type.Optional(Type.Array(closed({ id: Type.Integer() }))),
  }),
  replies: ok('Saved', closed({ name: Type.String(), count: Type.Integer() })),
});

const required = route({ ...save, path: '/required', body: namespaceBody({ name: Type.String() }) });

let app: FastifyInstance;
const seen: unknown[] = [];

beforeAll(async () => {
  app = Fastify();
  installJsonParser(app);
  installErrorReplies(app, { bodyLimit: 1 << 20, apiPrefix: '/api' });
  await app.register(
    async (root) => {
      const scope = contractScope(root);
      serve(scope, null, save, async (request) => {
        seen.push(request.body);
        // A field the declaration does not list is dropped from the reply.
        return Object.assign({ name: request.body.name ?? '', count: request.query.count ?? 0 }, { secret: 'x' });
      });
      serve(scope, null, required, async (request) => ({ name: request.body.name, count: 0 }));
    },
    { prefix: '/api' },
  );
  await app.ready();
});
afterAll(async () => app.close());

async function post(url: string, payload?: unknown) {
  const reply = await app.inject({
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }),
  });
  return { status: reply.statusCode, json: reply.json() as Record<string, unknown> };
}

describe('request validation', () => {
  it('accepts the declared shape, converts query numbers and serializes only declared reply fields', async () => {
    expect(await post('/api/save?count=3', { name: 'a', mode: 'safe', items: [{ id: 1 }], namespace: 'USER' })).toEqual({
      status: 200,
      json: { name: 'a', count: 3 },
    });
  });

  it('reads an omitted body as {} when every field is optional, and refuses a JSON null', async () => {
    seen.length = 0;
    expect((await post('/api/save')).status).toBe(200);
    expect(seen).toEqual([{}]);
    const nullBody = await app.inject({ method: 'POST', url: '/api/save', payload: 'null', headers: { 'content-type': 'application/json' } });
    expect(nullBody.statusCode).toBe(400);
    expect(nullBody.json().error).toMatch(/The body of POST \/api\/save is null/);
    const missing = await post('/api/required');
    expect(missing).toMatchObject({ status: 400, json: { code: 'ERR_INVALID_INPUT' } });
    expect(missing.json.error).toMatch(/The body of POST \/api\/required is missing; it must be an object$/);
  });

  it('names every unknown field with the accepted ones, also inside arrays', async () => {
    const reply = await post('/api/save', { nmae: 'a', mdoe: 'fast', items: [{ id: 1, extra: true }] });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(
      /Unknown fields nmae, mdoe in the body of POST \/api\/save \(accepted: name, mode, items, namespace\); Unknown field extra in items\[0\] in the body of POST \/api\/save \(accepted: id\)$/,
    );
  });

  it('names ten unknown fields and counts the rest, so thousands of them make a short reply', async () => {
    const body = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`extra${index}`, index]));
    const reply = await post('/api/save', body);
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/Unknown fields extra0, extra1, .*, extra9 and 990 more in the body of POST \/api\/save/);
    expect(String(reply.json.error).length).toBeLessThan(500);
  });

  it('names wrong types, a value outside a set and a missing field', async () => {
    expect((await post('/api/save', { name: 5 })).json.error).toMatch(/name must be a string, not a number in the body/);
    expect((await post('/api/save', { mode: 'slow' })).json.error).toMatch(/mode must be "fast" or "safe", not "slow" in the body/);
    expect((await post('/api/save', { items: [{ id: 'x' }] })).json.error).toMatch(/items\[0\]\.id must be an integer, not a string in the body/);
    expect((await post('/api/required', {})).json.error).toMatch(/name is required in the body of POST \/api\/required$/);
    expect((await post('/api/save?count=-1', {})).json.error).toMatch(/count must be >= 0 in the query of POST \/api\/save$/);
  });

  it('refuses a value nested thousands deep without overflowing', async () => {
    const deep = `${'['.repeat(10_000)}"x"${']'.repeat(10_000)}`;
    const reply = await app.inject({ method: 'POST', url: '/api/save', payload: `{"mode":${deep}}`, headers: { 'content-type': 'application/json' } });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe('ERR_INVALID_INPUT');
  });

  it('answers 400 even on a spec route (every other spec failure is a 500)', async () => {
    expect((await post('/api/save', { other: 1 })).status).toBe(400);
  });
});
