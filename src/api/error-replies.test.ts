import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ requestTimeoutMs: 150 });
});
afterAll(async () => h.close());

const slowly = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 600));

describe('request timeout', () => {
  it('a spec route that takes too long answers 500 {error}; a beyond-spec route 504', async () => {
    const { status, queues } = h.engine;
    h.engine.status = () => slowly({ production: '', status: 'stopped' as const });
    h.engine.queues = () => slowly([]);
    try {
      const spec = await h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') });
      expect(spec.statusCode).toBe(500);
      expect(spec.json().error).toBe('The server did not finish the request within 150 ms; the operation may still complete, check its status');
      await h.app.inject({ method: 'PUT', url: '/api/iop/default', headers: h.auth('admin'), payload: { production: 'Demo.Production' } });
      const beyond = await h.app.inject({ url: '/api/iop/queues', headers: h.auth('viewer') });
      expect(beyond.statusCode).toBe(504);
    } finally {
      Object.assign(h.engine, { status, queues });
    }
  });
});
