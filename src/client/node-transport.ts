/**
 * The Node transport of the API client: `node:http`/`node:https` to a base URL (remote mode, HTTP Basic,
 * optional TLS verification) or to a Unix socket (local mode). Failures below HTTP become ConveyorErrors
 * naming the target and the reason; the low-level code stays in `details.code` for callers that react
 * to it (the CLI starts a server when the socket is absent).
 */
import http from 'node:http';
import type https from 'node:https';
import { createRequire } from 'node:module';
import { ConveyorError } from '../core/errors.ts';
import { basicAuthorization, type HttpRequest, type HttpResponse, type Transport } from './transport.ts';

export interface NodeTransportOptions {
  /** `http(s)://host:port[/base]`; exclusive with socketPath. */
  baseUrl?: string;
  /** Path of a Unix socket serving the API over plain HTTP. */
  socketPath?: string;
  /** When given (even empty), every request carries HTTP Basic credentials. */
  credentials?: { username: string; password: string };
  /** false turns TLS certificate verification off (CLI_VERIFY_SSL=false). */
  verifySsl?: boolean;
  /** Added to the "cannot reach" message: what the user should check. */
  unreachableHint?: string;
}

// Codes Node reports when a certificate cannot be trusted.
const certificateCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const uploadChunkBytes = 64 * 1024;

export function createNodeTransport(options: NodeTransportOptions): Transport {
  if (!options.baseUrl === !options.socketPath) throw new Error('createNodeTransport needs exactly one of baseUrl and socketPath');
  const base = options.baseUrl ? new URL(options.baseUrl) : undefined;
  const secure = base?.protocol === 'https:';
  if (base && base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new ConveyorError('ERR_CONFIG', `The server URL ${options.baseUrl} must start with http:// or https://`);
  }
  const basePath = base ? base.pathname.replace(/\/+$/, '') : '';
  // node:https (with tls and crypto) costs start-up time; only https URLs load it.
  const tls = secure ? (createRequire(import.meta.url)('node:https') as typeof https) : undefined;
  const agent = tls ? new tls.Agent({ keepAlive: true, rejectUnauthorized: options.verifySsl !== false }) : new http.Agent({ keepAlive: true });
  const target = base ? base.origin + basePath : `unix:${options.socketPath}`;
  const authorization = options.credentials ? basicAuthorization(options.credentials.username, options.credentials.password) : undefined;

  function request(req: HttpRequest): Promise<HttpResponse> {
    const payload = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (authorization) headers.authorization = authorization;
    const requestOptions: http.RequestOptions = {
      method: req.method,
      path: basePath + req.path,
      headers,
      agent,
      ...(base ? { host: base.hostname, port: base.port || (secure ? 443 : 80) } : { socketPath: options.socketPath }),
    };
    return new Promise<HttpResponse>((resolve, reject) => {
      const outgoing = (tls ?? http).request(requestOptions, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', (error) => reject(networkFailure(error, target, options.unreachableHint)));
        incoming.on('end', () => {
          const responseHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({
            status: incoming.statusCode ?? 0,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      const timeoutMs = req.timeoutMs ?? 30_000;
      outgoing.setTimeout(timeoutMs, () =>
        outgoing.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ERR_CLIENT_TIMEOUT' })),
      );
      outgoing.on('error', (error) => reject(networkFailure(error, target, options.unreachableHint)));
      if (payload) void writeBody(outgoing, payload, req.onUploadProgress);
      else outgoing.end();
    });
  }

  return {
    target,
    user: options.credentials?.username ?? '',
    request,
    close: () => agent.destroy(),
  };
}

/** Writes in chunks, honouring back-pressure, so a progress bar can follow a large upload. */
async function writeBody(outgoing: http.ClientRequest, payload: Buffer, onProgress?: (sent: number, total: number) => void): Promise<void> {
  if (!onProgress) {
    outgoing.end(payload);
    return;
  }
  for (let offset = 0; offset < payload.length; offset += uploadChunkBytes) {
    const chunk = payload.subarray(offset, offset + uploadChunkBytes);
    const flushed = outgoing.write(chunk);
    onProgress(Math.min(offset + chunk.length, payload.length), payload.length);
    if (!flushed) {
      const ended = await new Promise<boolean>((resolve) => {
        outgoing.once('drain', () => resolve(false));
        outgoing.once('close', () => resolve(true));
      });
      if (ended) return;
    }
  }
  outgoing.end();
}

export function networkFailure(error: Error & { code?: string }, target: string, hint?: string): ConveyorError {
  const code = error.code ?? '';
  if (certificateCodes.has(code)) {
    return new ConveyorError('ERR_TLS', `The TLS certificate of ${target} is not trusted: ${error.message}`, {
      hint: 'if you trust this server, set CLI_VERIFY_SSL=false (or verify_ssl: False in REMOTE_SETTINGS) to skip the check',
      details: { code },
      cause: error,
    });
  }
  if (code.startsWith('ERR_SSL') || code === 'EPROTO') {
    return new ConveyorError('ERR_TLS', `The TLS handshake with ${target} failed: ${error.message}`, {
      hint: 'check that the URL uses https:// only for a server that speaks TLS; CLI_VERIFY_SSL=false skips certificate checks',
      details: { code },
      cause: error,
    });
  }
  const why = reasons[code] ?? error.message;
  return new ConveyorError('ERR_UNREACHABLE', `Cannot reach the server at ${target}: ${why}`, { hint, details: { code }, cause: error });
}

const reasons: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ENOENT: 'the socket file does not exist',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name could not be resolved (DNS failure)',
  ETIMEDOUT: 'no answer in time',
  ECONNRESET: 'the connection was closed by the server',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EACCES: 'permission denied',
};
