/**
 * Local mode's transport: the HTTP API over `<home>/conveyor.sock`. When no server answers there, one
 * is started for the home in the background (its output in `<home>/server.log`) on a free TCP port
 * (recorded in `<home>/server.url`), the CLI says so on stderr and waits, bounded, for the socket. A
 * refused or absent socket means no request was sent, so the request is then simply sent again.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ConveyorError, isConveyorError } from '../core/errors.ts';
import { readServerAddress, type ServerAddress } from '../core/server-address.ts';
import { createNodeTransport } from '../client/node-transport.ts';
import type { HttpRequest, HttpResponse, Transport } from '../client/transport.ts';
import { repositoryRoot } from './package-info.ts';

export const socketName = 'conveyor.sock';
const startTimeoutMs = 30_000;
const probeIntervalMs = 100;

export interface LocalTransportOptions {
  home: string;
  /** false: fail instead of starting a server (help uses it: it must not start one). */
  autoStart: boolean;
  /** Where the "starting a server" notice goes. */
  notify: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export function socketPath(home: string): string {
  return join(home, socketName);
}

export function createLocalTransport(options: LocalTransportOptions): Transport {
  const path = socketPath(options.home);
  const inner = createNodeTransport({
    socketPath: path,
    unreachableHint: `no Conveyor server runs for the home ${options.home}; start one with: conveyor serve --home ${options.home}`,
  });
  let started: Promise<void> | undefined;

  async function request(req: HttpRequest): Promise<HttpResponse> {
    try {
      return await inner.request(req);
    } catch (error) {
      if (!options.autoStart || !isAbsentServer(error)) throw error;
      started ??= startServer(options);
      await started;
      return inner.request(req);
    }
  }

  return { target: inner.target, user: '', request, close: () => inner.close() };
}

function isAbsentServer(error: unknown): boolean {
  if (!isConveyorError(error, 'ERR_UNREACHABLE')) return false;
  const code = (error.details as { code?: string } | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

async function startServer(options: LocalTransportOptions): Promise<void> {
  const { home } = options;
  // Private like the server makes it: the home 0700, its log 0600 (the log names the home's contents).
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const logPath = join(home, 'server.log');
  options.notify(`No Conveyor server runs for ${home}: starting one in the background (log: ${logPath})`);
  const logFd = openSync(logPath, 'a', 0o600);
  // `--port 0`: a free TCP port, recorded in <home>/server.url; never a fixed one, so servers of
  // several homes (or anything else holding 52773) never clash. The cli itself uses the socket.
  const serveArgs = ['serve', '--home', home, '--port', '0'];
  // The `conveyor` command of this package: its compiled server (in a checkout, rebuilt first when stale).
  const child = spawn(process.execPath, [join(repositoryRoot, 'bin', 'conveyor.js'), ...serveArgs], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    cwd: home,
    env: options.env,
  });
  closeSync(logFd);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.on('exit', (code, signal) => (exit = { code, signal }));
  child.on('error', (error) => (spawnError = error));
  child.unref();

  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (await socketAnswers(socketPath(home))) {
      const address = await recordedAddress(home, deadline);
      const where = address ? ` (pid ${address.pid}): portal at ${address.url}/portal/` : '';
      options.notify(`Started it${where}; stop it with: conveyor stop --home ${home}`);
      return;
    }
    if (spawnError) throw new ConveyorError('ERR_UNREACHABLE', `Could not start a Conveyor server for ${home}: ${spawnError.message}`);
    // Another CLI may have started a server at the same moment (ours then stops on the home lock).
    if (exit && !(await socketAnswers(socketPath(home)))) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new ConveyorError('ERR_UNREACHABLE', `The Conveyor server for ${home} ${how} while starting. ${logTail(logPath)}`, {
        hint: `see ${logPath}`,
      });
    }
    if (Date.now() > deadline) {
      throw new ConveyorError('ERR_UNREACHABLE', `The Conveyor server for ${home} did not open ${socketPath(home)} within ${startTimeoutMs / 1000} s`, {
        hint: `see ${logPath}`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
  }
}

/** The server records its TCP address just after its socket opens: a short, bounded wait for it. */
async function recordedAddress(home: string, deadline: number): Promise<ServerAddress | null> {
  for (;;) {
    const address = readServerAddress(home);
    if (address || Date.now() > deadline) return address;
    await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
  }
}

export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function logTail(logPath: string): string {
  try {
    const lines = readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-5);
    return lines.length > 0 && lines[0] !== '' ? `Last lines of its log:\n${lines.join('\n')}` : '';
  } catch {
    return '';
  }
}
