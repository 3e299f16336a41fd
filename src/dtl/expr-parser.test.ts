import { describe, expect, it } from 'vitest';
import { DtlSyntaxError } from './diagnostics.ts';
import type { ExprNode } from './expr-ast.ts';
import { parseExpression } from './expr-parser.ts';

const at = { line: 1, column: 1 };

/** A compact text form of the tree, to check the shape the parser builds. */
function show(node: ExprNode): string {
  switch (node.kind) {
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.value.toString();
    case 'local':
      return node.name;
    case 'path':
      return `${node.root}${node.steps.map((s) => (s.kind === 'member' ? `.${s.name}` : s.index.k === 'expr' ? `.(${show(s.index.expr)})` : `(${JSON.stringify(s.index)})`)).join('')}`;
    case 'method':
      return `${show(node.target)}->${node.name}(${node.args.map((a) => (a ? show(a) : '_')).join(',')})`;
    case 'unary':
      return `(${node.op}${show(node.operand)})`;
    case 'binary':
      return `(${show(node.left)}${node.op}${show(node.right)})`;
    case 'pattern':
      return `(${show(node.subject)}${node.negated ? "'" : ''}?${Array.isArray(node.pattern) ? JSON.stringify(node.pattern) : show(node.pattern)})`;
    case 'function':
      return `..${node.name}(${node.args.map((a) => (a ? show(a) : '_')).join(',')})`;
    case 'system':
      return `$${node.name}(${node.args.map((a) => (a ? show(a) : '_')).join(',')})`;
    case 'special':
      return `$${node.name}`;
    case 'classMethod':
      return `##class(${node.className}).${node.method}(${node.args.map((a) => (a ? show(a) : '_')).join(',')})`;
    case 'case':
      return `$CASE(${show(node.subject)},${node.pairs.map((p) => `${show(p.when)}:${show(p.then)}`).join(',')}${node.otherwise ? `,:${show(node.otherwise)}` : ''})`;
    case 'select':
      return `$SELECT(${node.pairs.map((p) => `${show(p.when)}:${show(p.then)}`).join(',')})`;
  }
}

const p = (text: string): string => show(parseExpression(text, at));

describe('parseExpression', () => {
  it('has no operator precedence: strictly left to right, unary binding first', () => {
    expect(p('1+2*3')).toBe('((1+2)*3)');
    expect(p('-a+5')).toBe('((-a)+5)');
    expect(p("x'=1&&y")).toBe("((x'=1)&&y)");
    expect(p('2**3\\2#5')).toBe('(((2**3)\\2)#5)');
    expect(p("'(a]]b)")).toBe("('(a]]b))");
    expect(p('a _ "b"')).toBe('(a_"b")');
  });

  it('reads IRIS rule syntax only when asked: operator words, != and a leading !, and precedence levels', () => {
    const rule = (text: string): string => show(parseExpression(text, at, { ruleSyntax: true }));
    expect(rule('a Contains "x"&&b')).toBe('(..Contains(a,"x")&&b)');
    expect(rule('a=1&&b="A"||c>2')).toBe('(((a=1)&&(b="A"))||(c>2))');
    expect(rule('1+2*3-4')).toBe('((1+(2*3))-4)');
    expect(rule('a_"x"="yx"')).toBe('((a_"x")="yx")');
    expect(rule('a In "x,y"&&b?1N')).toBe('(..In(a,"x,y")&&(b?[{"kind":"codes","min":1,"max":1,"codes":"N"}]))');
    expect(rule('(a||b)&&c')).toBe('((a||b)&&c)');
    expect(rule('a In("x,y")')).toBe('..In(a,"x,y")');
    expect(rule('a!=1')).toBe("(a'=1)");
    expect(rule('!a=1')).toBe("(('a)=1)");
    expect(rule('a!b')).toBe('(a!b)');
    expect(rule('a.In')).toBe('a.In');
    // A transform attribute is ObjectScript: none of these is an operator there.
    expect(() => p('a Contains "x"')).toThrow(DtlSyntaxError);
    expect(() => p('a!=1')).toThrow(DtlSyntaxError);
  });

  it('parses literals, paths, calls and $-constructs', () => {
    expect(p('"say ""hi"""')).toBe('"say \\"hi\\""');
    expect(p('.5')).toBe('.5');
    expect(p('source.{items(k).name}')).toBe('source.items({"k":"var","name":"k"}).name');
    expect(p('source.Items.(k+1).Name')).toBe('source.Items.((k+1)).Name');
    expect(p('source.Items()')).toBe('source.Items({"k":"all"})');
    expect(p('map(k,"b")')).toBe('map.(k).("b")');
    expect(p('source.GetValueAt("a.b")')).toBe('source->GetValueAt("a.b")');
    expect(p('..Lookup("T",x,,1)')).toBe('..Lookup("T",x,_,1)');
    expect(p('##class(Pkg.Util).Go(.ref)')).toBe('##class(Pkg.Util).Go(ref)');
    expect(p('$P(x,",",2)')).toBe('$P(x,",",2)');
    expect(p('$H')).toBe('$H');
    expect(p('$SYSTEM.Encryption.Base64Encode("a")')).toBe('##class(%SYSTEM.Encryption).Base64Encode("a")');
    expect(p('$CASE(x,1:"a",2:"b",:"z")')).toBe('$CASE(x,1:"a",2:"b",:"z")');
    expect(p('$S(a:1,1:2)')).toBe('$SELECT(a:1,1:2)');
    expect(p('x?3N1"-"2.4A')).toBe(
      '(x?[{"kind":"codes","min":3,"max":3,"codes":"N"},{"kind":"literal","min":1,"max":1,"text":"-"},{"kind":"codes","min":2,"max":4,"codes":"A"}])',
    );
    expect(p("x'?@pat")).toBe("(x'?pat)");
    expect(p('$E(x,*-2,*)')).toBe('$EXTRACT(x,($*-2),$*)'.replace('EXTRACT', 'E'));
  });

  it('reports syntax errors at their column', () => {
    const cases: [string, RegExp, number][] = [
      ['', /the expression is empty/, 1],
      ['1+', /ends where an operand was expected/, 3],
      ['(1+2', /expected "\)" to close/, 5],
      ['"abc', /unterminated string/, 2],
      ['a b', /unexpected "b" after the expression/, 3],
      ['..Foo', /must be called with parentheses/, 6],
      ['source(1)', /source cannot be subscripted/, 7],
      ['x(1,)', /empty subscript in x/, 6],
      ['$$$OK', /\$\$\$ macros are only supported inside <code>/, 1],
      ['$$label^rou', /\$\$ calls are not supported/, 1],
      ['x?', /expected a pattern/, 3],
      ['source.{a', /unclosed "\{"/, 7],
      ['@x', /unexpected "@"/, 1],
    ];
    for (const [text, message, column] of cases) {
      try {
        parseExpression(text, at);
        expect.unreachable(text);
      } catch (error) {
        expect(error, text).toBeInstanceOf(DtlSyntaxError);
        expect((error as DtlSyntaxError).message, text).toMatch(message);
        expect((error as DtlSyntaxError).position.column, text).toBe(column);
      }
    }
  });
});
