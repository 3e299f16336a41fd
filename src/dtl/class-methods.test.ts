import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { withoutPositions } from './ast.ts';
import { readClassMethods } from './class-methods.ts';
import type { DtlDiagnostic } from './diagnostics.ts';
import { interpretTransform } from './interpret.ts';
import { parseTransform } from './parse-transform.ts';
import { serializeTransformClass } from './serialize.ts';
import { compileTransform } from './transform.ts';

const CLS = `Class Demo.WithHelpers Extends Ens.DataTransformDTL [ DependsOn = IOP.Message ]
{

Parameter REPORTERRORS = 1;

/// Full name, "Last, First".
ClassMethod FullName(first As %String, last As %String(MAXLEN=50) = "Doe") As %String
{
  // a comment with a } brace
  Quit last_", "_first
}

ClassMethod Double(x) As %Integer [ CodeMode = expression ]
{
x*2
}

ClassMethod Fact(n As %Integer) As %Integer
{
  If n<2 { Return 1 }
  Quit n*..Fact(n-1)
}

ClassMethod FirstOver(list, limit) As %String
{
  For i=1:1:list.Count() {
    If list.GetAt(i)>limit { Quit list.GetAt(i) }
  }
  Quit "none"
}

ClassMethod Py(x) [ Language = python ]
{
    return x
}

XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]
{
<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='demo.Out'>
<assign value='..FullName(source.{first})' property='target.{name}'/>
<assign value='..FullName("Ann","Lee")' property='target.{given}'/>
<assign value='..Double(21)' property='target.{d}'/>
<assign value='..Fact(5)' property='target.{fact}'/>
<assign value='..FirstOver(source.{nums},3)' property='target.{over}'/>
<assign value='x' property='target.{x}'/>
</transform>
}

}
`;

describe('class methods of the transform class', () => {
  it('reads signatures, defaults, code modes, languages and bodies', () => {
    const methods = readClassMethods(CLS);
    expect(methods.map((m) => [m.name, m.params, m.codeMode, m.language])).toEqual([
      [
        'FullName',
        [
          { name: 'first', defaultValue: null },
          { name: 'last', defaultValue: '"Doe"' },
        ],
        'code',
        'objectscript',
      ],
      ['Double', [{ name: 'x', defaultValue: null }], 'expression', 'objectscript'],
      ['Fact', [{ name: 'n', defaultValue: null }], 'code', 'objectscript'],
      [
        'FirstOver',
        [
          { name: 'list', defaultValue: null },
          { name: 'limit', defaultValue: null },
        ],
        'code',
        'objectscript',
      ],
      ['Py', [{ name: 'x', defaultValue: null }], 'code', 'python'],
    ]);
    expect(methods[1]!.body).toBe('\nx*2\n');
    expect(methods[0]!.pos).toEqual({ line: 7, column: 1 });
  });

  it('calls them as ..Name() with defaults, recursion, return values and private locals', async () => {
    const compiled = compileTransform(parseTransform(CLS, 'Demo.WithHelpers.cls'));
    const r = await compiled.run({ first: 'Bob', nums: [1, 5, 9] });
    expect(r.target).toEqual({ name: 'Doe, Bob', given: 'Lee, Ann', d: 42, fact: 120, over: 5 });
    // `x` was a parameter inside Double only: the transform's own locals never saw it.
    expect(r.errors).toEqual([
      { kind: 'runtime', message: '<UNDEFINED> x', document: 'Demo.WithHelpers.cls', line: 45, column: 16, action: 'assign', position: '5' },
    ]);
  });

  it('refuses to call a Python method from an expression, at run time', async () => {
    const text = CLS.replace(`<assign value='x' property='target.{x}'/>`, `<assign value='..Py(1)' property='target.{x}'/>`);
    const r = await compileTransform(parseTransform(text)).run({ first: 'Bob', nums: [] });
    expect(r.errors[0]!.message).toBe('<PYTHON> class method Py is written in Python, which DTL expressions cannot call');
  });

  it('reports a bad method body at its position, and too many arguments at the call', () => {
    const broken = CLS.replace('Quit last_", "_first', 'Lock ^X');
    const diagnostics = (): DtlDiagnostic[] => {
      try {
        compileTransform(parseTransform(broken, 'b.cls'));
      } catch (error) {
        if (isConveyorError(error, 'ERR_DTL')) return (error.details as { diagnostics: DtlDiagnostic[] }).diagnostics;
      }
      return [];
    };
    expect(diagnostics().map((d) => `${d.line}:${d.column} ${d.message}`)).toEqual([
      expect.stringMatching(/^10:3 class method FullName: unsupported statement "Lock \^X"/),
    ]);
    expect(() => compileTransform(parseTransform(CLS.replace('..Double(21)', '..Double(1,2)')))).toThrow(/\.\.Double takes 0 to 1 argument\(s\), 2 given/);
  });

  it('round-trips through the class serializer; the AST interpreter declines', () => {
    const ast = parseTransform(CLS, 'x');
    const back = parseTransform(serializeTransformClass(ast), 'x');
    expect(withoutPositions(back)).toEqual(withoutPositions(ast));
    expect(() => interpretTransform(ast)).toThrow(/does not run class methods/);
  });
});
