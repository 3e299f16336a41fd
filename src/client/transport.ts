/**
 * How the API client reaches a server. The client builds requests; a transport carries them (Node's
 * http/https over TCP or a Unix socket for the CLI, `fetch` in the browser). Transports raise
 * ConveyorError (ERR_UNREACHABLE, ERR_TLS) for failures below HTTP; HTTP statuses are the client's job.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Absolute path on the server with its query string, e.g. `/api/iop/log?top=10`. */
  path: string;
  /** JSON text of the body, when there is one. */
  body?: string;
  timeoutMs?: number;
  /** Called while a large body is sent (bytes sent so far, total bytes). */
  onUploadProgress?: (sent: number, total: number) => void;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
}

export interface Transport {
  /** Where requests go, for error messages: a base URL, or `unix:<socket path>`. */
  readonly target: string;
  /** The user name sent with Basic auth, '' when none (for 401/403 messages). */
  readonly user: string;
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Releases kept-alive connections so the process can end. */
  close(): void;
}

/** `Authorization` header value for HTTP Basic; IoP's client sends it even with empty credentials. */
export function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
