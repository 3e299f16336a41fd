import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import type { DtlDiagnostic } from './diagnostics.ts';
import { parseTransform } from './parse-transform.ts';

const T = (body: string, attrs = ''): string => `<transform sourceClass='A' targetClass='B'${attrs}>\n${body}\n</transform>`;

function diagnosticsOf(text: string): DtlDiagnostic[] {
  try {
    parseTransform(text, 'doc.dtl');
  } catch (error) {
    if (isConveyorError(error, 'ERR_DTL')) return (error.details as { diagnostics: DtlDiagnostic[] }).diagnostics;
    throw error;
  }
  return [];
}

describe('parseTransform', () => {
  it('builds the model with positions, defaults and every action kind', () => {
    const ast = parseTransform(
      T(`<assign value='1' property='target.{a}' key='2' disabled='1' languageOverride='python'><annotation>note</annotation></assign>
<foreach property='source.{l()}' key='k' unload='1'><break/></foreach>
<if condition='1'><false><trace value='"f"'/></false></if>
<switch><case condition='0'><comment><annotation>c</annotation></comment></case><default><group/></default></switch>
<subtransform class='X.Y' sourceObj='source.{a}' targetObj='target.{b}' aux='k'/>
<code><![CDATA[ Set x=1]]></code>
<sql><![CDATA[SELECT a INTO :b FROM t]]></sql>`),
    );
    expect(ast.sourceClass).toBe('A');
    expect(ast.create).toBe('new');
    expect(ast.language).toBe('objectscript');
    expect(ast.actions.map((a) => a.kind)).toEqual(['assign', 'foreach', 'if', 'switch', 'subtransform', 'code', 'sql']);
    const assign = ast.actions[0]!;
    expect(assign).toMatchObject({
      kind: 'assign',
      action: 'set',
      key: '2',
      disabled: true,
      languageOverride: 'python',
      annotation: 'note',
      pos: { line: 2, column: 1 },
    });
    expect(ast.actions[1]).toMatchObject({ kind: 'foreach', key: 'k', unload: true, actions: [{ kind: 'break' }] });
    expect(ast.actions[2]).toMatchObject({ kind: 'if', whenTrue: null, whenFalse: [{ kind: 'trace', value: '"f"' }] });
    expect(ast.actions[3]).toMatchObject({
      kind: 'switch',
      cases: [{ condition: '0', actions: [{ kind: 'comment', annotation: 'c' }] }],
      otherwise: { actions: [{ kind: 'group' }] },
    });
    expect(ast.actions[4]).toMatchObject({ kind: 'subtransform', className: 'X.Y', aux: 'k' });
    expect(ast.actions[5]).toMatchObject({ kind: 'code', text: ' Set x=1', textPos: { line: 7, column: 16 } });
  });

  it('uses the editor defaults for a bare document, the class defaults (0) for a class, and given overrides', () => {
    expect(parseTransform(T('')).parameters).toEqual({ IGNOREMISSINGSOURCE: 1, REPORTERRORS: 1, TREATEMPTYREPEATINGFIELDASNULL: 0, GENERATEEMPTYSEGMENTS: 0 });
    const cls = `Class A.B Extends Ens.DataTransformDTL\n{\nParameter REPORTERRORS = 1;\nXData DTL\n{\n${T('')}\n}\n}`;
    expect(parseTransform(cls).parameters).toEqual({ IGNOREMISSINGSOURCE: 0, REPORTERRORS: 1, TREATEMPTYREPEATINGFIELDASNULL: 0, GENERATEEMPTYSEGMENTS: 0 });
    expect(parseTransform(T(''), 'x', { parameters: { GENERATEEMPTYSEGMENTS: 1 } }).parameters.GENERATEEMPTYSEGMENTS).toBe(1);
  });

  it('names the document, line and column of an unknown element', () => {
    const d = diagnosticsOf(T(`<assign value='1' property='target.a'/>\n  <asign value='1'/>`));
    expect(d).toEqual([
      { document: 'doc.dtl', line: 3, column: 3, severity: 'error', message: expect.stringContaining('unknown element <asign> inside <transform>') },
    ]);
    expect(() => parseTransform(T('<bogus/>'), 'doc.dtl')).toThrow(/doc\.dtl:2:1: unknown element <bogus>/);
  });

  it('warns about unknown attributes and keeps going', () => {
    const ast = parseTransform(T(`<assign value='1' property='target.a' expanded='1' color='red'/>`));
    expect(ast.warnings).toEqual([{ pos: { line: 2, column: 52 }, message: 'unknown attribute "color" on <assign> is ignored' }]);
  });

  it('reports missing and bad attributes with their positions', () => {
    const d = diagnosticsOf(
      T(
        `<assign property='target.a'/>\n<assign value='1' property='target.a' action='move'/>\n<foreach property='source.{x()}'/>\n<if condition='1'><true/><true/></if>`,
        ` create='merge'`,
      ),
    );
    const messages = d.filter((x) => x.severity === 'error').map((x) => `${x.line}:${x.column} ${x.message}`);
    expect(messages).toEqual([
      `1:52 create must be new, copy or existing, found "merge"`,
      `2:1 <assign> needs the attribute "value"`,
      `3:47 unknown assign action "move" (expected set, clear, remove, append, insert)`,
      `4:1 <foreach> needs the attribute "key"`,
      `5:26 <if> has more than one <true>`,
    ]);
  });

  it('accepts remove and clear without a value', () => {
    const ast = parseTransform(T(`<assign property='target.{a}' action='remove'/>`));
    expect(ast.actions[0]).toMatchObject({ action: 'remove', value: '' });
  });

  it('refuses misplaced children and bad flag values', () => {
    const d = diagnosticsOf(
      T(
        `<if condition='1'><assign value='1' property='x'/></if>\n<switch><default/><case condition='1'/></switch>\n<assign value='1' property='x' disabled='maybe'><trace value='1'/></assign>`,
      ),
    );
    expect(d.map((x) => x.message)).toEqual([
      '<if> may only contain <true>, <false> and <annotation>, found <assign>',
      '<case> must come before <default>',
      'attribute "disabled" must be 1, 0, true or false, found "maybe"',
      '<assign> cannot contain <trace>',
    ]);
  });

  it('reports malformed XML and a wrong root as positioned errors', () => {
    expect(() => parseTransform(`<transform sourceClass='A' targetClass='B'>\n<assign value='1' property='x'>\n</transform>`, 'bad.xml')).toThrow(
      /bad\.xml:3:\d+: malformed XML/,
    );
    expect(() => parseTransform(`<transformation/>`, 'r.xml')).toThrow(/r\.xml:1:1: expected a <transform> root element/);
  });
});
