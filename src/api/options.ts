/** The options of the API, their documented defaults, and the context its route modules share. */
import type { FastifyBaseLogger } from 'fastify';
import type { ExportFormat } from '../core/export-format.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import type { ClassDocumentCompiler } from './class-documents.ts';
import type { LoginThrottleLimits } from './login-throttle.ts';
import type { UserDirectory } from './users.ts';

export interface ApiOptions {
  engine: EngineOperations;
  users: UserDirectory;
  /** Where the spec routes are mounted (also answered under `{apiPrefix}/v1`). Default `/api/iop`. */
  apiPrefix?: string;
  /** Where the class-document (Atelier) API is mounted. Default `/api/atelier/v1`. */
  docsPrefix?: string;
  /** Largest request body in bytes. Default 64 MiB (migrate uploads whole packages as JSON). */
  bodyLimit?: number;
  /** Largest `top` of `GET /log`, and the most entries one `since_id` poll returns. Default 1000. */
  maxTop?: number;
  /** Time allowed to receive a request and to answer it, in ms (`requestTimeout` and `handlerTimeout`). Default 300000. */
  requestTimeoutMs?: number;
  /** The folder holding a namespace's uploaded packages (the default target of `PUT /migrate`). */
  packagesDir: (namespace: string) => string;
  /** The folder where a namespace's class documents (`PUT {docs}/{ns}/doc/{name}`) are kept. */
  documentsDir: (namespace: string) => string;
  /** Folders a `remote_folder` of `PUT /migrate` must lie in (after resolving links). Usually `[home]`. */
  allowedRoots: string[];
  /** Browser origins allowed to call the API cross-origin (`*`: any). Default none: only same-origin pages. */
  corsOrigins?: string[];
  /** The form of `GET /export`: the spec's (default) or IoP's xmltodict form (src/core/iop-export.ts). */
  exportFormat?: ExportFormat;
  /** What `GET /version` answers. */
  version: { version: string; description: string };
  /** Compiles DTL transform classes of remote init; default: the engine's DTL service (transform-compiler.ts). */
  classCompiler?: ClassDocumentCompiler;
  /** Default: warnings and errors as JSON lines on stderr. */
  logger?: FastifyBaseLogger;
  /** Failed logins allowed per user name and per address, and the waits after them (login-throttle.ts defaults). */
  loginThrottle?: Partial<LoginThrottleLimits>;
}

export type ResolvedApiOptions = Required<Omit<ApiOptions, 'logger' | 'classCompiler' | 'loginThrottle'>> &
  Pick<ApiOptions, 'logger' | 'classCompiler' | 'loginThrottle'>;

export const apiDefaults = {
  apiPrefix: '/api/iop',
  docsPrefix: '/api/atelier/v1',
  bodyLimit: 64 * 1024 * 1024,
  maxTop: 1000,
  requestTimeoutMs: 300_000,
  corsOrigins: [] as string[],
  exportFormat: 'spec' as ExportFormat,
};

export function resolveApiOptions(options: ApiOptions): ResolvedApiOptions {
  const trimSlash = (prefix: string): string => (prefix === '/' ? '' : prefix.replace(/\/+$/, ''));
  return {
    ...options,
    apiPrefix: trimSlash(options.apiPrefix ?? apiDefaults.apiPrefix),
    docsPrefix: trimSlash(options.docsPrefix ?? apiDefaults.docsPrefix),
    bodyLimit: options.bodyLimit ?? apiDefaults.bodyLimit,
    maxTop: options.maxTop ?? apiDefaults.maxTop,
    requestTimeoutMs: options.requestTimeoutMs ?? apiDefaults.requestTimeoutMs,
    corsOrigins: options.corsOrigins ?? apiDefaults.corsOrigins,
    exportFormat: options.exportFormat ?? apiDefaults.exportFormat,
  };
}
