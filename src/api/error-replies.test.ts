import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ requestTimeoutMs: 1000 });
});
afterAll(async () => h.close());

const slowly = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 2500));

describe('request timeout', () => {
  it('a spec route that takes too long answers 500 {error}; a beyond-spec route 504', async () => {
    // Sign in first (scrypt counts against the timeout too), and give the namespace a default.
    await h.app.inject({ method: 'PUT', url: '/api/iop/default', headers: h.auth('admin'), payload: { production: 'Demo.Production' } });
    await h.app.inject({ url: '/api/iop/version', headers: h.auth('viewer') });
    const { status, queues } = h.engine;
    h.engine.status = () => slowly({ production: '', status: 'stopped' as const });
    h.engine.queues = () => slowly([]);
    try {
      const [spec, beyond] = await Promise.all([h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') }), h.app.inject({ url: '/api/iop/queues', headers: h.auth('viewer') })]);
      expect(spec.statusCode).toBe(500);
      expect(spec.json().error).toBe('The server did not finish the request within 1000 ms; the operation may still complete, check its status');
      expect(beyond.statusCode).toBe(504);
    } finally {
      Object.assign(h.engine, { status, queues });
    }
  });
});
