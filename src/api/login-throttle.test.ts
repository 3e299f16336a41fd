import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createHarness, passwords, type Harness } from '../../test/api/support/harness.ts';
import { listenApi } from './listen.ts';
import { defaultLoginThrottleLimits, LoginThrottle } from './login-throttle.ts';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe('LoginThrottle', () => {
  it('lets a name fail the allowed number of times, then makes it wait, doubling up to the cap', () => {
    const time = clock();
    const throttle = new LoginThrottle({ failuresPerUser: 3, failuresPerAddress: 100, lockoutMs: 10_000, lockoutMaxMs: 35_000 }, time.now);
    for (let failure = 1; failure < 3; failure++) {
      throttle.failed('alice', '10.0.0.1');
      expect(throttle.refusal('alice', '10.0.0.1')).toBeNull();
    }
    throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.2')).toEqual({ retryAfterSeconds: 10, subject: "user 'alice'" });
    time.advance(10_000);
    expect(throttle.refusal('alice', '10.0.0.1')).toBeNull();
    throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')?.retryAfterSeconds).toBe(20);
    time.advance(20_000);
    throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')?.retryAfterSeconds).toBe(35);
    expect(throttle.refusal('bob', '10.0.0.1')).toBeNull();
  });

  it('counts an address over all names, and a success clears the name and the address', () => {
    const time = clock();
    const throttle = new LoginThrottle({ failuresPerUser: 100, failuresPerAddress: 3, lockoutMs: 5_000 }, time.now);
    for (const name of ['a', 'b', 'c']) throttle.failed(name, '10.0.0.9');
    expect(throttle.refusal('d', '10.0.0.9')).toEqual({ retryAfterSeconds: 5, subject: 'address 10.0.0.9' });
    expect(throttle.refusal('d', '10.0.0.8')).toBeNull();
    throttle.succeeded('d', '10.0.0.9');
    expect(throttle.refusal('d', '10.0.0.9')).toBeNull();
    throttle.failed('a', '10.0.0.9');
    expect(throttle.refusal('a', '10.0.0.9')).toBeNull();
  });

  it('forgets a quiet name and stays bounded under a flood of made-up names', () => {
    const time = clock();
    const throttle = new LoginThrottle({ failuresPerUser: 2, lockoutMs: 1_000, lockoutMaxMs: 1_000 }, time.now);
    throttle.failed('quiet', '10.0.0.1');
    time.advance(2_001);
    throttle.failed('quiet', '10.0.0.2');
    expect(throttle.refusal('quiet', '10.0.0.3')).toBeNull();
    for (let index = 0; index < 12_000; index++) throttle.failed(`made-up-${index}`, `10.1.${index >> 8}.${index & 255}`);
    expect(throttle.size).toBeLessThanOrEqual(10_000);
  });

  it('has documented defaults', () => {
    expect(defaultLoginThrottleLimits).toEqual({ failuresPerUser: 5, failuresPerAddress: 20, lockoutMs: 30_000, lockoutMaxMs: 900_000 });
  });
});

describe('throttled logins over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ loginThrottle: { failuresPerUser: 3, failuresPerAddress: 6, lockoutMs: 60_000 } });
  });
  afterAll(async () => h.close());

  const attempt = (name: string, password: string, remoteAddress: string) =>
    h.app.inject({ url: '/api/iop/status', remoteAddress, headers: { authorization: basic(name, password) } });

  it('answers 429 with Retry-After after repeated failures, even to the right password', async () => {
    for (let failure = 0; failure < 3; failure++) expect((await attempt('operator', 'wrong', '10.2.0.1')).statusCode).toBe(401);
    const refused = await attempt('operator', passwords.operator, '10.2.0.1');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual({
      error: "ERROR #AUTH_THROTTLED: Too many failed logins for user 'operator': try again in 60 s",
      code: 'ERR_AUTH_THROTTLED',
    });
    // The name is throttled from every address; other names from this address are not (yet).
    expect((await attempt('operator', passwords.operator, '10.2.0.2')).statusCode).toBe(429);
    expect((await attempt('viewer', passwords.viewer, '10.2.0.1')).statusCode).toBe(200);
  });

  it('treats an unknown name exactly like a known one', async () => {
    const known = [];
    const unknown = [];
    for (let failure = 0; failure < 4; failure++) {
      known.push(await attempt('admin', 'wrong', '10.3.0.1'));
      unknown.push(await attempt('no-such-user', 'wrong', '10.3.0.2'));
    }
    const shape = (reply: Awaited<ReturnType<typeof attempt>>) => [reply.statusCode, reply.headers['retry-after'], reply.json().code];
    expect(unknown.map(shape)).toEqual(known.map(shape));
    expect(known.map((reply) => reply.statusCode)).toEqual([401, 401, 401, 429]);
  });

  it('a success resets the counts of the name and the address', async () => {
    for (let failure = 0; failure < 2; failure++) expect((await attempt('viewer', 'wrong', '10.4.0.1')).statusCode).toBe(401);
    expect((await attempt('viewer', passwords.viewer, '10.4.0.1')).statusCode).toBe(200);
    for (let failure = 0; failure < 2; failure++) expect((await attempt('viewer', 'wrong', '10.4.0.1')).statusCode).toBe(401);
    expect((await attempt('viewer', passwords.viewer, '10.4.0.1')).statusCode).toBe(200);
  });

  it('throttles an address that tries many names', async () => {
    for (let index = 0; index < 6; index++) expect((await attempt(`guess-${index}`, 'wrong', '10.5.0.1')).statusCode).toBe(401);
    const refused = await attempt('someone-else', 'wrong', '10.5.0.1');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('ERROR #AUTH_THROTTLED: Too many failed logins for address 10.5.0.1: try again in 60 s');
  });

  it('does not count requests without a user name (what the IoP client sends when none is set)', async () => {
    const empty = await Promise.all(
      Array.from({ length: 8 }, () => h.app.inject({ url: '/api/iop/status', remoteAddress: '10.8.0.1', headers: { authorization: 'Basic Og==' } })),
    );
    expect(empty.map((reply) => reply.statusCode)).toEqual(Array.from({ length: 8 }, () => 401));
    expect((await attempt('viewer', passwords.viewer, '10.8.0.1')).statusCode).toBe(200);
  });

  it('a burst of parallel guesses gets no more password checks than allowed', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, () => attempt('burst', 'wrong', '10.6.0.1')));
    const statuses = replies.map((reply) => reply.statusCode);
    // At most the allowed failures plus the checks already running when the limit was reached.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(3 + 2);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(12 - 5);
  });

  it('never throttles the local socket, which has no password', async () => {
    for (let failure = 0; failure < 3; failure++) await attempt('admin', 'wrong', '10.7.0.1');
    expect((await attempt('admin', passwords.admin, '10.7.0.1')).statusCode).toBe(429);
    const socketPath = join(h.home, 'conveyor.sock');
    const listener = await listenApi(h.app, { socketPath });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        request({ socketPath, path: '/api/iop/status' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
      expect(status).toBe(200);
    } finally {
      await listener.close();
    }
  });
});
