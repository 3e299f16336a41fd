import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { newContext } from './context.ts';
import { Dec } from './decimal.ts';
import { pythonBlock, pythonExpression, rewriteCurlyPaths } from './python-hook.ts';
import type { PythonRequest } from './types.ts';

describe('Python hook', () => {
  it('rewrites curly paths outside string literals into GetValueAt calls', () => {
    expect(rewriteCurlyPaths('source.{a.b(1)}.upper() + target.{x}')).toBe('source.GetValueAt("a.b(1)").upper() + target.GetValueAt("x")');
    expect(rewriteCurlyPaths(`"source.{a}" + 'target.{b}' + source.{c}`)).toBe(`"source.{a}" + 'target.{b}' + source.GetValueAt("c")`);
  });

  it('sends documents, aux, imports and locals as JSON and applies what exec returns', async () => {
    const seen: PythonRequest[] = [];
    const target = { keep: 1 };
    const ctx = newContext({
      source: { a: 1 },
      target,
      aux: 'x',
      host: {
        runPython: (r) => {
          seen.push(r);
          return r.mode === 'eval' ? { value: 42 } : { target: { replaced: true }, locals: { y: 'new' } };
        },
      },
      params: defaultParameters(),
      document: 'd',
    });
    ctx.locals.n = Dec.fromJs(1.5);
    expect(await pythonExpression(' source.{a} + 1 ', 'import math', { line: 1, column: 1 })(ctx)).toBe(42);
    expect(seen[0]).toEqual({
      mode: 'eval',
      code: 'source.GetValueAt("a") + 1',
      imports: 'import math',
      source: { a: 1 },
      target: { keep: 1 },
      aux: 'x',
      locals: { n: 1.5 },
    });
    await pythonBlock('x = 1', '', { line: 1, column: 1 })(ctx);
    // The caller's target object is kept (create="existing") and its contents replaced.
    expect(ctx.target).toBe(target);
    expect(target).toEqual({ replaced: true });
    expect(ctx.locals.y).toBe('new');
  });

  it('fails with a positioned runtime error without a hook, and wraps Python failures', async () => {
    const base = { source: {}, target: {}, aux: '', params: defaultParameters(), document: 'd' };
    await expect(pythonExpression('1', '', { line: 3, column: 4 })(newContext({ ...base, host: {} }))).rejects.toMatchObject({
      message: '<PYTHON> this host cannot run Python (no runPython hook)',
      pos: { line: 3, column: 4 },
    });
    const failing = newContext({ ...base, host: { runPython: () => Promise.reject(new Error('NameError: name x is not defined')) } });
    await expect(pythonExpression('x', '', { line: 1, column: 1 })(failing)).rejects.toThrow('<PYTHON EXCEPTION> NameError: name x is not defined');
  });
});
