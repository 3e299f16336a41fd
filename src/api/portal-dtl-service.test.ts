import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { createDtlService } from './portal-dtl-service.ts';
import type { DtlService } from './portal-engine.ts';

const orderSchema = {
  type: 'object',
  title: 'Order',
  $defs: { Line: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer' } } } },
  properties: { number: { type: 'integer' }, customer: { type: 'string' }, lines: { type: 'array', items: { allOf: [{ $ref: '#/$defs/Line' }] } } },
};
const shipmentSchema = { type: 'object', title: 'Shipment', properties: { reference: { type: 'string' }, client: { type: 'string' }, skus: { type: 'array', items: { type: 'string' } } } };

const transform = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' sourceDocType='msg.Order' targetDocType='msg.Shipment' create='new' language='objectscript'>
<assign value='"SO-"_source.{number}' property='target.{reference}' action='set' />
<assign value='..Lookup("Clients",source.{customer})' property='target.{client}' action='set' />
<foreach property='source.{lines()}' key='k'>
<assign value='source.{lines(k).sku}' property='target.{skus()}' action='append' />
</foreach>
</transform>`;

let home: string;
let store: Store;
let dtl: DtlService;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'conveyor-dtl-service-'));
  store = await openStore({ sqlitePath: join(home, 'conveyor.db'), durability: 'normal' });
  dtl = createDtlService(store);
  await dtl.importSchema('USER', { package: 'msg', name: 'msg.Order', schema: orderSchema });
  const file = join(home, 'shipment.json');
  await writeFile(file, JSON.stringify(shipmentSchema));
  await dtl.importSchema('USER', { package: 'msg', name: 'msg.Shipment', path: file });
  await dtl.putLookup('USER', 'Clients', { ACME: 'Acme Corporation' });
});
afterAll(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

describe('the portal DTL service over a real SQLite store', () => {
  it('imports schemas from a document or a server path and builds their trees', async () => {
    expect(await dtl.listSchemas('USER')).toMatchObject([
      { name: 'msg.Order', category: 'msg' },
      { name: 'msg.Shipment', category: 'msg' },
    ]);
    const tree = await dtl.schemaTree('USER', 'msg.Order');
    expect(tree.map((node) => node.path)).toEqual(['number', 'customer', 'lines()']);
    expect(tree[2]!.children.map((node) => node.path)).toEqual(['lines().sku', 'lines().quantity']);
  });

  it('refuses a schema path that cannot be read or parsed, naming the file', async () => {
    await expect(dtl.importSchema('USER', { package: 'p', name: 'x', path: join(home, 'missing.json') })).rejects.toThrow(/Cannot read the schema file .*missing.json: ENOENT/);
    const bad = join(home, 'bad.json');
    await writeFile(bad, '{"type":');
    await expect(dtl.importSchema('USER', { package: 'p', name: 'x', path: bad })).rejects.toThrow(/bad.json is not valid JSON/);
  });

  it('stores versions, lists transforms with their header, and keeps the history', async () => {
    expect((await dtl.putTransform('USER', 'Demo.OrderToShipment', transform)).version).toBe(1);
    expect((await dtl.putTransform('USER', 'Demo.OrderToShipment', transform.replace('SO-', 'SHIP-'))).version).toBe(2);
    expect(await dtl.listTransforms('USER')).toMatchObject([{ name: 'Demo.OrderToShipment', sourceDocType: 'msg.Order', targetDocType: 'msg.Shipment', version: 2 }]);
    expect((await dtl.transformHistory('USER', 'Demo.OrderToShipment')).map((v) => v.version)).toEqual([1, 2]);
    expect((await dtl.getTransform('USER', 'Demo.OrderToShipment', 1)).source).toContain('"SO-"');
  });

  it('runs a stored transform with the lookup tables', async () => {
    const result = await dtl.runTransform('USER', { name: 'Demo.OrderToShipment' }, { json: { number: 7, customer: 'ACME', lines: [{ sku: 'A-1' }, { sku: 'B-7' }] } });
    expect(result).toEqual({ target: { reference: 'SHIP-7', client: 'Acme Corporation', skus: ['A-1', 'B-7'] }, targetClass: 'msg.Shipment', status: 'ok', errors: [], trace: [] });
  });

  it('reports positioned errors and schema warnings, and refuses to store an invalid transform', async () => {
    const broken = transform.replace("value='source.{lines(k).sku}'", "value='source.{lines(k).sku'");
    const diagnostics = await dtl.compileTransform('USER', broken);
    expect(diagnostics.some((d) => d.severity === 'error' && d.line === 5)).toBe(true);
    const unknownField = await dtl.compileTransform('USER', transform.replace('target.{client}', 'target.{customer}'));
    expect(unknownField).toEqual([expect.objectContaining({ severity: 'warning', line: 3 })]);
    expect(await dtl.compileTransform('USER', '<transform')).toEqual([expect.objectContaining({ severity: 'error', line: 1 })]);
    const failure = await dtl.putTransform('USER', 'Demo.Broken', broken).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_DTL')).toBe(true);
    expect((failure as Error).message).toMatch(/^Demo.Broken has 1 error\(s\); first at 5:/);
    await expect(dtl.getTransform('USER', 'Demo.Broken')).rejects.toThrow('No transform named Demo.Broken');
  });

  it('edits and deletes lookup tables with clear errors for unknown ones', async () => {
    expect(await dtl.lookupTables('USER')).toEqual(['Clients']);
    await expect(dtl.getLookup('USER', 'Nope')).rejects.toThrow('No lookup table named Nope');
    await dtl.putLookup('USER', 'Tmp', { a: '1' });
    await dtl.deleteLookup('USER', 'Tmp');
    await expect(dtl.deleteLookup('USER', 'Tmp')).rejects.toThrow('No lookup table named Tmp');
  });
});
