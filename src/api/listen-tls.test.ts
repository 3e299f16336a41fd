import { copyFileSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { selfSignedPair, type CertificatePair } from '../../test/support/tls-certificates.ts';
import { listenApi, type ApiListener } from './listen.ts';

let h: Harness;
let listener: ApiListener | null = null;
let first: CertificatePair;
let second: CertificatePair;
/** The files the listener is configured with; tests overwrite them to simulate a renewal. */
let live: CertificatePair;

beforeEach(async () => {
  h = await createHarness();
  first = selfSignedPair(h.home, 'first');
  second = selfSignedPair(h.home, 'second');
  live = { cert: join(h.home, 'live.crt'), key: join(h.home, 'live.key') };
  copyFileSync(first.cert, live.cert);
  copyFileSync(first.key, live.key);
});
afterEach(async () => {
  await listener?.close();
  listener = null;
  await h.close();
});

interface SecureReply {
  status: number;
  body: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
  reusedSocket: boolean;
}

function fingerprintOf(path: string): string {
  return new X509Certificate(readFileSync(path)).fingerprint256;
}

function secureGet(url: string, path: string, options: { agent?: Agent; headers?: Record<string, string> } = {}): Promise<SecureReply> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: target.hostname, port: target.port, path: target.pathname, headers: options.headers ?? {}, agent: options.agent, rejectUnauthorized: false },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? '';
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, fingerprint, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Everything a server sends back to a plain-text HTTP request, until it closes the connection. */
function plainBytes(url: string): Promise<Buffer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on('connect', () =>
      socket.write(`GET /api/iop/version HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: ${h.auth('viewer').authorization}\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

describe('listenApi with a certificate and key', () => {
  it('serves HTTPS only on TCP; a plain-HTTP request gets no data; the socket stays plain', async () => {
    const socketPath = join(h.home, 'conveyor.sock');
    listener = await listenApi(h.app, { port: 0, socketPath, tls: live });
    expect(listener.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const url = listener.url ?? '';

    const reply = await secureGet(url, '/api/iop/version', { headers: h.auth('viewer') });
    expect(reply.status).toBe(200);
    expect(reply.fingerprint).toBe(fingerprintOf(first.cert));
    expect((await secureGet(url, '/api/iop/version')).status).toBe(401);
    // The portal's own pages send Origin https://host:port: same origin over TLS, not a cross-origin refusal.
    expect((await secureGet(url, '/api/iop/version', { headers: { ...h.auth('viewer'), origin: url } })).status).toBe(200);

    const answered = await plainBytes(url);
    expect(answered.toString('latin1')).not.toContain('HTTP/1.1');
    expect(answered.length).toBe(0);

    const local = await new Promise<number>((resolve, reject) => {
      httpRequest({ socketPath, path: '/api/iop/version' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(local).toBe(200);
  });

  it('reloads a renewed pair for new connections without dropping an open one', async () => {
    listener = await listenApi(h.app, { port: 0, tls: live });
    const url = listener.url ?? '';
    const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    try {
      const before = await secureGet(url, '/api/iop/version', { agent, headers: h.auth('viewer') });
      expect(before.fingerprint).toBe(fingerprintOf(first.cert));

      copyFileSync(second.cert, live.cert);
      copyFileSync(second.key, live.key);
      const pair = await listener.reloadTls();
      expect(pair?.subject).toBe('CN=localhost');

      const open = await secureGet(url, '/api/iop/version', { agent, headers: h.auth('viewer') });
      // The connection opened before the reload still answers (a reused socket reports no peer certificate again).
      expect(open).toMatchObject({ status: 200, reusedSocket: true });
      const fresh = await secureGet(url, '/api/iop/version', { headers: h.auth('viewer') });
      expect(fresh).toMatchObject({ status: 200, reusedSocket: false, fingerprint: fingerprintOf(second.cert) });
    } finally {
      agent.destroy();
    }
  });

  it("refuses a key that is not the certificate's, and a reload that fails keeps the pair in use", async () => {
    await expect(listenApi(h.app, { port: 0, tls: { cert: first.cert, key: second.key } })).rejects.toThrow(
      `The TLS key ${second.key} does not belong to the certificate ${first.cert}`,
    );
    await expect(listenApi(h.app, { port: 0, tls: { cert: join(h.home, 'missing.crt'), key: first.key } })).rejects.toThrow(
      `Cannot read the TLS certificate ${join(h.home, 'missing.crt')}: no such file`,
    );

    listener = await listenApi(h.app, { port: 0, tls: live });
    copyFileSync(second.key, live.key);
    await expect(listener.reloadTls()).rejects.toThrow(/does not belong to the certificate/);
    const reply = await secureGet(listener.url ?? '', '/api/iop/version', { headers: h.auth('viewer') });
    expect(reply).toMatchObject({ status: 200, fingerprint: fingerprintOf(first.cert) });
  });
});
