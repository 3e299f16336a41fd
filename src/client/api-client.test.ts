/**
 * The client and its Node transport against a real `node:http` server (and a real TLS server with a
 * self-signed certificate made by openssl): what goes on the wire, and what each failure says.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorError } from '../core/errors.ts';
import { ConveyorClient } from './api-client.ts';
import { portalRoutes } from './routes.ts';
import { createNodeTransport } from './node-transport.ts';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

type Reply = { status: number; body: string; reason?: string };

let seen: Seen[] = [];
let reply: (request: Seen) => Reply = () => ({ status: 200, body: '{}' });
const folder = mkdtempSync(join(tmpdir(), 'cli-client-'));

function handler(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const entry: Seen = {
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    };
    seen.push(entry);
    if (entry.url.startsWith('/hang')) return;
    const answer = reply(entry);
    response.statusCode = answer.status;
    if (answer.reason) response.statusMessage = answer.reason;
    response.setHeader('content-type', 'application/json');
    response.end(answer.body);
  });
}

function listen(server: Server, target: number | string): Promise<void> {
  return new Promise((resolve) => server.listen(target, resolve));
}

const server = createServer(handler);
const socketServer = createServer(handler);
let baseUrl = '';
const socket = join(folder, 'api.sock');

beforeAll(async () => {
  await listen(server, 0);
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await listen(socketServer, socket);
});
afterAll(() => {
  server.close();
  socketServer.close();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
  reply = () => ({ status: 200, body: '{}' });
});

function client(options: { user?: string; password?: string; namespace?: string; url?: string } = {}): ConveyorClient {
  const transport = createNodeTransport({
    baseUrl: options.url ?? baseUrl,
    credentials: { username: options.user ?? '', password: options.password ?? '' },
    unreachableHint: 'check CLI_URL',
  });
  return new ConveyorClient(transport, { namespace: options.namespace ?? 'USER' });
}

async function failure(promise: Promise<unknown>): Promise<ConveyorError> {
  try {
    await promise;
  } catch (error) {
    return error as ConveyorError;
  }
  throw new Error('the call succeeded');
}

describe('ConveyorClient requests', () => {
  it('sends GETs with the namespace in the query and Basic credentials, even empty ones', async () => {
    reply = () => ({ status: 200, body: '{"production":"P","status":"running"}' });
    expect(await client({ namespace: 'NS' }).status()).toEqual({ production: 'P', status: 'running' });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/iop/status?namespace=NS', authorization: `Basic ${btoa(':')}` });
    await client({ user: 'admin', password: 'sécret' }).list();
    expect(seen[1]!.authorization).toBe(`Basic ${Buffer.from('admin:sécret').toString('base64')}`);
  });

  it('sends POST and PUT bodies as JSON carrying the namespace', async () => {
    reply = () => ({ status: 200, body: '{"status":"started","production":"P"}' });
    await client({ namespace: 'NS' }).start('P');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/iop/start?namespace=NS', contentType: 'application/json' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ namespace: 'NS', production: 'P' });
    await client().setDefault('Q');
    expect(seen[1]!.method).toBe('PUT');
    expect(JSON.parse(seen[1]!.body)).toEqual({ namespace: 'USER', production: 'Q' });
  });

  it('asks the log by top and by since_id', async () => {
    reply = () => ({ status: 200, body: '[{"id":3}]' });
    expect(await client().logTop(7)).toEqual([{ id: 3 }]);
    expect(await client().logSince(3)).toEqual([{ id: 3 }]);
    expect(seen.map((s) => s.url)).toEqual(['/api/iop/log?namespace=USER&top=7', '/api/iop/log?namespace=USER&since_id=3']);
  });

  it('reads the default production, empty when unset', async () => {
    reply = () => ({ status: 200, body: '{"production":""}' });
    expect(await client().getDefault()).toBe('');
  });

  it('exports a named production or the default one', async () => {
    await client().exportProduction('A.B');
    await client().exportProduction();
    expect(seen.map((s) => s.url)).toEqual(['/api/iop/export?namespace=USER&production=A.B', '/api/iop/export?namespace=USER']);
  });

  it('puts class documents and compiles them on the class-document API', async () => {
    reply = (r) => ({ status: 200, body: r.url.includes('compile') ? '{"status":{"errors":[]},"console":["done"]}' : '{}' });
    const c = client({ namespace: 'NS' });
    await c.putClassDocument('Demo.T.cls', ['Class Demo.T', '{', '}']);
    expect(await c.compileClassDocuments(['Demo.T.cls'])).toEqual({ status: { errors: [] }, console: ['done'] });
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/api/atelier/v1/NS/doc/Demo.T.cls?ignoreConflict=1' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ enc: false, content: ['Class Demo.T', '{', '}'] });
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/api/atelier/v1/NS/action/compile?flags=cuk' });
    expect(JSON.parse(seen[1]!.body)).toEqual(['Demo.T.cls']);
  });

  it('migrates by upload (empty reply) and by local path', async () => {
    reply = () => ({ status: 200, body: '' });
    expect(await client().migrate({ package: 'p', body: [{ name: 'settings.py', data: 'x = 1' }] })).toEqual({});
    expect(JSON.parse(seen[0]!.body)).toEqual({ namespace: 'USER', package: 'p', body: [{ name: 'settings.py', data: 'x = 1' }] });
    await client().migrateLocal('/abs/settings.py');
    expect(JSON.parse(seen[1]!.body)).toEqual({ namespace: 'USER', local_path: '/abs/settings.py' });
  });

  it('reports upload progress up to the whole body', async () => {
    reply = () => ({ status: 200, body: '' });
    const progress: [number, number][] = [];
    const big = 'x'.repeat(300_000);
    await client().migrate({ package: 'p', body: [{ name: 'settings.py', data: big }] }, (sent, total) => progress.push([sent, total]));
    expect(progress.length).toBeGreaterThan(1);
    const last = progress[progress.length - 1]!;
    expect(last[0]).toBe(last[1]);
    expect(seen[0]!.body.length).toBe(last[1]);
  });

  it('keeps the path of a base URL', async () => {
    await client({ url: `${baseUrl}/mount/` }).version();
    expect(seen[0]!.url).toBe('/mount/api/iop/version?namespace=USER');
  });

  it('works over a Unix socket without credentials', async () => {
    reply = () => ({ status: 200, body: '{"version":"1","description":"d"}' });
    const local = new ConveyorClient(createNodeTransport({ socketPath: socket }), { namespace: 'USER' });
    expect(await local.version()).toEqual({ version: '1', description: 'd' });
    expect(seen[0]!.authorization).toBeUndefined();
    local.transport.close();
  });
});

describe('ConveyorClient failures', () => {
  it('401 names the user and the URL and says which variables to set', async () => {
    reply = () => ({ status: 401, body: '{"error":"Wrong user name or password"}' });
    const error = await failure(client({ user: 'bob', password: 'x' }).list());
    expect(error.code).toBe('ERR_AUTH');
    expect(error.message).toBe(`The server at ${baseUrl} refused the credentials of user 'bob' (HTTP 401)`);
    expect(error.hint).toContain('CLI_USERNAME and CLI_PASSWORD');
    expect((await failure(client().list())).message).toContain('requires credentials and none were given');
  });

  it('500 gives the server error text as it is', async () => {
    reply = () => ({ status: 500, reason: 'Error', body: '{"error":"No production named X"}' });
    const error = await failure(client().start('X'));
    expect(error).toMatchObject({ code: 'ERR_SERVER', message: 'No production named X' });
  });

  it('403 and 404 say what was refused and where', async () => {
    reply = () => ({ status: 403, body: '{"error":"needs role admin"}' });
    expect((await failure(client({ user: 'v' }).setDefault('P'))).message).toBe(
      `User 'v' may not call PUT /api/iop/default at ${baseUrl} (HTTP 403): needs role admin`,
    );
    reply = () => ({ status: 404, body: '{"error":"No route"}' });
    const notFound = await failure(client().version());
    expect(notFound.message).toBe(`The server at ${baseUrl} has no route GET /api/iop/version (HTTP 404): No route`);
    expect(notFound.hint).toContain('base address of a Conveyor server');
  });

  it('other statuses show status, reason and the raw text', async () => {
    reply = () => ({ status: 502, reason: 'Bad Gateway', body: '<html>proxy</html>' });
    expect((await failure(client().status())).message).toBe(
      `The server at ${baseUrl} answered GET /api/iop/status with HTTP 502 Bad Gateway: <html>proxy</html>`,
    );
  });

  it('a 2xx reply carrying an error is a failure', async () => {
    reply = () => ({ status: 200, body: '{"error":"ERROR #5001: bad"}' });
    expect(await failure(client().status())).toMatchObject({ code: 'ERR_SERVER', message: 'ERROR #5001: bad' });
  });

  it("a 2xx reply of Conveyor's own routes may carry an error field: a failed message is a record, not a failure", async () => {
    const failed = { id: 5, status: 'error', error: 'ENOENT: no such file', body: { classname: 'Ens.Request', encoding: 'empty', data: '' } };
    reply = () => ({ status: 200, body: JSON.stringify(failed) });
    expect(await client().call(portalRoutes.getMessage, { params: { id: 5 } })).toEqual(failed);
  });

  it('a 2xx reply that is not JSON is named as such', async () => {
    reply = () => ({ status: 200, body: '<html>login page</html>' });
    expect((await failure(client().status())).message).toContain('with text that is not JSON: <html>login page</html>');
  });

  it('a refused connection names the URL, the reason and the hint', async () => {
    const closed = createServer();
    await listen(closed, 0);
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const error = await failure(client({ url: `http://127.0.0.1:${port}` }).status());
    expect(error).toMatchObject({
      code: 'ERR_UNREACHABLE',
      message: `Cannot reach the server at http://127.0.0.1:${port}: connection refused (nothing listens there)`,
      hint: 'check CLI_URL',
    });
  });

  it('an unknown host is unreachable too', async () => {
    const error = await failure(client({ url: 'http://no-such-host.invalid' }).status());
    expect(error.code).toBe('ERR_UNREACHABLE');
    expect(error.message).toMatch(/^Cannot reach the server at http:\/\/no-such-host\.invalid: /);
  });

  it('a server that does not answer in time is reported with the delay', async () => {
    const transport = createNodeTransport({ baseUrl });
    const error = await failure(transport.request({ method: 'GET', path: '/hang', timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'ERR_UNREACHABLE', message: `Cannot reach the server at ${baseUrl}: no answer within 0.2 s` });
    transport.close();
  });

  it('a missing socket file is reported with its code, for the auto-start', async () => {
    const error = await failure(createNodeTransport({ socketPath: join(folder, 'none.sock') }).request({ method: 'GET', path: '/' }));
    expect(error).toMatchObject({ code: 'ERR_UNREACHABLE', details: { code: 'ENOENT' } });
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => createNodeTransport({ baseUrl: 'ftp://host' })).toThrow(/must start with http:\/\/ or https:\/\//);
  });
});

describe('TLS', () => {
  let tlsUrl = '';
  const tlsServer = (() => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    return createTlsServer({ key: readFileSync(join(folder, 'key.pem')), cert: readFileSync(join(folder, 'cert.pem')) }, handler);
  })();

  beforeAll(async () => {
    await listen(tlsServer, 0);
    tlsUrl = `https://localhost:${(tlsServer.address() as AddressInfo).port}`;
  });
  afterAll(() => tlsServer.close());

  it('refuses an untrusted certificate and points at CLI_VERIFY_SSL', async () => {
    const transport = createNodeTransport({ baseUrl: tlsUrl, verifySsl: true });
    const error = await failure(new ConveyorClient(transport, { namespace: 'USER' }).status());
    expect(error.code).toBe('ERR_TLS');
    expect(error.message).toContain(`The TLS certificate of ${tlsUrl} is not trusted`);
    expect(error.hint).toContain('CLI_VERIFY_SSL=false');
    transport.close();
  });

  it('talks to it when verification is off', async () => {
    reply = () => ({ status: 200, body: '{"production":"P","status":"stopped"}' });
    const transport = createNodeTransport({ baseUrl: tlsUrl, verifySsl: false });
    expect(await new ConveyorClient(transport, { namespace: 'USER' }).status()).toEqual({ production: 'P', status: 'stopped' });
    transport.close();
  });

  it('says when https meets a plain HTTP server', async () => {
    const transport = createNodeTransport({ baseUrl: baseUrl.replace('http:', 'https:') });
    const error = await failure(transport.request({ method: 'GET', path: '/api/iop/status' }));
    expect(error.code).toBe('ERR_TLS');
    expect(error.message).toContain('TLS handshake');
    transport.close();
  });
});
