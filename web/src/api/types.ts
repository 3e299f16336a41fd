/** The JSON shapes the portal reads (the spec routes and src/api/portal-routes.ts; see docs/portal.md). */

export type Role = 'viewer' | 'operator' | 'admin';

export interface WhoAmI {
  user: string;
  role: Role;
  namespaces: string[];
}

export interface ListRecord {
  Status: string;
  LastStartTime: string;
  LastStopTime: string;
  AutoStart: boolean;
}

export interface LogEntry {
  id: number;
  config_name: string;
  job: string;
  message_id: string;
  session_id: string;
  source_class: string;
  source_method: string;
  text: string;
  time_logged: string;
  type: string;
}

export interface Setting {
  target: 'Host' | 'Adapter';
  name: string;
  value: string;
}

export interface ItemJson {
  name: string;
  classname: string;
  pool_size: number;
  enabled: boolean;
  foreground: boolean;
  comment: string;
  log_trace_events: boolean;
  schedule: string;
  settings: Setting[];
}

export interface DefinitionJson {
  name: string;
  description: string;
  test_enabled: boolean;
  log_trace_events: boolean;
  actor_pool_size: number;
  items: ItemJson[];
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
