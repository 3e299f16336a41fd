/** The DTL editor's model operations (web/src/dtl/model.ts) on real src/dtl documents. */
import { describe, expect, it } from 'vitest';
import {
  appendAction,
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
} from '../../web/src/dtl/model.ts';
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
