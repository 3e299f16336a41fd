/**
 * The message export: every hit of a content search, page after page (each a bounded store read), as
 * CSV or NDJSON lines produced on demand — the reply is a stream that asks for the next page only when
 * the client has taken the previous one, so an export of a million messages never sits in memory.
 */
import { Readable } from 'node:stream';
import { formatTimestampMs } from '../core/time.ts';
import type { MessageOperations } from '../engine/namespace-operations.ts';
import type { MessageHit, MessageSearch } from '../store/store.ts';

export type ExportFormat = 'csv' | 'ndjson';

/** Hits per store read, and header matches examined per read when a row check is set. */
const exportPage = 500;
const exportScan = 20_000;

const csvColumns = [
  'id',
  'created_at',
  'session_id',
  'parent_id',
  'corresponding_id',
  'kind',
  'source',
  'target',
  'status',
  'classname',
  'encoding',
  'error',
  'description',
  'body',
] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvLine(hit: MessageHit): string {
  const values: Record<(typeof csvColumns)[number], string | number | null> = {
    id: hit.id,
    created_at: `${formatTimestampMs(hit.createdAt).replace(' ', 'T')}Z`,
    session_id: hit.sessionId,
    parent_id: hit.parentId,
    corresponding_id: hit.correspondingId,
    kind: hit.kind,
    source: hit.source,
    target: hit.target,
    status: hit.status,
    classname: hit.classname,
    encoding: hit.encoding,
    error: hit.error,
    description: hit.description,
    body: hit.body,
  };
  return `${csvColumns.map((column) => csvField(values[column])).join(',')}\r\n`;
}

function ndjsonLine(hit: MessageHit): string {
  return `${JSON.stringify(hit)}\n`;
}

async function* exportLines(
  messages: MessageOperations,
  search: Omit<MessageSearch, 'limit' | 'scanLimit'>,
  format: ExportFormat,
  max: number,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${csvColumns.join(',')}\r\n`;
  let written = 0;
  let beforeId = search.beforeId;
  while (written < max) {
    const page = await messages.find({
      ...search,
      ...(beforeId !== undefined ? { beforeId } : {}),
      limit: Math.min(exportPage, max - written),
      scanLimit: exportScan,
    });
    // One chunk per page: a write per line would cost more than the line.
    if (page.hits.length > 0) yield page.hits.map(format === 'csv' ? csvLine : ndjsonLine).join('');
    written += page.hits.length;
    if (page.next === null) return;
    beforeId = page.next;
  }
}

/** The export as a byte stream; an error of a later page ends the stream with that error (the reply is cut short). */
export function exportStream(
  messages: MessageOperations,
  search: Omit<MessageSearch, 'limit' | 'scanLimit'>,
  format: ExportFormat,
  max = Number.POSITIVE_INFINITY,
): Readable {
  return Readable.from(exportLines(messages, search, format, max), { objectMode: false });
}
