/**
 * The content search on PostgreSQL (`MessageRepository.find`), the same two stages as on SQLite:
 *
 * 1. the window: the headers of the messages matching the header filters, newest first, at most
 *    `scanLimit` (an index walk);
 * 2. the row checks on those headers: the error substring, the body substring (strpos) and the JSON body
 *    tests on the body parsed as jsonb (`#>` with the path as a text array; `=` compares jsonb values,
 *    so the number 42 equals 42.0 and never the string "42").
 *
 * A subquery with a LIMIT is not flattened into the join, and its order (newest first) carries to the
 * outer ORDER BY, which then needs no sort: the outer LIMIT pulls from it through a nested loop, so a
 * search with frequent hits stops early and one with rare hits examines at most `scanLimit` rows.
 *
 * The cast to jsonb raises an error on text that is not JSON and would fail the whole statement, and
 * PostgreSQL 15 has no test for it that does not raise. Bodies of encoding json and native are JSON as
 * written by the engine, except that Python writes NaN and Infinity for such floats: a body holding
 * either word is left out of body tests (docs/operations.md says so).
 */
import type { BodyTest } from '../../core/body-condition.ts';
import type { BodyEncoding } from '../../core/message.ts';
import { toHeader, type HeaderRow } from '../rows.ts';
import type { MessageHit, MessageSearch, MessageSearchPage } from '../store.ts';
import type { PostgresContext } from './postgres-context.ts';
import { statusSearchTerm } from '../status-indexes.ts';

type HitRow = HeaderRow & { classname: string; encoding: BodyEncoding; body: string };

const windowColumns = `m.id, m.session_id, m.parent_id, m.corresponding_id, m.kind, m.source, m.target, m.response_required,
  m.status, m.priority, m.description, m.error, m.attempts, m.created_at, m.updated_at, m.lease_owner, m.lease_until, m.classname`;

/** Collects values as $n placeholders. */
class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function bodyTestSql(test: BodyTest, params: Params): string {
  const path = `b.data::jsonb #> ${params.add(test.path.map(String))}::text[]`;
  if (test.op === 'contains') return `(jsonb_typeof(${path}) = 'string' AND strpos((${path}) #>> '{}', ${params.add(test.value)}) > 0)`;
  return `(${path}) = ${params.add(JSON.stringify(test.value))}::jsonb`;
}

export async function findMessages(ctx: PostgresContext, namespace: string, nsId: number, search: MessageSearch, limit: number): Promise<MessageSearchPage> {
  const params = new Params();
  const where = [`m.ns_id = ${params.add(nsId)}`];
  const add = (column: string, operator: string, value: unknown): void => {
    if (value !== undefined) where.push(`${column} ${operator} ${params.add(value)}`);
  };
  add('m.created_at', '>=', search.from);
  add('m.created_at', '<=', search.to);
  add('m.source', '=', search.source);
  add('m.target', '=', search.target);
  add('m.classname', '=', search.classname);
  add('m.status', '=', search.status);
  const indexed = statusSearchTerm(search.status, 'm');
  if (indexed !== null) where.push(indexed);
  add('m.kind', '=', search.kind);
  add('m.session_id', '=', search.sessionId);
  add('m.response_required', '=', search.responseRequired);
  add('m.id', '<', search.beforeId);
  const windowWhere = where.join(' AND ');
  const windowValues = [...params.values];

  const checks: string[] = [];
  // strpos: an exact, case-sensitive substring with no LIKE wildcards to escape.
  if (search.error !== undefined && search.error !== '') checks.push(`strpos(h.error, ${params.add(search.error)}) > 0`);
  if (search.text !== undefined && search.text !== '') checks.push(`strpos(b.data, ${params.add(search.text)}) > 0`);
  if (search.body !== undefined && search.body.length > 0) {
    const tests = search.body.map((test) => bodyTestSql(test, params));
    // CASE evaluates in order, so the cast only ever sees JSON text.
    checks.push(
      `(CASE WHEN b.encoding IN ('json', 'native') AND strpos(b.data, 'NaN') = 0 AND strpos(b.data, 'Infinity') = 0 THEN ${tests.join(' AND ')} ELSE FALSE END)`,
    );
  }
  const bounded = checks.length > 0;
  const windowSize = bounded ? Math.max(limit, Math.floor(search.scanLimit)) : limit;
  const windowLimit = params.add(windowSize);
  const body = search.bodyChars === undefined ? "coalesce(b.data, '')" : `left(coalesce(b.data, ''), ${params.add(Math.max(0, Math.floor(search.bodyChars)))})`;
  const window = (columns: string, limitRef: string) => `SELECT ${columns} FROM messages m WHERE ${windowWhere} ORDER BY m.id DESC LIMIT ${limitRef}`;
  const text =
    `SELECT h.*, coalesce(b.encoding, 'empty') AS encoding, ${body} AS body FROM (${window(windowColumns, windowLimit)}) h ` +
    `LEFT JOIN message_bodies b ON b.message_id = h.id${bounded ? ` WHERE ${checks.join(' AND ')}` : ''} ` +
    `ORDER BY h.id DESC LIMIT ${params.add(limit)}`;
  const { rows } = await ctx.pool.query<HitRow>({ text, values: params.values });
  const hits: MessageHit[] = rows.map((row) => ({ ...toHeader(namespace, row), classname: row.classname, encoding: row.encoding, body: row.body }));
  if (hits.length === limit) return { hits, next: hits.at(-1)!.id, scanned: 0 };
  if (!bounded) return { hits, next: null, scanned: 0 };
  const walked = await ctx.pool.query<{ n: number; low: number | null }>({
    text: `SELECT count(*)::integer AS n, min(id) AS low FROM (${window('m.id', `$${windowValues.length + 1}`)}) w`,
    values: [...windowValues, windowSize],
  });
  const { n, low } = walked.rows[0]!;
  return n === windowSize && low !== null ? { hits, next: Number(low), scanned: n } : { hits, next: null, scanned: 0 };
}
