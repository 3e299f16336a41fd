/**
 * The typed client of Conveyor's HTTP API (spec routes, the class-document API and the few routes
 * beyond the spec the CLI needs). One client, any transport: the CLI's remote and local modes differ
 * only in the transport they hand it. Every failure is a ConveyorError whose message a person can act on.
 */
import { ConveyorError } from '../core/errors.ts';
import type { HttpMethod, HttpResponse, Transport } from './transport.ts';
import type {
  CompileReply,
  DefaultReply,
  ExportedProduction,
  LifecycleReply,
  LogEntryWire,
  MigrateReport,
  MigrateUpload,
  ProductionList,
  SchemaImport,
  StartReply,
  StatusReply,
  TestCall,
  TestReply,
  VersionReply,
} from './wire-types.ts';

export const defaultApiPrefix = '/api/iop';
export const defaultDocsPrefix = '/api/atelier/v1';

export interface ClientOptions {
  namespace: string;
  /** Mount prefix of the spec routes (default `/api/iop`). */
  apiPrefix?: string;
  /** Mount prefix of the class-document API (default `/api/atelier/v1`). */
  docsPrefix?: string;
}

interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  timeoutMs?: number;
  onUploadProgress?: (sent: number, total: number) => void;
}

// Timeouts as the IoP client uses them: plain calls 30 s, compile 120 s; uploads get more room.
const callTimeoutMs = 30_000;
const slowCallTimeoutMs = 120_000;
const uploadTimeoutMs = 600_000;

export class ConveyorClient {
  readonly namespace: string;
  private readonly apiPrefix: string;
  private readonly docsPrefix: string;

  constructor(
    readonly transport: Transport,
    options: ClientOptions,
  ) {
    this.namespace = options.namespace;
    this.apiPrefix = trimSlash(options.apiPrefix ?? defaultApiPrefix);
    this.docsPrefix = trimSlash(options.docsPrefix ?? defaultDocsPrefix);
  }

  version(): Promise<VersionReply> {
    return this.api('GET', '/version');
  }

  status(): Promise<StatusReply> {
    return this.api('GET', '/status');
  }

  start(production?: string): Promise<StartReply> {
    return this.api('POST', '/start', { body: production ? { production } : {}, timeoutMs: slowCallTimeoutMs });
  }

