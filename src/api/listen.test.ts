import { request } from 'node:http';
import { execFile } from 'node:child_process';
import { lstat, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { listenApi, type ApiListener } from './listen.ts';

let h: Harness;
let listener: ApiListener | null = null;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await listener?.close();
  listener = null;
  await h.close();
});

function get(target: { socketPath?: string; url?: string }, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, target.url ?? 'http://localhost');
    const options = target.socketPath ? { socketPath: target.socketPath, path, headers } : { host: url.hostname, port: url.port, path: url.pathname, headers };
    const req = request(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listenApi', () => {
  it('serves TCP with credentials and the Unix socket as a trusted local admin', async () => {
    const socketPath = join(h.home, 'conveyor.sock');
    listener = await listenApi(h.app, { port: 0, socketPath });
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);

    expect((await get({ url: listener.url ?? '' }, '/api/iop/status')).status).toBe(401);
    expect((await get({ url: listener.url ?? '' }, '/api/iop/status', h.auth('viewer'))).status).toBe(200);

    const local = await get({ socketPath }, '/api/iop/status');
    expect(local.status).toBe(200);
    expect(JSON.parse(local.body)).toEqual({ production: '', status: 'stopped' });
  });

  it('replaces a stale socket file, refuses a live socket or any other file, and removes the socket on close', async () => {
    const socketPath = join(h.home, 'conveyor.sock');
    // A server killed with SIGKILL leaves its socket file behind.
    const script = `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    await new Promise((resolve) => execFile(process.execPath, ['-e', script], resolve));
    expect((await lstat(socketPath)).isSocket()).toBe(true);

    const first = await listenApi(h.app, { socketPath });
    expect((await get({ socketPath }, '/api/iop/version')).status).toBe(200);
    const other = await createHarness();
    try {
      await expect(listenApi(other.app, { socketPath })).rejects.toThrow(`Another server already listens on ${socketPath}`);
    } finally {
      await other.close();
    }
    await first.close();
    await expect(stat(socketPath)).rejects.toMatchObject({ code: 'ENOENT' });

    const plainFile = join(h.home, 'not-a-socket');
    await writeFile(plainFile, 'data');
    await expect(listenApi(h.app, { socketPath: plainFile })).rejects.toThrow(/exists and is not a socket/);
  });
});
