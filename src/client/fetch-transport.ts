/**
 * The browser transport of the API client: `fetch` to the page's own server (or a base URL), with
 * HTTP Basic credentials set by hand. `credentials: 'omit'` keeps a 401 from opening the browser's own
 * login dialog. Free of `node:` imports: the portal bundles it. Failures below HTTP become
 * ConveyorErrors (ERR_UNREACHABLE) naming the target and the reason.
 */
import { ConveyorError } from '../core/errors.ts';
import { basicAuthorization, type HttpRequest, type HttpResponse, type Transport } from './transport.ts';

export interface FetchTransportOptions {
  /** Origin and base path of the server; '' (default) is the page's own origin. */
  baseUrl?: string;
  /** When given, every request carries HTTP Basic credentials. */
  credentials?: { username: string; password: string };
  /** The fetch to use (default the global one). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const authorization = options.credentials ? basicAuthorization(options.credentials.username, options.credentials.password) : undefined;
  const target = base === '' ? "this page's server" : base;

  async function request(req: HttpRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (authorization) headers.authorization = authorization;
    const timeoutMs = req.timeoutMs ?? 30_000;
    let response: Response;
    try {
      response = await send(base + req.path, {
        method: req.method,
        headers,
        credentials: 'omit',
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const why = timedOut ? `no answer within ${timeoutMs / 1000} s` : error instanceof Error ? error.message : String(error);
      throw new ConveyorError('ERR_UNREACHABLE', `Cannot reach the server at ${target}: ${why}`, { cause: error });
    }
    const text = await response.text();
    if (req.body !== undefined) req.onUploadProgress?.(req.body.length, req.body.length);
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name.toLowerCase()] = value;
    });
    return { status: response.status, statusText: response.statusText, headers: responseHeaders, text };
  }

  return { target, user: options.credentials?.username ?? '', request, close: () => undefined };
}
