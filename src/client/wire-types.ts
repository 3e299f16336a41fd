/**
 * The JSON shapes of the HTTP API as they travel on the wire (spec "Routes", architecture §5 and §8).
 * They differ from the engine's own types on purpose: snake_case fields, timestamps as text, booleans
 * where the spec says so. Free of `node:` imports: the portal uses them too.
 */
import type { LogEntryJson } from '../core/wire.ts';

export interface VersionReply {
  version: string;
  description: string;
}

export interface StatusReply {
  production: string;
  /** running | stopped | suspended | troubled | unknown */
  status: string;
}

export interface StartReply {
  status: string;
  production: string;
}

export interface LifecycleReply {
  status: string;
}

/** One value of `GET /list`: times as `YYYY-MM-DD HH:MM:SS` (or with a fraction), '' when never. */
export interface ProductionStatusRecord {
  Status: string;
  LastStartTime: string;
  LastStopTime: string;
  /** A boolean per the spec; IoP servers send 0/1. */
  AutoStart: boolean | number;
}

export type ProductionList = Record<string, ProductionStatusRecord>;

export interface DefaultReply {
  production: string;
}

/** A log entry as the spec's server writes it. */
export type LogEntryWire = LogEntryJson;

export interface ExportedSetting {
  target: string;
  name: string;
  value: string;
}

export interface ExportedItem {
  name: string;
  classname: string;
  /** Beyond the spec: Conveyor's items carry a category; absent on servers that do not send it. */
  category?: string;
  pool_size: number;
  enabled: boolean;
  foreground: boolean;
  comment: string;
  log_trace_events: boolean;
  schedule: string;
  settings: ExportedSetting[];
}

/** The spec's production definition of `GET /export`. */
export interface ExportedProduction {
  name: string;
  description: string;
  test_enabled: boolean;
  log_trace_events: boolean;
  actor_pool_size: number;
  items: ExportedItem[];
}

export interface TestCall {
  target: string;
  classname?: string;
  body?: unknown;
  restart?: boolean;
}

export interface TestReply {
  classname?: string;
  body?: string;
  truncated?: boolean | number;
}

export interface PackageFile {
  /** Path relative to the package folder, `/`-separated. */
  name: string;
  /** UTF-8 text of the file. */
  data: string;
}

export interface MigrateUpload {
  package: string;
  remote_folder?: string;
  body: PackageFile[];
  /** Beyond the spec (IoP 4): the entry point when it is not `settings.py`. Sent only then. */
  settings_file?: string;
}

/** Beyond the spec: what a server may answer to a local-path migrate (empty body is fine too). */
export interface MigrateReport {
  output?: string[];
}

/** Reply of `POST {docs_api}/{namespace}/action/compile` (the Atelier shape, iop-reference §2.7). */
export interface CompileReply {
  status?: { errors?: unknown[]; summary?: string };
  console?: string[];
  result?: unknown;
}

/** Beyond the spec: registering a JSON schema for DTL (spec DTL item 3: path → content, package, name). */
export interface SchemaImport {
  package: string;
  name: string;
  schema: unknown;
}
