/**
 * Serving a built API: on TCP, and on the home's Unix socket for the local-mode CLI. Requests that
 * arrive over the socket are trusted as a local admin: whoever may open the socket file (mode 0600,
 * owned by the server's user) could read the home anyway, so its permissions are the access control.
 *
 * With a certificate and key the TCP port speaks HTTPS only (everything the app serves: API, class
 * documents, portal, metrics): a client that does not start a TLS handshake is disconnected without a
 * byte of data. The socket stays plain HTTP: it never leaves the machine. `reloadTls` swaps the pair
 * for new connections; open connections keep theirs.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { attachServer } from './api.ts';
import { markLocal } from './auth.ts';
import { loadTlsPair, type TlsFiles, type TlsPair } from './tls-pair.ts';

export interface ListenOptions {
  /** TCP host; default 127.0.0.1. */
  host?: string;
  /** TCP port (0 picks a free one); omit to serve the socket only. */
  port?: number;
  /** The control socket, e.g. `<home>/conveyor.sock`; omit to serve TCP only. */
  socketPath?: string;
  /** Same meaning as the API option; default 300000. */
  requestTimeoutMs?: number;
  /** Certificate and key files: the TCP listener speaks HTTPS only. */
  tls?: TlsFiles;
}

export interface ApiListener {
  /** `http(s)://host:port` of the TCP listener, or null. */
  url: string | null;
  socketPath: string | null;
  /** The pair in use, when TCP speaks HTTPS. */
  tls: TlsPair | null;
  /**
   * Reads the certificate and key files again and uses them for new connections. Throws (keeping the
   * pair in use) when they cannot be used; does nothing without TLS.
   */
  reloadTls(): Promise<TlsPair | null>;
  /** Closes both listeners and the app (the engine is not stopped: that is the caller's). */
  close(): Promise<void>;
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** A socket file left behind by a server that died is removed; a live socket or any other file is refused. */
async function clearStaleSocket(path: string): Promise<void> {
  try {
    const info = await lstat(path);
    if (!info.isSocket()) throw new ConveyorError('ERR_CONFIG', `${path} exists and is not a socket; refusing to replace it`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (await answers(path)) throw new ConveyorError('ERR_HOME_LOCKED', `Another server already listens on ${path}`);
  await unlink(path);
}

function listening(server: Server, where: { host: string; port: number } | string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}

function addressUrl(scheme: 'http' | 'https', address: AddressInfo): string {
  return `${scheme}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

export async function listenApi(app: FastifyInstance, options: ListenOptions): Promise<ApiListener> {
  await app.ready();
  let url: string | null = null;
  let tls: TlsPair | null = null;
  let secureServer: HttpsServer | null = null;
  if (options.port !== undefined && options.tls) {
    tls = await loadTlsPair(options.tls);
    // keepAliveTimeout as Fastify sets it on its own server: clients that reuse connections (the IoP client) see no resets.
    const timeouts = { requestTimeout: options.requestTimeoutMs ?? 300_000, keepAliveTimeout: 72_000 };
    secureServer = createHttpsServer({ cert: tls.cert, key: tls.key, ...timeouts }, (request, response) => {
      app.routing(request, response);
    });
    // Plain HTTP, a port scan, a failed handshake: the connection ends, nothing is answered.
    secureServer.on('tlsClientError', (_error, socket) => socket.destroy());
    await listening(secureServer, { host: options.host ?? '127.0.0.1', port: options.port });
    attachServer(app, secureServer);
    url = addressUrl('https', secureServer.address() as AddressInfo);
  } else if (options.port !== undefined) {
    const host = options.host ?? '127.0.0.1';
    await app.listen({ host, port: options.port });
    url = addressUrl('http', app.server.address() as AddressInfo);
  }
  let socketPath: string | null = null;
  if (options.socketPath !== undefined) {
    socketPath = options.socketPath;
    await clearStaleSocket(socketPath);
    const server = createServer({ requestTimeout: options.requestTimeoutMs ?? 300_000 }, (request, response) => {
      markLocal(request);
      app.routing(request, response);
    });
    await listening(server, socketPath);
    await chmod(socketPath, 0o600);
    attachServer(app, server);
    server.on('close', () => void unlink(socketPath as string).catch(() => undefined));
  }
  const reloadTls = async (): Promise<TlsPair | null> => {
    if (!secureServer || !options.tls) return null;
    const pair = await loadTlsPair(options.tls);
    secureServer.setSecureContext({ cert: pair.cert, key: pair.key });
    tls = pair;
    return pair;
  };
  return {
    url,
    socketPath,
    get tls() {
      return tls;
    },
    reloadTls,
    close: () => app.close(),
  };
}
