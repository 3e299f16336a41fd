/** The DTL editor's model operations (web/src/dtl/model.ts) on real src/dtl documents, and where its caret goes. */
import { describe, expect, it } from 'vitest';
import {
  actionAt,
  appendAction,
  diagnosticAction,
  diagnosticsAt,
  mapFields,
  mappingLinks,
  moveAction,
  newAction,
  newTransformXml,
  parseXml,
  removeAction,
  replaceAction,
  roundTrip,
  schemaPath,
  setParameters,
} from '../../web/src/dtl/model.ts';
import { caretOffset } from '../../web/src/components/text-position.ts';
import { parseLookupFile } from '../../web/src/lookup-file.ts';

function blank() {
  const { ast } = parseXml(newTransformXml('msg.Order', 'msg.Shipment'));
  if (!ast) throw new Error('the template must parse');
  return ast;
}

describe('DTL editor model', () => {
  it('starts from a template with the chosen doc types', () => {
    const ast = blank();
    expect([ast.sourceClass, ast.sourceDocType, ast.targetDocType, ast.create, ast.actions]).toEqual(['IOP.Message', 'msg.Order', 'msg.Shipment', 'new', []]);
  });

  it('maps a plain field with set, and a repeating target with append', () => {
    let ast = mapFields(blank(), 'customer', 'client');
    ast = mapFields(ast, 'customer', 'skus()');
    expect(ast.actions).toMatchObject([
      { kind: 'assign', value: 'source.{customer}', property: 'target.{client}', action: 'set' },
      { kind: 'assign', value: 'source.{customer}', property: 'target.{skus()}', action: 'append' },
    ]);
  });

  it('maps a field under a repeating source inside one foreach over that list, with a fresh key', () => {
    let ast = appendAction(blank(), [], { ...newAction('foreach'), property: 'source.{other()}', key: 'k1' } as never);
    ast = mapFields(ast, 'lines().sku', 'skus()');
    ast = mapFields(ast, 'lines().quantity', 'items().qty');
    const loop = ast.actions[1]!;
    expect(loop).toMatchObject({ kind: 'foreach', property: 'source.{lines()}', key: 'k2' });
    expect(loop.kind === 'foreach' && loop.actions).toMatchObject([
      { value: 'source.{lines(k2).sku}', property: 'target.{skus()}', action: 'append' },
      { value: 'source.{lines(k2).quantity}', property: 'target.{items(k2).qty}', action: 'set' },
    ]);
    expect(mappingLinks(ast.actions).map(({ source, target, path }) => [source, target, path.join('.')])).toEqual([
      ['lines().sku', 'skus()', '1.actions.0'],
      ['lines().quantity', 'items().qty', '1.actions.1'],
    ]);
  });

  it('round-trips through XML so actions get lines and diagnostics land on them', () => {
    const mapped = mapFields(mapFields(blank(), 'customer', 'client'), 'lines().sku', 'skus()');
    const broken = replaceAction(mapped, [0], { value: 'source.{customer' } as never);
    const trip = roundTrip(broken);
    expect(trip.xml.split('\n')[1]).toBe("<assign value='source.{customer' property='target.{client}' action='set' />");
    expect(trip.ast!.actions[0]!.pos.line).toBe(2);
    expect(trip.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line)).toEqual([2]);
  });

  it('moves, removes and appends inside containers without touching the original', () => {
    const original = mapFields(mapFields(blank(), 'customer', 'client'), 'number', 'reference');
    const moved = moveAction(original, [1], -1);
    expect(moved.actions.map((a) => a.kind === 'assign' && a.property)).toEqual(['target.{reference}', 'target.{client}']);
    expect(original.actions.map((a) => a.kind === 'assign' && a.property)).toEqual(['target.{client}', 'target.{reference}']);
    const withIf = appendAction(original, [], newAction('if'));
    const nested = appendAction(withIf, [2, 'whenFalse'], newAction('trace'));
    expect(nested.actions[2]).toMatchObject({ kind: 'if', whenFalse: [{ kind: 'trace' }] });
    expect(removeAction(nested, [0]).actions.map((a) => a.kind)).toEqual(['assign', 'if']);
    expect(roundTrip(nested).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('reads XML that does not parse as a positioned error', () => {
    const { ast, diagnostics } = parseXml("<transform sourceClass='A' targetClass='B'>\n<assign value='1' property='x'>\n</transform>");
    expect(ast).toBeNull();
    expect(diagnostics[0]).toMatchObject({ severity: 'error', line: 3 });
  });

  it('keeps a bare document bare while its parameters are those of bare XML, and makes it the class of the transform otherwise', () => {
    const ast = blank();
    expect(ast.parameters).toEqual({ IGNOREMISSINGSOURCE: 1, REPORTERRORS: 1, TREATEMPTYREPEATINGFIELDASNULL: 0, GENERATEEMPTYSEGMENTS: 0 });
    expect(roundTrip(setParameters(ast, 'Demo.Params', { ...ast.parameters })).xml).toMatch(/^<transform /);
    const changed = setParameters(ast, 'Demo.Params', { ...ast.parameters, REPORTERRORS: 0, GENERATEEMPTYSEGMENTS: 1 });
    expect(ast.className).toBeNull();
    const trip = roundTrip(changed, 'Demo.Params');
    expect(trip.xml).toMatch(/^Class Demo\.Params Extends Ens\.DataTransformDTL\n/);
    expect(trip.xml).toContain(
      'Parameter IGNOREMISSINGSOURCE = 1;\n\nParameter REPORTERRORS = 0;\n\nParameter TREATEMPTYREPEATINGFIELDASNULL = 0;\n\nParameter GENERATEEMPTYSEGMENTS = 1;',
    );
    expect(trip.ast).toMatchObject({ className: 'Demo.Params', parameters: changed.parameters, sourceDocType: 'msg.Order' });
    // Back to the bare values, it stays a class: its text may hold more than the transform (class methods).
    expect(roundTrip(setParameters(trip.ast!, 'Demo.Params', ast.parameters)).xml).toMatch(/^Class Demo\.Params /);
  });

  it('edits a class document as a class: its parameters, class methods and language survive a graphical change', () => {
    const cls = [
      'Class Demo.Helpers Extends Ens.DataTransformDTL',
      '{',
      'Parameter REPORTERRORS = 0;',
      'ClassMethod Double(x) As %Integer [ CodeMode = expression ]',
      '{',
      'x*2',
      '}',
      'XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]',
      '{',
      "<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='msg.Out' create='new' language='objectscript' >",
      "<assign value='..Double(2)' property='target.{n}' action='set' />",
      '</transform>',
      '}',
      '}',
    ].join('\n');
    const { ast } = parseXml(cls, 'Demo.Helpers');
    const python = { ...appendAction(ast!, [], newAction('trace')), language: 'python' as const, pythonImports: 'import math' };
    const trip = roundTrip(python, 'Demo.Helpers');
    expect(trip.xml).toContain('Parameter REPORTERRORS = 0;');
    expect(trip.xml).toContain('ClassMethod Double(x) [ CodeMode = expression ]\n{\nx*2\n}');
    expect(trip.ast).toMatchObject({ className: 'Demo.Helpers', language: 'python', pythonImports: 'import math', parameters: { REPORTERRORS: 0 } });
    expect(trip.ast!.actions.map((action) => action.kind)).toEqual(['assign', 'trace']);
  });

  it('leads a diagnostic to the action of the graph it is about', () => {
    const xml = [
      "<transform sourceClass='IOP.Message' targetClass='IOP.Message' targetDocType='msg.Out' create='new' language='objectscript' >",
      "<assign value='1' property='target.{a}' action='set' />",
      "<foreach property='source.{lines()}' key='k1' >",
      "  <assign value='source.{lines(k1)' property='target.{b()}' action='append' />",
      '</foreach>',
      '<switch >',
      "  <case condition='1' >",
      "    <trace value='\"x\"' bogus='1' />",
      '  </case>',
      '</switch>',
      '</transform>',
    ].join('\n');
    const { ast, diagnostics } = parseXml(xml);
    const error = diagnostics.find((d) => d.severity === 'error')!;
    expect(error).toMatchObject({ line: 4, position: '1.actions.0' });
    expect(diagnosticAction(ast!, error)).toBe('1.actions.0');
    expect(actionAt(ast!, '1.actions.0')).toMatchObject({ kind: 'assign', action: 'append' });
    // An action inside a switch is shown by its switch; so is the reader's warning on its line.
    expect(diagnosticAction(ast!, { ...error, position: '2.cases.0.actions.0' })).toBe('2');
    const unknownAttribute = diagnostics.find((d) => d.message.includes('bogus'))!;
    expect(unknownAttribute).toMatchObject({ line: 8, severity: 'warning' });
    expect(diagnosticAction(ast!, unknownAttribute)).toBe('2');
    expect(diagnosticAction(ast!, { line: 1, column: 1, severity: 'warning', message: 'the transform' })).toBeNull();
    expect(diagnosticAction(ast!, { ...error, position: '7' })).toBeNull();
    expect(diagnosticsAt(diagnostics, ast!.actions[1]!, '1')).toEqual([]);
    const loop = ast!.actions[1]!;
    expect(loop.kind === 'foreach' && diagnosticsAt(diagnostics, loop.actions[0]!, '1.actions.0')).toEqual([error]);
  });

  it('finds the caret offset of a line and column, clamped to the text', () => {
    const text = 'ab\ncdef\n\ng';
    expect(caretOffset(text, 1, 1)).toBe(0);
    expect(caretOffset(text, 2, 3)).toBe(5);
    expect(caretOffset(text, 2, 99)).toBe(7);
    expect(caretOffset(text, 4, 1)).toBe(9);
    expect(caretOffset(text, 9, 1)).toBe(9);
    expect(caretOffset(text, 0, 0)).toBe(0);
  });

  it('names schema paths the way the trees do', () => {
    expect(schemaPath('lines(k1).sku')).toBe('lines().sku');
    expect(schemaPath('a(1).b(k).c')).toBe('a().b().c');
  });
});

describe('lookup table files', () => {
  it('reads a JSON object or CSV key,value lines, and names a bad line', () => {
    expect(parseLookupFile('{"a": "1", "b": 2}')).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    expect(parseLookupFile('ACME, "Acme Corp, Ltd"\nX,y\n')).toEqual([
      { key: 'ACME', value: 'Acme Corp, Ltd' },
      { key: 'X', value: 'y' },
    ]);
    expect(() => parseLookupFile('a,1\nbroken')).toThrow('line 2 has no comma: write key,value');
  });
});
