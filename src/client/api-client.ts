/**
 * The typed client of Conveyor's HTTP API (spec routes, the class-document API and the few routes
 * beyond the spec the CLI needs). One client, any transport: the CLI's remote and local modes differ
 * only in the transport they hand it. Every failure is a ConveyorError whose message a person can act on.
 */
import * as documents from '../core/contract/document-routes.ts';
import { importSchema } from '../core/contract/dtl-routes.ts';
import type { BodyOf, ParamsOf, QueryOf, ReplyOf, RouteContract } from '../core/contract/route.ts';
import * as spec from '../core/contract/spec-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import { exportedProduction } from './export-reply.ts';
import type {
  CompileReply,
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
} from './replies.ts';
import type { HttpResponse, Transport } from './transport.ts';

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
  timeoutMs?: number;
  onUploadProgress?: (sent: number, total: number) => void;
}

type WithoutNamespace<T> = T extends object ? Omit<T, 'namespace'> : T;

/** What a call of a declared route carries: its path parameters, query and body, as declared. */
export type RouteInput<C extends RouteContract> = CallOptions & {
  params?: ParamsOf<C>;
  query?: Partial<WithoutNamespace<QueryOf<C>>>;
  body?: WithoutNamespace<BodyOf<C>>;
};

// Timeouts as the IoP client uses them: plain calls 30 s, compile 120 s; uploads get more room.
const callTimeoutMs = 30_000;
const slowCallTimeoutMs = 120_000;
const uploadTimeoutMs = 600_000;

/** The class-document routes live under their own prefix. */
const documentRoutes = new Set<RouteContract>([documents.putDocument, documents.getDocument, documents.compileDocuments]);

