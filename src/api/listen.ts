/**
 * Serving a built API: on TCP, and on the home's Unix socket for the local-mode CLI. Requests that
 * arrive over the socket are trusted as a local admin: whoever may open the socket file (mode 0600,
 * owned by the server's user) could read the home anyway, so its permissions are the access control.
 */
import { createServer } from 'node:http';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { attachServer } from './api.ts';
import { markLocal } from './auth.ts';

export interface ListenOptions {
  /** TCP host; default 127.0.0.1. */
  host?: string;
  /** TCP port (0 picks a free one); omit to serve the socket only. */
  port?: number;
  /** The control socket, e.g. `<home>/conveyor.sock`; omit to serve TCP only. */
  socketPath?: string;
  /** Same meaning as the API option; default 300000. */
  requestTimeoutMs?: number;
}

export interface ApiListener {
  /** `http://host:port` of the TCP listener, or null. */
  url: string | null;
  socketPath: string | null;
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

export async function listenApi(app: FastifyInstance, options: ListenOptions): Promise<ApiListener> {
  await app.ready();
  let url: string | null = null;
  if (options.port !== undefined) {
    const host = options.host ?? '127.0.0.1';
    await app.listen({ host, port: options.port });
    const address = app.server.address() as AddressInfo;
    url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }
  let socketPath: string | null = null;
  if (options.socketPath !== undefined) {
    socketPath = options.socketPath;
    await clearStaleSocket(socketPath);
    const server = createServer({ requestTimeout: options.requestTimeoutMs ?? 300_000 }, (request, response) => {
      markLocal(request);
      app.routing(request, response);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath as string, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
    attachServer(app, server);
    server.on('close', () => void unlink(socketPath as string).catch(() => undefined));
  }
  return { url, socketPath, close: () => app.close() };
}
