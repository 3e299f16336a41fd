import { describe, expect, it } from 'vitest';
import { defaultParameters } from './ast.ts';
import { newContext, type RunContext } from './context.ts';
import { DtlSyntaxError } from './diagnostics.ts';
import { compileCode } from './objectscript-code.ts';
import { toJson } from './values.ts';

function exec(code: string, locals: Record<string, unknown> = {}, source: unknown = {}): RunContext {
  const ctx = newContext({ source, target: {}, aux: '', host: {}, params: defaultParameters(), document: 'd' });
  Object.assign(ctx.locals, locals);
  compileCode(code, { line: 10, column: 1 })(ctx);
  return ctx;
}

const local = (ctx: RunContext, name: string): unknown => toJson(ctx.locals[name]);

describe('<code> ObjectScript subset', () => {
  it('runs Set (several per command, with spaces around =) and Do method calls', () => {
    const ctx = exec(' Set a=1,b = a+1\n Set c = "x"_b\n Do target.SetValueAt(c,"out.v")', {}, {});
    expect([local(ctx, 'a'), local(ctx, 'b'), local(ctx, 'c')]).toEqual([1, 2, 'x2']);
    expect(ctx.target).toEqual({ out: { v: 'x2' } });
  });

  it('sets target properties and reads the source through GetValueAt', () => {
    const ctx = exec(' Set target.Name = source.GetValueAt("p.name")', {}, { p: { name: 'Ann' } });
    expect(ctx.target).toEqual({ Name: 'Ann' });
  });

  it('runs If / ElseIf / Else blocks', () => {
    const code = ' If n>10 { Set r="big" } ElseIf n>5 { Set r="mid" }\n Else { Set r="small" }';
    expect(local(exec(code, { n: 20 }), 'r')).toBe('big');
    expect(local(exec(code, { n: 7 }), 'r')).toBe('mid');
    expect(local(exec(code, { n: 1 }), 'r')).toBe('small');
  });

  it('runs counted and open For loops with Quit, Continue and post-conditionals', () => {
    expect(local(exec(' Set t=0\n For i=1:1:4 { Set t=t+i }'), 't')).toBe(10);
    expect(local(exec(' Set t=""\n For i=10:-3:1 { Set t=t_i_"," }'), 't')).toBe('10,7,4,1,');
    expect(local(exec(' Set i=0\n For { Set i=i+1 Quit:i=3 }'), 'i')).toBe(3);
    expect(local(exec(' Set t=""\n For i=1:1:5 { Continue:i#2=0  Set t=t_i }'), 't')).toBe('135');
    expect(local(exec(' Set t=0\n For i=1:1 { If i>2 { Quit }\n Set t=t+1 }'), 't')).toBe(2);
    expect(local(exec(' Set:0 x=1\n Set y=$GET(x,"unset")'), 'y')).toBe('unset');
  });

  it('supports the status and trace macros', () => {
    const ctx = exec(' Set sc = $$$OK\n If $$$ISOK(sc) { $$$TRACE("ok "_sc) }\n Set bad = "0 failed"\n If $$$ISERR(bad) { $$$LOGWARNING("warn") }');
    expect(ctx.trace).toEqual([
      { category: 'user', action: '', position: '', value: 'ok 1', text: 'ok 1', line: 11 },
      { category: 'user', action: '', position: '', value: 'warn', text: 'warn', line: 13, level: 'Warning' },
    ]);
    expect(() => compileCode(' $$$FOO(1)', { line: 1, column: 1 })).toThrow(/unknown macro \$\$\$FOO/);
    expect(() => compileCode(' Set a = $$$ISERR()', { line: 1, column: 1 })).toThrow(/\$\$\$ISERR takes 1 argument/);
  });

  it('keeps local arrays (subscripted variables) as objects', () => {
    const ctx = exec(' Set map("a")=1, map("b","x")=2\n Set n=map("a")+map("b","x")\n Set d=$D(map("c"))_$D(map("a"))\n Set g=$G(map("zz"),"none")');
    expect([local(ctx, 'map'), local(ctx, 'n'), local(ctx, 'd'), local(ctx, 'g')]).toEqual([{ a: 1, b: { x: 2 } }, 3, '01', 'none']);
    expect(() => exec(' Set map("a")=1\n Set x=map("q")')).toThrow(/<UNDEFINED> map\(…\)/);
  });

  it('ignores comments and kills variables', () => {
    const ctx = exec(' // a comment\n ; another\n Set a=1 /* inline */\n #; more\n Set b=2\n Kill a');
    expect(ctx.locals.a).toBeUndefined();
    expect(local(ctx, 'b')).toBe(2);
  });

  it('reports unsupported statements and syntax errors at their position in the document', () => {
    const cases: [string, RegExp, number, number][] = [
      [' Set a=1\n Lock ^X', /unsupported statement "Lock \^X"/, 11, 2],
      ['Label Set a=1', /must start with a space or tab/, 10, 1],
      [' If a=1 Set b=2', /expected "\{" after If/, 10, 9],
      [' For i=1:1:3 { Set a=1', /missing "\}"/, 10, 23],
      [' Else { Set a=1 }', /Else without a preceding If/, 10, 2],
      [' Set 1=2', /expected a name/, 10, 6],
      [' Quit 5', /Quit with a value is only allowed in a class method/, 10, 6],
      [' Do x', /Do needs a method or function call/, 10, 5],
    ];
    for (const [code, message, line, column] of cases) {
      try {
        compileCode(code, { line: 10, column: 1 });
        expect.unreachable(code);
      } catch (error) {
        expect(error, code).toBeInstanceOf(DtlSyntaxError);
        expect((error as DtlSyntaxError).message, code).toMatch(message);
        expect((error as DtlSyntaxError).position, code).toEqual({ line, column });
      }
    }
  });

  it('raises runtime errors from expressions', () => {
    expect(() => exec(' Set a = b')).toThrow(/<UNDEFINED> b/);
    expect(() => exec(' Set x = 1 Set target.a = 1 Set target.a.b = 2')).toThrow(/<INVALID OREF>/);
  });
});
