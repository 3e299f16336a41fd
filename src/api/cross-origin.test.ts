import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ corsOrigins: ['https://ops.example.com'] });
});
afterAll(async () => h.close());

describe('cross-origin requests', () => {
  it('refuses a request from a foreign origin before it runs, even with good credentials', async () => {
    const reply = await h.app.inject({
      method: 'POST',
      url: '/api/iop/kill',
      headers: { ...h.auth('admin'), origin: 'https://evil.example', 'content-type': 'text/plain' },
      payload: '{}',
    });
    expect(reply.statusCode).toBe(403);
    expect(reply.json().error).toBe('ERROR #FORBIDDEN: Cross-origin request from https://evil.example refused; allow it with the server option corsOrigins');
    expect(h.engine.lastCall('kill')).toBeUndefined();
  });

  it('lets same-origin pages and clients without Origin through', async () => {
    expect(
      (await h.app.inject({ url: '/api/iop/status', headers: { ...h.auth('viewer'), origin: 'http://localhost:80', host: 'localhost:80' } })).statusCode,
    ).toBe(200);
    expect((await h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') })).statusCode).toBe(200);
  });

  it('answers preflights and adds CORS headers for a configured origin', async () => {
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/iop/start',
      headers: { origin: 'https://ops.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://ops.example.com');
    expect(preflight.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
    const actual = await h.app.inject({ url: '/api/iop/status', headers: { ...h.auth('viewer'), origin: 'https://ops.example.com' } });
    expect(actual.statusCode).toBe(200);
    expect(actual.headers['access-control-allow-credentials']).toBe('true');
  });
});