function declaresField(schema: unknown, field: string): boolean {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    'properties' in schema &&
    typeof schema.properties === 'object' &&
    schema.properties !== null &&
    field in schema.properties
  );
}

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

  /** The same client on another namespace (the portal's namespace switch). */
  withNamespace(namespace: string): ConveyorClient {
    return new ConveyorClient(this.transport, { namespace, apiPrefix: this.apiPrefix, docsPrefix: this.docsPrefix });
  }

  /**
   * Calls a declared route: the path parameters fill the path, the namespace goes in the query and,
   * on POST and PUT, in the body (the server reads the body first, spec rule 3). The reply is typed
   * by the declaration.
   */
  async call<C extends RouteContract>(route: C, input: RouteInput<C> = {}): Promise<ReplyOf<C>> {
    const prefix = documentRoutes.has(route) ? this.docsPrefix : this.apiPrefix;
    const params: Record<string, unknown> = { ...input.params };
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => encodeURIComponent(String(params[name] ?? '')));
    const query: Record<string, unknown> = { ...(declaresField(route.querystring, 'namespace') ? { namespace: this.namespace } : {}), ...input.query };
    const body: unknown = isPlainObject(input.body) && declaresField(route.body, 'namespace') ? { namespace: this.namespace, ...input.body } : input.body;
    const method = route.method;
    const url = prefix + path + queryString(query);
    const response = await this.transport.request({
      method,
      path: url,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: input.timeoutMs ?? callTimeoutMs,
      onUploadProgress: input.onUploadProgress,
    });
    if (response.status < 200 || response.status >= 300) throw httpFailure(method, prefix + path, response, this.transport);
    const reply = parseJson(response, method, prefix + path, this.transport.target);
    // IoP servers may answer a spec route's 2xx with {"error": ...}; it is a failure all the same. Conveyor's
    // own routes answer failures with their status, and their records may carry an `error` field (a failed message).
    if (route.spec && isPlainObject(reply) && typeof reply.error === 'string' && reply.error !== '') {
      throw new ConveyorError('ERR_SERVER', reply.error);
    }
    // The reply is what the declaration says (a Conveyor server serializes it so); IoP servers answer
    // the spec routes in shapes the tolerant types of replies.ts cover.
    return reply as ReplyOf<C>;
  }

  version(): Promise<VersionReply> {
    return this.call(spec.version);
  }

  status(): Promise<StatusReply> {
    return this.call(spec.status);
  }

  start(production?: string): Promise<StartReply> {
    return this.call(spec.start, { body: production ? { production } : {}, timeoutMs: slowCallTimeoutMs });
  }

  stop(): Promise<LifecycleReply> {
    return this.call(spec.stop, { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  kill(): Promise<LifecycleReply> {
    return this.call(spec.kill, { body: {} });
  }

  restart(): Promise<LifecycleReply> {
    return this.call(spec.restart, { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  update(): Promise<LifecycleReply> {
    return this.call(spec.update, { body: {}, timeoutMs: slowCallTimeoutMs });
  }

  async list(): Promise<ProductionList> {
    return this.call(spec.list);
  }

  /** The namespace's default production, '' when none is set. */
  async getDefault(timeoutMs?: number): Promise<string> {
    const reply: unknown = await this.call(spec.getDefault, { timeoutMs });
    return isPlainObject(reply) && typeof reply.production === 'string' ? reply.production : '';
  }

  async setDefault(production: string): Promise<void> {
    await this.call(spec.setDefault, { body: { production } });
  }

  /** The `top` most recent entries, newest first (the server's order). */
  async logTop(top: number): Promise<LogEntryWire[]> {
    return asArray(await this.call(spec.log, { query: { top } }));
  }

  /** Entries with an id greater than `sinceId`, oldest first: for polling. */
  async logSince(sinceId: number): Promise<LogEntryWire[]> {
    return asArray(await this.call(spec.log, { query: { since_id: sinceId } }));
  }

  /** The definition in the spec's structured form, whichever form the server answered in. */
  async exportProduction(production?: string): Promise<ExportedProduction> {
    return exportedProduction(await this.call(spec.exportProduction, { query: production ? { production } : {} }));
  }

  test(call: TestCall): Promise<TestReply> {
    return this.call(spec.test, { body: call, timeoutMs: slowCallTimeoutMs });
  }

  /** Uploads a package and runs its settings migration (spec `PUT /migrate`). */
  async migrate(upload: MigrateUpload, onUploadProgress?: (sent: number, total: number) => void): Promise<MigrateReport> {
    const reply: unknown = await this.call(spec.migrate, { body: upload, timeoutMs: uploadTimeoutMs, onUploadProgress });
    return migrateReport(reply);
  }

  /**
   * Beyond the spec, local mode only: the server migrates a settings file already on its disk, in place
   * (`PUT /migrate` with `local_path`; a server accepts it only over its Unix socket).
   */
  async migrateLocal(settingsPath: string, strictProductionValidation = false): Promise<MigrateReport> {
    const body = { local_path: settingsPath, ...(strictProductionValidation ? { strict_production_validation: true } : {}) };
    const reply: unknown = await this.call(spec.migrate, { body, timeoutMs: uploadTimeoutMs });
    return migrateReport(reply);
  }

  /** Stores one class document (Atelier `PUT {docs}/{namespace}/doc/{name}`). */
  async putClassDocument(name: string, lines: string[]): Promise<void> {
    await this.call(documents.putDocument, {
      params: { namespace: this.namespace, name },
      query: { ignoreConflict: '1' },
      body: { enc: false, content: lines },
    });
  }

  /** Compiles stored class documents in one call (Atelier `POST {docs}/{namespace}/action/compile`). */
  async compileClassDocuments(names: string[]): Promise<CompileReply> {
    const reply: CompileReply | undefined = await this.call(documents.compileDocuments, {
      params: { namespace: this.namespace },
      query: { flags: 'cuk' },
      body: names,
      timeoutMs: slowCallTimeoutMs,
    });
    return reply ?? {};
  }

  /** Beyond the spec: registers a JSON schema for DTL under a package and a name. */
  async importSchema(schema: SchemaImport): Promise<void> {
    await this.call(importSchema, { body: schema });
  }
}

/** The `POST /test` body as the CLI read it (`-B`): a JSON object or a text; anything else is refused here. */
export function testBody(value: unknown): TestCall['body'] {
  if (value === undefined || value === null || typeof value === 'string') return value;
  if (isPlainObject(value)) return value;
  throw new ConveyorError('ERR_INVALID_INPUT', `The test body must be a JSON object or a text, not ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}`);
}

function migrateReport(reply: unknown): MigrateReport {
  if (isPlainObject(reply) && Array.isArray(reply.output)) return { output: reply.output.map(String) };
  return {};
}

/** What a failed reply said, kept on the error (`details`) for callers that react to it (the portal). */
export interface HttpFailureDetails {
  status: number;
  /** The server's error code (`ERR_…`) when it is a Conveyor server, else ''. */
  code: string;
  /** The server's `details` (e.g. the diagnostics of a refused transform). */
  details?: unknown;
}

function serverFailure(response: HttpResponse): { code: string; details?: unknown } {
  try {
    const parsed: unknown = JSON.parse(response.text);
    if (isPlainObject(parsed)) return { code: typeof parsed.code === 'string' ? parsed.code : '', ...('details' in parsed ? { details: parsed.details } : {}) };
  } catch {
    // Not JSON: no code.
  }
  return { code: '' };
}

/** The HTTP status and server code of a failed call, when the error is one. */
export function failureOf(error: unknown): HttpFailureDetails | undefined {
  if (!(error instanceof ConveyorError) || !isPlainObject(error.details)) return undefined;
  const { status, code, details } = error.details;
  return typeof status === 'number' && typeof code === 'string' ? { status, code, details } : undefined;
}

/** Turns a non-2xx reply into an error that says what happened and what to do. */
export function httpFailure(method: string, path: string, response: HttpResponse, transport: Transport): ConveyorError {
  const detail = errorDetail(response);
  const details: HttpFailureDetails = { status: response.status, ...serverFailure(response) };
  const where = transport.target;
  switch (response.status) {
    case 401:
      return new ConveyorError(
        'ERR_AUTH',
        transport.user
          ? `The server at ${where} refused the credentials of user '${transport.user}' (HTTP 401)`
          : `The server at ${where} requires credentials and none were given (HTTP 401)`,
        { hint: 'set CLI_USERNAME and CLI_PASSWORD, or username and password in REMOTE_SETTINGS', details },
      );
    case 403:
      return new ConveyorError(
        'ERR_FORBIDDEN',
        `User '${transport.user}' may not call ${method} ${path} at ${where} (HTTP 403)${detail ? `: ${detail}` : ''}`,
        {
          hint: 'ask an administrator of the server for a user with the needed role',
          details,
        },
      );
    default:
      break;
  }
  // A Conveyor server's own failure (a refused request, an unknown item, …) says itself what is wrong.
  // An unknown route (ERR_ROUTE_NOT_FOUND) rather means a wrong address: the 404 wording below says what to check.
  const ownFailure = details.code.startsWith('ERR_') && details.code !== 'ERR_ROUTE_NOT_FOUND';
  if ((ownFailure || response.status === 500) && detail) return new ConveyorError('ERR_SERVER', detail, { details });
  if (response.status === 404) {
    return new ConveyorError('ERR_SERVER', `The server at ${where} has no route ${method} ${path} (HTTP 404)${detail ? `: ${detail}` : ''}`, {
      hint: 'check that the URL is the base address of a Conveyor server and that the server is up to date',
      details,
    });
  }
  const reason = response.statusText ? ` ${response.statusText}` : '';
  return new ConveyorError(
    'ERR_SERVER',
    `The server at ${where} answered ${method} ${path} with HTTP ${response.status}${reason}${detail ? `: ${detail}` : ''}`,
    { details },
  );
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

function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
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
