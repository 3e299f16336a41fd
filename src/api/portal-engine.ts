/**
 * What the portal's routes need from the engine beyond EngineApi. Every member is optional: a route
 * whose service is absent answers 501 with a message naming what is missing, so the portal works
 * (minus those pages) against an engine that has not grown them yet. The engine satisfies this type
 * structurally once it has the members; nothing here changes EngineApi.
 */
import type { LogEntry } from '../core/log.ts';
import type { SchemaTreeNode } from '../dtl/index.ts';
import type { TransformRunResult, TransformSummary } from '../engine/dtl-service.ts';
import type { EngineApi } from '../engine/engine-api.ts';
import type { LogQuery } from '../store/store.ts';

export type { TransformRunResult, TransformSummary };

/** A problem in a transform document, positioned (1-based line and column). */
export interface PortalDiagnostic {
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

export interface TransformVersion {
  name: string;
  /** The `<transform>` XML (or the `.cls` text it was stored as). */
  source: string;
  version: number;
  updatedAt: number;
}

/** A field of a message class or JSON schema, as the DTL editor shows it (src/dtl/schema-tree.ts). */
export type SchemaField = SchemaTreeNode;

export interface DtlService {
  listTransforms(namespace: string): Promise<TransformSummary[]>;
  /** The latest version, or the given one. ERR_TRANSFORM_NOT_FOUND when absent. */
  getTransform(namespace: string, name: string, version?: number): Promise<TransformVersion>;
  /** Every version, oldest first. */
  transformHistory(namespace: string, name: string): Promise<TransformVersion[]>;
  /** Validates, then stores a new version; refuses (ERR_DTL, details = diagnostics) when it has errors. */
  putTransform(namespace: string, name: string, source: string): Promise<TransformVersion>;
  deleteTransform(namespace: string, name: string): Promise<void>;
  /** Parses and validates against the schemas; never throws for a bad document. */
  compileTransform(namespace: string, source: string): Promise<PortalDiagnostic[]>;
  /** Runs a stored transform (by name) or a document (source) on a source message. */
  runTransform(namespace: string, transform: { name?: string; source?: string }, input: { classname?: string; json: unknown }): Promise<TransformRunResult>;

  /** Registered schemas and message classes usable as DTL doc types. */
  listSchemas(namespace: string): Promise<Array<{ name: string; category: string; updatedAt: number }>>;
  getSchema(namespace: string, name: string): Promise<{ name: string; category: string; schema: unknown }>;
  schemaTree(namespace: string, name: string): Promise<SchemaField[]>;
  /** The spec's import: a JSON Schema (a document, or a path on the server) under a package and a name. */
  importSchema(namespace: string, request: { path?: string; schema?: unknown; package: string; name: string }): Promise<void>;
  deleteSchema(namespace: string, name: string): Promise<void>;

  lookupTables(namespace: string): Promise<string[]>;
  /** ERR_LOOKUP_NOT_FOUND when absent. */
  getLookup(namespace: string, table: string): Promise<Record<string, string>>;
  putLookup(namespace: string, table: string, entries: Record<string, string>): Promise<void>;
  /** Replaces each of these tables, all in one transaction. */
  putLookups(namespace: string, tables: Record<string, Record<string, string>>): Promise<void>;
  deleteLookup(namespace: string, table: string): Promise<void>;
}

export interface PortalEngine extends EngineApi {
  /** Event-log search (type, item, text, session; newest first) for the log page and the trace. */
  searchLog?(namespace: string, query: LogQuery): Promise<LogEntry[]>;
  dtl?: DtlService;
}
