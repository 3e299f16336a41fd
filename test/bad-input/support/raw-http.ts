/**
 * A bare HTTP client for hostile requests: the body is sent byte for byte with whatever content type
 * the case chooses (or none), the path is sent exactly as written (already percent-encoded), and a
 * request can come from another loopback address so that refused logins do not throttle the suite's
 * own admin calls. A server that closes the connection while the body is still being written (as it
 * may for a body over the limit) is fine as long as it answered first. Every request gets its own
 * connection, so a connection the server closed after one refusal cannot fail the next request.
 */
import { request as httpRequest } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, percent-encoded as they should travel. */
  path: string;
  headers?: Record<string, string>;
  /** The body bytes; undefined sends no body at all. */
  body?: string | Buffer;
  /** The content type of the body; null sends none. Default application/json when there is a body. */
  contentType?: string | null;
  /** Local address to connect from (127.0.0.0/8 all reach the loopback listener). */
  localAddress?: string;
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Past this, a request that got no answer counts as a hung server (a liveness bound, not a speed check). */
const answerDeadlineMs = 30_000;

/** Bodies past this size wait `largeBodyPauseMs` after the headers (see rawCall). */
const largeBodyBytes = 64 * 1024;
const largeBodyPauseMs = 300;

export function rawCall(baseUrl: string, call: RawRequest): Promise<RawReply> {
  const base = new URL(baseUrl);
  const body = call.body === undefined ? undefined : Buffer.isBuffer(call.body) ? call.body : Buffer.from(call.body, 'utf8');
  const headers: Record<string, string> = { ...call.headers };
  if (body !== undefined) {
    headers['content-length'] = String(body.length);
    const type = call.contentType === undefined ? 'application/json' : call.contentType;
    if (type !== null) headers['content-type'] = type;
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const req = httpRequest(
      {
        method: call.method,
        hostname: base.hostname,
        port: base.port,
        path: call.path,
        headers,
        agent: false,
        ...(call.localAddress ? { localAddress: call.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => finish(() => reject(error)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          finish(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json }));
        });
      },
    );
    const timer = setTimeout(() => {
      finish(() => reject(new Error(`no answer to ${call.method} ${call.path.slice(0, 200)} within ${answerDeadlineMs} ms`)));
      req.destroy();
    }, answerDeadlineMs);
    // A reset after the server has already answered (body over the limit) is not a failure: the
    // response handler settles first. A reset before any answer is.
    req.on('error', (error) => setTimeout(() => finish(() => reject(error)), 200));
    if (body === undefined || body.length <= largeBodyBytes) {
      if (body !== undefined) req.write(body);
      req.end();
      return;
    }
    // A large body goes after a pause: a server that refuses it by its declared length (413) answers
    // from the headers alone, and writing into the socket it then closes would lose that answer to an
    // EPIPE (the race curl's Expect: 100-continue avoids). Refused, the body is never sent.
    let answered = false;
    req.once('response', () => (answered = true));
    req.flushHeaders();
    setTimeout(() => {
      if (!answered) req.write(body);
      req.end();
    }, largeBodyPauseMs);
  });
}

export function basicHeader(name: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}` };
}
