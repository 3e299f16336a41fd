/**
 * The portal's HTTP client: fetch with HTTP Basic credentials, the namespace on every call, and
 * failures turned into ApiError with the server's own `{error}` text, so pages can show it where the
 * action happened.
 */

export const apiPrefix = '/api/iop';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, message: string, code = '', details: unknown = undefined) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export interface Credentials {
  user: string;
  password: string;
}

type Query = Record<string, string | number | boolean | undefined | null>;

function authorization({ user, password }: Credentials): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

export function queryText(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class Api {
  constructor(
    readonly credentials: Credentials,
    readonly namespace: string,
  ) {}

  withNamespace(namespace: string): Api {
    return new Api(this.credentials, namespace);
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.call<T>('GET', path, query);
  }

  post<T>(path: string, body: Record<string, unknown> = {}): Promise<T> {
    return this.call<T>('POST', path, {}, body);
  }

  put<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.call<T>('PUT', path, {}, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  async call<T>(method: string, path: string, query: Query = {}, body?: Record<string, unknown>): Promise<T> {
    const url = `${apiPrefix}${path}${queryText({ namespace: this.namespace, ...query })}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        // The Authorization header is set by hand; 'omit' keeps a 401 from opening the browser's own login dialog.
        credentials: 'omit',
        headers: { authorization: authorization(this.credentials), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify({ namespace: this.namespace, ...body }) } : {}),
      });
    } catch (error) {
      throw new ApiError(0, `The server cannot be reached: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError(response.status, `The server answered ${method} ${path} with text that is not JSON (HTTP ${response.status})`);
      }
    }
    if (!response.ok) {
      const reply = (parsed ?? {}) as { error?: string; code?: string; details?: unknown };
      throw new ApiError(response.status, reply.error || `HTTP ${response.status} ${response.statusText}`, reply.code ?? '', reply.details);
    }
    return parsed as T;
  }
}

/** The message text of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
