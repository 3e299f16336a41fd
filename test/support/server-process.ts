/**
 * Starts a real `conveyor serve` process on a home and talks to it over its Unix socket (the local
 * transport, trusted as the home's owner) or over TCP. For end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface ServerProcess {
  home: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  socketPath: string;
  child: ChildProcess;
  output: () => string;
  /** A request over the home's Unix socket. `path` is absolute (e.g. `/api/iop/status`). */
  local(method: string, path: string, body?: unknown): Promise<HttpReply>;
  /** Ends the process with a signal and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function httpCall(
  options: { socketPath?: string; url?: string; headers?: Record<string, string> },
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpReply> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const target = options.url ? new URL(path, options.url) : null;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        method,
        ...(options.socketPath
          ? { socketPath: options.socketPath, path }
          : { hostname: target!.hostname, port: target!.port, path: target!.pathname + target!.search }),
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = undefined;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export async function startServerProcess(home: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', 'serve', '--home', home, '--port', '0', ...extraArgs], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), 60_000);
    const check = () => {
      const match = /API: (https?:\/\/[^/\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  const socketPath = `${home}/conveyor.sock`;
  return {
    home,
    url,
    socketPath,
    child,
    output: () => output,
    local: (method, path, body) => httpCall({ socketPath }, method, path, body),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
