/**
 * The PostgreSQL tables as Kysely sees them (the DDL is in migrations.ts). BIGINT columns arrive
 * as JS numbers: the pool parses int8 itself (ids and epoch-ms times stay far below 2^53).
 */
import type { Generated } from 'kysely';
import type { LogType } from '../../core/log.ts';
import type { BodyEncoding, MessageKind, MessageStatus } from '../../core/message.ts';

export interface PgDatabase {
  namespaces: NamespacesTable;
  productions: ProductionsTable;
  class_bindings: ClassBindingsTable;
  schemas: SchemasTable;
  transform_versions: TransformVersionsTable;
  rule_versions: TransformVersionsTable;
  lookup_tables: LookupTablesTable;
  lookup_entries: LookupEntriesTable;
  messages: MessagesTable;
  message_bodies: MessageBodiesTable;
  log_entries: LogEntriesTable;
  nodes: NodesTable;
  leases: LeasesTable;
  package_swaps: PackageSwapsTable;
}

export interface NamespacesTable {
  id: Generated<number>;
  name: string;
  default_production: string | null;
  created_at: number;
}

export interface ProductionsTable {
  ns_id: number;
  name: string;
  definition: string;
  auto_start: Generated<boolean>;
  last_start_time: number | null;
  last_stop_time: number | null;
  state: Generated<'running' | 'stopped'>;
  updated_at: number;
}

export interface ClassBindingsTable {
  ns_id: number;
  name: string;
  kind: string;
  runtime: string;
  module: string | null;
  class_name: string | null;
  classpaths: string;
  settings: string;
  adapter_type: string | null;
  updated_at: number;
}

export interface SchemasTable {
  ns_id: number;
  name: string;
  category: string;
  schema: string;
  updated_at: number;
}

export interface TransformVersionsTable {
  ns_id: number;
  name: string;
  version: number;
  source: string;
  updated_at: number;
}

export interface LookupTablesTable {
  ns_id: number;
  name: string;
  updated_at: number;
}

export interface LookupEntriesTable {
  ns_id: number;
  table_name: string;
  key: string;
  value: string;
}

export interface MessagesTable {
  id: Generated<number>;
  ns_id: number;
  session_id: number;
  parent_id: number | null;
  corresponding_id: number | null;
  kind: MessageKind;
  source: string;
  target: string;
  response_required: boolean;
  status: MessageStatus;
  priority: number;
  description: string;
  error: string | null;
  attempts: Generated<number>;
  classname: string;
  created_at: number;
  updated_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** The sender's W3C traceparent when tracing was on (migration 'message-trace-context'). */
  trace_parent: Generated<string | null>;
}

export interface MessageBodiesTable {
  message_id: number;
  encoding: BodyEncoding;
  data: string;
}

export interface LogEntriesTable {
  id: Generated<number>;
  ns_id: number;
  type: LogType;
  config_name: string;
  job: string;
  message_id: number | null;
  session_id: number | null;
  source_class: string;
  source_method: string;
  text: string;
  time_logged: number;
}

export interface NodesTable {
  node_id: string;
  host: string;
  pid: number;
  api_url: string | null;
  started_at: number;
  heartbeat_at: number;
}

export interface LeasesTable {
  name: string;
  owner: string;
  acquired_at: number;
  expires_at: number;
}

export interface PackageSwapsTable {
  id: string;
  owner: string;
  folder: string;
  package_name: string;
  staging: string;
  committed: Generated<boolean>;
  created_at: number;
}
