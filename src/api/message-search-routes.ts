/**
 * `GET /messages/search` (header fields and body content, opaque cursor) and its exports
 * `GET /messages/export/csv` and `/ndjson`, declared in src/core/contract/message-search-routes.ts.
 * Every input is checked before anything is read, so a bad condition, time or cursor is a 400 and an
 * export that starts is one that can run.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseBodyCondition } from '../core/body-condition.ts';
import * as routes from '../core/contract/message-search-routes.ts';
import type { QueryOf } from '../core/contract/route.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import type { MessageSearch } from '../store/store.ts';
import { exportStream, type ExportFormat } from './message-export.ts';
import { parseTime } from './portal-routes.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { decodeCursor, encodeCursor } from './search-cursor.ts';
import { given } from './spec-routes.ts';

const defaultLimit = 50;
/** Header matches one page examines at most when a row check is set: ~20 ms of SQLite on the bench machine (docs/benchmarks.md). */
const defaultScan = 20_000;
const defaultPreview = 200;

type Filters = QueryOf<typeof routes.exportMessagesCsv>;

/** The store search the filters stand for, without the paging. */
function searchOf(query: Filters): Omit<MessageSearch, 'limit' | 'scanLimit'> {
  const search: Omit<MessageSearch, 'limit' | 'scanLimit'> = {};
  const from = parseTime('from', query.from);
  const to = parseTime('to', query.to);
  if (from !== undefined) search.from = from;
  if (to !== undefined) search.to = to;
  for (const field of ['source', 'target', 'classname', 'error', 'text'] as const) {
    const value = given(query[field]);
    if (value !== undefined) search[field] = value;
  }
  if (query.kind) search.kind = query.kind;
  if (query.status === 'suspended') Object.assign(search, { status: 'error', kind: 'request', responseRequired: false });
  else if (query.status) search.status = query.status;
  if (query.session !== undefined) search.sessionId = query.session;
  const body = given(query.body?.trim());
  if (body !== undefined) search.body = parseBodyCondition(body);
  return search;
}

const fileStamp = () => new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');

export function registerMessageSearchRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, routes.searchMessageContent, async (request) => {
    const { cursor, limit, scan, preview, ...filters } = request.query;
    const search = searchOf(filters);
    const beforeId = cursor === undefined || cursor === '' ? undefined : decodeCursor(cursor);
    const namespace = await namespaceOf(request, engine);
    const page = await namespace.messages.find({
      ...search,
      ...(beforeId !== undefined ? { beforeId } : {}),
      limit: limit ?? defaultLimit,
      scanLimit: scan ?? defaultScan,
      bodyChars: preview ?? defaultPreview,
    });
    return {
      messages: page.hits.map(({ body, ...hit }) => ({ ...hit, preview: body })),
      next_cursor: page.next === null ? null : encodeCursor(page.next),
      scanned: page.scanned,
    };
  });

  const exporter = (format: ExportFormat, contentType: string) => async (request: { query: Filters; method: string; body: unknown }, reply: FastifyReply) => {
    const { max, ...filters } = request.query;
    const search = searchOf(filters);
    const namespace = await namespaceOf(request, engine);
    reply.header('content-type', contentType).header('content-disposition', `attachment; filename="messages-${fileStamp()}.${format}"`);
    return reply.send(exportStream(namespace.messages, search, format, max));
  };
  serve(scope, catalog, routes.exportMessagesCsv, exporter('csv', 'text/csv; charset=utf-8'));
  serve(scope, catalog, routes.exportMessagesNdjson, exporter('ndjson', 'application/x-ndjson'));
}
