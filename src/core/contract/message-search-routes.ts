/**
 * Message search by header fields and body content, paged by an opaque cursor, and its export as CSV
 * or NDJSON (streamed). Beside the portal's `GET /messages`, whose shape stays as it is.
 * The body condition language is src/core/body-condition.ts (docs/operations.md, Message search).
 */
import { Type } from 'typebox';
import { messageHeader, messageKind, messageStatus } from './portal-shapes.ts';
import { closed, namespaceQuery, route } from './route.ts';

const tag = 'Message search';
const timeBound = (what: string) => Type.Optional(Type.String({ description: `${what}: epoch ms, ISO 8601, or YYYY-MM-DD HH:MM[:SS] (UTC)` }));

/** The filters the search and the exports share. */
const filters = {
  from: timeBound('Created at or after'),
  to: timeBound('Created at or before'),
  source: Type.Optional(Type.String({ description: 'Source item (exact)' })),
  target: Type.Optional(Type.String({ description: 'Target item (exact)' })),
  classname: Type.Optional(Type.String({ description: 'Body class (exact), e.g. msg.Order or Ens.StringRequest' })),
  status: Type.Optional(
    Type.Union([...messageStatus.anyOf, Type.Literal('suspended')], {
      description: 'A status, or suspended: failed requests nobody waited for (kind request, status error, no response expected)',
    }),
  ),
  kind: Type.Optional(messageKind),
  session: Type.Optional(Type.Integer({ minimum: 0, description: 'Session id' })),
  error: Type.Optional(Type.String({ description: 'Text in the error (case-sensitive substring)' })),
  text: Type.Optional(Type.String({ description: 'Text anywhere in the body (case-sensitive substring)' })),
  body: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'Body condition: `$.path = value` or `$.path contains "text"`, joined by `and`; e.g. `$.patient.id = 42` (docs/operations.md)',
    }),
  ),
};

const messageHit = closed({
  ...messageHeader.properties,
  classname: Type.String({ description: 'The body class' }),
  encoding: Type.Union([Type.Literal('json'), Type.Literal('pickle'), Type.Literal('native'), Type.Literal('empty')]),
  preview: Type.String({ description: 'The start of the body text (`preview` characters)' }),
});

export const searchMessageContent = route({
  method: 'GET',
  path: '/messages/search',
  role: 'viewer',
  spec: false,
  tag,
  summary:
    'Search messages by header fields and body content, newest first. A page ends at `limit` hits or after `scan` messages matching the header filters were examined; `next_cursor` continues the same search (null: nothing more)',
  querystring: namespaceQuery({
    ...filters,
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The next_cursor of the previous page (same filters)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Hits per page (default 50)' })),
    scan: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Messages examined per page at most when error, text or body is set (default 20000)' }),
    ),
    preview: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Characters of body preview (default 200)' })),
  }),
  replies: {
    200: {
      description: 'A page of hits',
      schema: closed({
        messages: Type.Array(messageHit),
        next_cursor: Type.Union([Type.String(), Type.Null()]),
        scanned: Type.Integer({ description: 'Messages examined when the scan bound ended the page before `limit` hits (0 otherwise)' }),
      }),
    },
  },
});

const exportQuery = namespaceQuery({
  ...filters,
  max: Type.Optional(Type.Integer({ minimum: 1, description: 'Stop after this many messages (default: all that match)' })),
});

export const exportMessagesCsv = route({
  method: 'GET',
  path: '/messages/export/csv',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Every message the search filters match, newest first, as CSV (RFC 4180, header row, body in full), streamed',
  querystring: exportQuery,
  replies: { 200: { description: 'CSV', schema: Type.String(), contentType: 'text/csv; charset=utf-8' } },
});

export const exportMessagesNdjson = route({
  method: 'GET',
  path: '/messages/export/ndjson',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Every message the search filters match, newest first, one JSON object a line (header fields, classname, encoding, body), streamed',
  querystring: exportQuery,
  replies: { 200: { description: 'NDJSON', schema: Type.String(), contentType: 'application/x-ndjson' } },
});
