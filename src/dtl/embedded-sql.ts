/**
 * `<sql>`: one embedded `SELECT … INTO :var, … FROM … WHERE col = :hostvar`. Host variables are
 * locals or `source.Prop` / `target.Prop`; the statement goes to the host's read-only `runSql`
 * with `?` placeholders. The first row fills the INTO variables and sets SQLCODE to 0; no row
 * sets SQLCODE to 100 and leaves the variables alone.
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import { DtlSyntaxError, shift, type Position } from './diagnostics.ts';
import { compileExpr, EMPTY_SCOPE, type CompileScope, type Fn } from './compile-expr.ts';
import { parseExpression } from './expr-parser.ts';
import { Dec } from './decimal.ts';
import type { Step } from './steps.ts';
import { toNum, toStr } from './values.ts';

const HOST_VARIABLE = /:([%A-Za-z][%A-Za-z0-9]*(?:\.[%A-Za-z][%A-Za-z0-9]*)*)/g;

export interface EmbeddedSql {
  text: string;
  params: Fn[];
  into: string[];
}

/** Replaces host variables outside string literals; returns the statement and their names. */
function bindHostVariables(sql: string, base: Position, offset: number, scope: CompileScope): { text: string; params: Fn[] } {
  const params: Fn[] = [];
  let text = '';
  const parts = sql.split(/('(?:[^']|'')*')/);
  let at = offset;
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 1) text += part;
    else
      text += part.replace(HOST_VARIABLE, (_m, name: string, index: number) => {
        params.push(compileExpr(parseExpression(name, shift(base, sql, at - offset + index + 1)), scope));
        return '?';
      });
    at += part.length;
  }
  return { text, params };
}

export function parseEmbeddedSql(body: string, base: Position, scope: CompileScope = EMPTY_SCOPE): EmbeddedSql {
  const sql = body.trim().replace(/;$/, '');
  const lead = body.indexOf(sql);
  const start = shift(base, body, lead);
  if (!/^SELECT\b/i.test(sql)) throw new DtlSyntaxError('<sql> supports one SELECT … INTO … statement (the hook is read-only)', start);
  const into = /\bINTO\s+(:[^\s,]+(?:\s*,\s*:[^\s,]+)*)\s+(?=FROM\b)/i.exec(sql);
  if (!into) throw new DtlSyntaxError('<sql> SELECT needs an INTO :variable clause before FROM', start);
  const names = into[1]!.split(',').map((v) => v.trim().slice(1));
  for (const name of names) {
    if (!/^[%A-Za-z][%A-Za-z0-9]*$/.test(name)) throw new DtlSyntaxError(`INTO target :${name} must be a local variable`, shift(base, body, lead + into.index));
  }
  const withoutInto = sql.slice(0, into.index) + sql.slice(into.index + into[0].length);
  const { text, params } = bindHostVariables(withoutInto, base, lead, scope);
  return { text, params, into: names };
}

function sqlParam(value: unknown): string | number {
  if (value instanceof Dec || typeof value === 'number') return toNum(value).toJs();
  return toStr(value);
}

export function compileSql(sql: EmbeddedSql, pos: Position): Step {
  return (ctx: RunContext) => {
    if (!ctx.host.runSql) throw new ObjectScriptError('SQL', 'this host cannot run <sql> (no runSql hook)', pos);
    const query = { text: sql.text, params: sql.params.map((p) => sqlParam(p(ctx))), columns: sql.into.length };
    let pending;
    try {
      pending = ctx.host.runSql(query);
    } catch (error) {
      throw new ObjectScriptError('SQL ERROR', error instanceof Error ? error.message : String(error), pos);
    }
    const apply = (row: (string | number | null)[] | undefined): void => {
      if (!row) {
        ctx.locals.SQLCODE = Dec.fromInt(100);
        return;
      }
      sql.into.forEach((name, i) => {
        ctx.locals[name] = row[i] ?? '';
      });
      ctx.locals.SQLCODE = Dec.ZERO;
    };
    if (pending instanceof Promise) {
      return pending.then(apply, (error: unknown) => {
        throw new ObjectScriptError('SQL ERROR', error instanceof Error ? error.message : String(error), pos);
      });
    }
    apply(pending);
  };
}
