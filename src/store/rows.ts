/**
 * The row shapes both drivers read (their tables have the same columns) and their mapping to the
 * store's types. Only `response_required` differs: SQLite answers 0/1, PostgreSQL a boolean.
 */
import type { LogEntry, LogType } from '../core/log.ts';
import type { BodyEncoding, MessageHeader, MessageKind, MessageStatus, StoredMessage } from '../core/message.ts';

export interface HeaderRow {
  id: number;
  session_id: number;
  parent_id: number | null;
  corresponding_id: number | null;
  kind: MessageKind;
  source: string;
  target: string;
  response_required: number | boolean;
  status: MessageStatus;
  priority: number;
  description: string;
  error: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
  lease_owner: string | null;
  lease_until: number | null;
}

export interface MessageRow extends HeaderRow {
  classname: string;
  encoding: BodyEncoding;
  data: string;
  trace_parent: string | null;
}

export interface LogRow {
  id: number;
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

export function toHeader(namespace: string, row: HeaderRow): MessageHeader {
  return {
    id: row.id,
    namespace,
    sessionId: row.session_id,
    parentId: row.parent_id,
    correspondingId: row.corresponding_id,
    kind: row.kind,
    source: row.source,
    target: row.target,
    responseRequired: row.response_required === true || row.response_required === 1,
    status: row.status,
    priority: row.priority,
    description: row.description,
    error: row.error,
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
  };
}

export function toMessage(namespace: string, row: MessageRow): StoredMessage {
  const message: StoredMessage = { ...toHeader(namespace, row), body: { classname: row.classname, encoding: row.encoding, data: row.data } };
  // Set only when traced: untraced messages keep the shape they always had.
  if (row.trace_parent !== null) message.traceParent = row.trace_parent;
  return message;
}

export function toLogEntry(namespace: string, row: LogRow): LogEntry {
  return {
    id: row.id,
    namespace,
    type: row.type,
    configName: row.config_name,
    job: row.job,
    messageId: row.message_id,
    sessionId: row.session_id,
    sourceClass: row.source_class,
    sourceMethod: row.source_method,
    text: row.text,
    timeLogged: row.time_logged,
  };
}
