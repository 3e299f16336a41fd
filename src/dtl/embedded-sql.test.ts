import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { newContext } from './context.ts';
import { DtlSyntaxError } from './diagnostics.ts';
import { compileSql, parseEmbeddedSql } from './embedded-sql.ts';
import type { DtlHost } from './types.ts';

const at = { line: 4, column: 7 };

describe('<sql>', () => {
  it('strips INTO, binds host variables (locals and source properties) as ? parameters', async () => {
    const sql = parseEmbeddedSql(`\n  SELECT Name, Age INTO :n, :a FROM Demo.People WHERE Id = :id AND City = :source.City AND Note = ':notahost';`, at);
    expect(sql.text).toBe("SELECT Name, Age FROM Demo.People WHERE Id = ? AND City = ? AND Note = ':notahost'");
    expect(sql.into).toEqual(['n', 'a']);
    const seen: unknown[] = [];
    const host: DtlHost = { runSql: async (q) => (seen.push(q), ['Ann', 41]) };
    const ctx = newContext({ source: { City: 'Paris' }, target: {}, aux: '', host, params: defaultParameters(), document: 'd' });
    ctx.locals.id = 7;
    await compileSql(sql, at)(ctx);
    expect(seen).toEqual([{ text: sql.text, params: [7, 'Paris'], columns: 2 }]);
    expect([ctx.locals.n, ctx.locals.a, String(ctx.locals.SQLCODE)]).toEqual(['Ann', 41, '0']);
  });

  it('accepts only SELECT … INTO', () => {
    expect(() => parseEmbeddedSql('UPDATE t SET a=1', at)).toThrow(DtlSyntaxError);
    expect(() => parseEmbeddedSql('UPDATE t SET a=1', at)).toThrow(/read-only/);
    expect(() => parseEmbeddedSql('SELECT a FROM t', at)).toThrow(/needs an INTO :variable clause/);
    expect(() => parseEmbeddedSql('SELECT a INTO :x.y FROM t', at)).toThrow(/must be a local variable/);
  });

  it('turns a failing query into an <SQL ERROR> runtime error', () => {
    const host: DtlHost = {
      runSql: () => {
        throw new Error('no such table: Demo.X');
      },
    };
    const ctx = newContext({ source: {}, target: {}, aux: '', host, params: defaultParameters(), document: 'd' });
    expect(() => compileSql(parseEmbeddedSql('SELECT a INTO :a FROM Demo.X', at), at)(ctx)).toThrow(/<SQL ERROR> no such table/);
  });
});
