/**
 * The content search on SQLite (`MessageRepository.find`). Two stages in one statement:
 *
 * 1. the window: the headers of the messages matching the header filters, newest first, at most
 *    `scanLimit` of them — an index walk ((ns_id), (ns_id, status), (ns_id, target, status),
 *    (session_id) or (ns_id, created_at), whichever the planner picks);
 * 2. the row checks on those headers: the error substring, and on the body row (found by its primary
 *    key) the body substring and the JSON body tests (json_type / json_extract), stopping at `limit` hits.
 *
 * The window is a subquery with a LIMIT joined to another table, which SQLite never flattens: it runs as
 * a co-routine the outer loop pulls from, in its own order (newest first), so a search with frequent
 * hits stops early and one with rare hits examines at most `scanLimit` rows. The outer query has no
 * ORDER BY on purpose: one would make SQLite check the whole window and sort it before the first hit
 * (the hits are sorted here instead, at most `limit` of them). The window carries the header columns so
 * that the outer loop does not look each message up a second time. When the window was used up first, a
 * second walk of the window alone (headers only) says where it ended: the next page continues below it.
 */
import type Database from 'better-sqlite3';
import type { BodyTest, PathStep } from '../../core/body-condition.ts';
import type { BodyEncoding } from '../../core/message.ts';
import { toHeader, type HeaderRow } from '../rows.ts';
import type { MessageHit, MessageSearch, MessageSearchPage } from '../store.ts';
import { statusSearchTerm } from '../status-indexes.ts';

type HitRow = HeaderRow & { classname: string; encoding: BodyEncoding; body: string };

/** SQLite's JSON path text for the steps; member names are quoted (body-condition.ts refuses `"` and `\` in them). */
function sqlitePath(path: PathStep[]): string {
  return `$${path.map((step) => (typeof step === 'number' ? `[${step}]` : `."${step}"`)).join('')}`;
}

/** One body test as SQL over `b.data`, which the caller has checked is valid JSON. */
function bodyTestSql(test: BodyTest, params: unknown[]): string {
  const path = sqlitePath(test.path);
  const type = `json_type(b.data, '${path.replaceAll("'", "''")}')`;
  const value = `json_extract(b.data, '${path.replaceAll("'", "''")}')`;
  if (test.op === 'contains') {
    params.push(test.value);
    return `(${type} = 'text' AND instr(${value}, ?) > 0)`;
  }
  const wanted = test.value;
  if (wanted === null) return `${type} = 'null'`;
  if (typeof wanted === 'boolean') return `${type} = '${wanted ? 'true' : 'false'}'`;
  params.push(wanted);
  return typeof wanted === 'number' ? `(${type} IN ('integer', 'real') AND ${value} = ?)` : `(${type} = 'text' AND ${value} = ?)`;
}

interface Built {
  window: string;
  windowParams: unknown[];
  checks: string[];
  checkParams: unknown[];
}

function build(nsId: number, search: MessageSearch): Built {
  const where = ['m.ns_id = ?'];
  const windowParams: unknown[] = [nsId];
  const add = (condition: string, value: unknown): void => {
    if (value === undefined) return;
    where.push(condition);
    windowParams.push(value);
  };
  add('m.created_at >= ?', search.from);
  add('m.created_at <= ?', search.to);
  add('m.source = ?', search.source);
  add('m.target = ?', search.target);
  add('m.classname = ?', search.classname);
  add('m.status = ?', search.status);
  const statusTerm = statusSearchTerm(search.status, 'm');
  if (statusTerm !== null) where.push(statusTerm);
  add('m.kind = ?', search.kind);
  add('m.session_id = ?', search.sessionId);
  add('m.response_required = ?', search.responseRequired === undefined ? undefined : Number(search.responseRequired));
  add('m.id < ?', search.beforeId);

  const checks: string[] = [];
  const checkParams: unknown[] = [];
  // instr: an exact, case-sensitive substring with no wildcard characters to escape.
  if (search.error !== undefined && search.error !== '') {
    checks.push('instr(h.error, ?) > 0');
    checkParams.push(search.error);
  }
  if (search.text !== undefined && search.text !== '') {
    checks.push('instr(b.data, ?) > 0');
    checkParams.push(search.text);
  }
  if (search.body !== undefined && search.body.length > 0) {
    const tests = search.body.map((test) => bodyTestSql(test, checkParams));
    // CASE evaluates in order: json_type on a body that is not JSON (a pickle) would raise an error.
    checks.push(`(CASE WHEN b.encoding IN ('json', 'native') AND json_valid(b.data) THEN ${tests.join(' AND ')} ELSE 0 END)`);
  }
  return { window: `FROM messages m WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT ?`, windowParams, checks, checkParams };
}

const windowColumns = `m.id, m.session_id, m.parent_id, m.corresponding_id, m.kind, m.source, m.target, m.response_required,
  m.status, m.priority, m.description, m.error, m.attempts, m.created_at, m.updated_at, m.lease_owner, m.lease_until, m.classname`;

export class SqliteMessageSearch {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Synchronous: the caller runs it inside the store's context (open check, error mapping). */
  find(namespace: string, nsId: number, search: MessageSearch, limit: number): MessageSearchPage {
    const built = build(nsId, search);
    const bounded = built.checks.length > 0;
    const windowSize = bounded ? Math.max(limit, Math.floor(search.scanLimit)) : limit;
    const body = search.bodyChars === undefined ? "coalesce(b.data, '')" : "substr(coalesce(b.data, ''), 1, ?)";
    const bodyParams = search.bodyChars === undefined ? [] : [Math.max(0, Math.floor(search.bodyChars))];
    const sql =
      `SELECT h.*, coalesce(b.encoding, 'empty') AS encoding, ${body} AS body FROM (SELECT ${windowColumns} ${built.window}) h ` +
      `LEFT JOIN message_body_texts b ON b.message_id = h.id${built.checks.length > 0 ? ` WHERE ${built.checks.join(' AND ')}` : ''} LIMIT ?`;
    const rows = this.#statement(sql).all(...bodyParams, ...built.windowParams, windowSize, ...built.checkParams, limit) as HitRow[];
    const hits: MessageHit[] = rows
      .map((row) => ({ ...toHeader(namespace, row), classname: row.classname, encoding: row.encoding, body: row.body }))
      .sort((a, b) => b.id - a.id);
    if (hits.length === limit) return { hits, next: hits.at(-1)!.id, scanned: 0 };
    if (!bounded) return { hits, next: null, scanned: 0 };
    const walked = this.#statement(`SELECT count(*) AS n, min(id) AS low FROM (SELECT m.id ${built.window})`).get(...built.windowParams, windowSize) as {
      n: number;
      low: number | null;
    };
    return walked.n === windowSize && walked.low !== null ? { hits, next: walked.low, scanned: walked.n } : { hits, next: null, scanned: 0 };
  }
}