  stop(): Promise<LifecycleReply> {
    return this.api('POST', '/stop', { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  kill(): Promise<LifecycleReply> {
    return this.api('POST', '/kill', { body: {} });
  }

  restart(): Promise<LifecycleReply> {
    return this.api('POST', '/restart', { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  update(): Promise<LifecycleReply> {
    return this.api('POST', '/update', { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  list(): Promise<ProductionList> {
    return this.api('GET', '/list');
  }

  /** The namespace's default production, '' when none is set. */
  async getDefault(timeoutMs?: number): Promise<string> {
    const reply = await this.api<DefaultReply>('GET', '/default', { timeoutMs });
    return typeof reply?.production === 'string' ? reply.production : '';
  }

  async setDefault(production: string): Promise<void> {
    await this.api<DefaultReply>('PUT', '/default', { body: { production } });
  }

  /** The `top` most recent entries, newest first (the server's order). */
  async logTop(top: number): Promise<LogEntryWire[]> {
    return asArray(await this.api<LogEntryWire[]>('GET', '/log', { query: { top } }));
  }

  /** Entries with an id greater than `sinceId`, oldest first: for polling. */
  async logSince(sinceId: number): Promise<LogEntryWire[]> {
    return asArray(await this.api<LogEntryWire[]>('GET', '/log', { query: { since_id: sinceId } }));
  }

  exportProduction(production?: string): Promise<ExportedProduction> {
    return this.api('GET', '/export', { query: { production: production || undefined } });
  }

  test(call: TestCall): Promise<TestReply> {
    return this.api('POST', '/test', { body: call, timeoutMs: slowCallTimeoutMs });
  }

  /** Uploads a package and runs its settings migration (spec `PUT /migrate`). */
  async migrate(upload: MigrateUpload, onUploadProgress?: (sent: number, total: number) => void): Promise<MigrateReport> {
    const reply = await this.api<MigrateReport | undefined>('PUT', '/migrate', { body: upload, timeoutMs: uploadTimeoutMs, onUploadProgress });
    return reply ?? {};
  }

  /**
   * Beyond the spec, local mode only: the server migrates a settings file already on its disk, in place
   * (`PUT /migrate` with `local_path`; a server accepts it only over its Unix socket).
   */
  async migrateLocal(settingsPath: string): Promise<MigrateReport> {
    const reply = await this.api<MigrateReport | undefined>('PUT', '/migrate', { body: { local_path: settingsPath }, timeoutMs: uploadTimeoutMs });
    return reply ?? {};
  }

  /** Stores one class document (Atelier `PUT {docs}/{namespace}/doc/{name}`). */
  async putClassDocument(name: string, lines: string[]): Promise<void> {
    const path = `${this.docsPrefix}/${encodeURIComponent(this.namespace)}/doc/${encodeURIComponent(name)}`;
    await this.call('PUT', path, { query: { ignoreConflict: 1 }, body: { enc: false, content: lines } });
  }

  /** Compiles stored class documents in one call (Atelier `POST {docs}/{namespace}/action/compile`). */
  async compileClassDocuments(names: string[]): Promise<CompileReply> {
    const path = `${this.docsPrefix}/${encodeURIComponent(this.namespace)}/action/compile`;
    const reply = await this.call<CompileReply | undefined>('POST', path, { query: { flags: 'cuk' }, body: names, timeoutMs: slowCallTimeoutMs });
    return reply ?? {};
  }

  /** Beyond the spec: registers a JSON schema for DTL under a package and a name. */
  async importSchema(schema: SchemaImport): Promise<void> {
    await this.api('POST', '/schemas/import', { body: schema });
  }

  private api<T>(method: HttpMethod, route: string, options: CallOptions = {}): Promise<T> {
    const query = { namespace: this.namespace, ...options.query };
    // POST and PUT also carry the namespace in the body: the server reads the body first (spec rule 3).
    const body = isPlainObject(options.body) ? { namespace: this.namespace, ...options.body } : options.body;
    return this.call<T>(method, this.apiPrefix + route, { ...options, query, body });
  }

  private async call<T>(method: HttpMethod, path: string, options: CallOptions): Promise<T> {
    const url = path + queryString(options.query);
    const response = await this.transport.request({
      method,
      path: url,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      timeoutMs: options.timeoutMs ?? callTimeoutMs,
      onUploadProgress: options.onUploadProgress,
    });
    if (response.status < 200 || response.status >= 300) throw httpFailure(method, path, response, this.transport);
    const reply = parseJson(response, method, path, this.transport.target);
    // IoP servers may answer 2xx with {"error": ...}; it is a failure all the same.
    if (isPlainObject(reply) && typeof reply.error === 'string' && reply.error !== '') {
      throw new ConveyorError('ERR_SERVER', reply.error);
    }
    return reply as T;
  }
}

/** Turns a non-2xx reply into an error that says what happened and what to do. */
export function httpFailure(method: string, path: string, response: HttpResponse, transport: Transport): ConveyorError {
  const detail = errorDetail(response);
  const where = transport.target;
  switch (response.status) {
    case 401:
      return new ConveyorError(
        'ERR_AUTH',
        transport.user
          ? `The server at ${where} refused the credentials of user '${transport.user}' (HTTP 401)`
          : `The server at ${where} requires credentials and none were given (HTTP 401)`,
        { hint: 'set CLI_USERNAME and CLI_PASSWORD, or username and password in REMOTE_SETTINGS' },
      );
    case 403:
      return new ConveyorError('ERR_FORBIDDEN', `User '${transport.user}' may not call ${method} ${path} at ${where} (HTTP 403)${detail ? `: ${detail}` : ''}`, {
        hint: 'ask an administrator of the server for a user with the needed role',
      });
    case 404:
      return new ConveyorError('ERR_SERVER', `The server at ${where} has no route ${method} ${path} (HTTP 404)${detail ? `: ${detail}` : ''}`, {
        hint: 'check that the URL is the base address of a Conveyor server and that the server is up to date',
      });
    case 500:
      if (detail) return new ConveyorError('ERR_SERVER', detail);
      break;
    default:
      break;
  }
  const reason = response.statusText ? ` ${response.statusText}` : '';
  return new ConveyorError('ERR_SERVER', `The server at ${where} answered ${method} ${path} with HTTP ${response.status}${reason}${detail ? `: ${detail}` : ''}`);
}

/** The error text of a failed reply: JSON `error`, else `message`, else the raw text. */
function errorDetail(response: HttpResponse): string {
  const text = response.text.trim();
  if (text === '') return '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) {
      if (typeof parsed.error === 'string') return parsed.error;
      if (typeof parsed.message === 'string') return parsed.message;
      if (typeof parsed.summary === 'string' && parsed.summary !== '') return parsed.summary;
    }
  } catch {
    // Not JSON (a proxy's HTML page, for instance): show the beginning of the text.
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function parseJson(response: HttpResponse, method: string, path: string, target: string): unknown {
  if (response.text.trim() === '') return undefined;
  try {
    return JSON.parse(response.text);
  } catch {
    const start = response.text.slice(0, 120).replace(/\s+/g, ' ');
    throw new ConveyorError('ERR_SERVER', `The server at ${target} answered ${method} ${path} with text that is not JSON: ${start}`, {
      hint: 'check that the URL points at a Conveyor server, not at a proxy or another web site',
    });
  }
}

function queryString(query: Record<string, string | number | undefined> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function asArray<T>(value: T[] | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function trimSlash(prefix: string): string {
  const withLead = prefix.startsWith('/') ? prefix : `/${prefix}`;
  return withLead.replace(/\/+$/, '');
}
