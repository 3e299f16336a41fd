/** The JSON shapes the portal reads (the spec routes and src/api/portal-routes.ts; see docs/portal.md). */

import type { ExportItemJson, ExportJson, ExportSettingJson, ListRecordJson, LogEntryJson } from '../../../src/core/wire.ts';

/** The spec routes' replies, as the server writes them. */
export type ListRecord = ListRecordJson;
export type LogEntry = LogEntryJson;
export type Setting = ExportSettingJson;
export type ItemJson = ExportItemJson;
export type DefinitionJson = ExportJson;

export type Role = 'viewer' | 'operator' | 'admin';

export interface WhoAmI {
  user: string;
  role: Role;
  namespaces: string[];
}

export interface ItemState {
  name: string;
  classname: string;
  kind: string;
  enabled: boolean;
  state: string;
  jobs: number;
  error: string | null;
  queued: number;
  delivered: number;
  oldest: number | null;
  targets: string[];
}

export interface ItemsReply {
  production: string;
  running: boolean;
  items: ItemState[];
}

export interface MessageHeader {
  id: number;
  sessionId: number;
  parentId: number | null;
  correspondingId: number | null;
  kind: 'request' | 'response';
  source: string;
  target: string;
  responseRequired: boolean;
  status: string;
  priority: number;
  description: string;
  error: string | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
}

export interface StoredMessage extends MessageHeader {
  body: { classname: string; encoding: string; data: string };
}

export interface MessagePage {
  messages: MessageHeader[];
  next_before: number | null;
}

export interface SessionTrace {
  session: number;
  messages: MessageHeader[];
  log: LogEntry[];
}

export interface DeclaredSetting {
  name: string;
  type: string;
  defaultValue: string | null;
  description: string;
}

export interface ClassBinding {
  name: string;
  kind: string;
  runtime: string;
  settings: DeclaredSetting[];
}

/** A field of a schema tree (src/dtl/schema-tree.ts): `path` is what goes inside `source.{…}`. */
export interface SchemaField {
  name: string;
  path: string;
  type: string;
  repeating: boolean;
  required: boolean;
  children: SchemaField[];
}

export interface Diagnostic {
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

export interface TransformSummary {
  name: string;
  sourceClass: string;
  targetClass: string;
  sourceDocType: string;
  targetDocType: string;
  version: number;
  updatedAt: number;
}

export interface TransformDocument {
  name: string;
  source: string;
  version: number;
  updatedAt: number;
  history: Array<{ version: number; updatedAt: number }>;
}

export interface RunResult {
  target: unknown;
  targetClass: string;
  status: 'ok' | 'error';
  errors: string[];
  trace: string[];
}
