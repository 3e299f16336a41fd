/**
 * End to end: a Python service sends a message of class A (messages.Order); the built-in transform
 * process maps it with a transform loaded from a `.cls` class file through the class-document API
 * (what `cli -i` uses) to class B (messages.Shipment); a Python operation receives a real B.
 * Python code can also run a stored transform itself (the SDK's `self.transform` and IoP's
 * `iris.cls(name).Transform`) and import a JSON schema (`IOP.Message.JSONSchema.Import`).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { eventually, tempDir } from '../support/temp-dir.ts';

const fixture = fileURLToPath(new URL('../fixtures/dtl-production/', import.meta.url));

describe('a DTL transform inside a Python production', () => {
  const dir = tempDir('conveyor-dtl-e2e-');
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.kill();
    dir.remove();
  });

  it('maps class A to class B between two Python components', async () => {
    const out = join(dir.path, 'shipment.json');
    server = await startServerProcess(join(dir.path, 'home'), [], { DTL_PRODUCTION_OUT: out });
    const files = readdirSync(fixture)
      .filter((name) => name.endsWith('.py'))
      .map((name) => ({ name, data: readFileSync(join(fixture, name), 'utf8') }));
    const migrated = await server.local('PUT', '/api/iop/migrate', { package: 'orders', body: files });
    expect(migrated.status, migrated.text).toBe(200);

    const cls = readFileSync(join(fixture, 'OrderToShipment.cls'), 'utf8').split('\n');
    const put = await server.local('PUT', '/api/atelier/v1/USER/doc/Demo.OrderToShipment.cls?ignoreConflict=1', { enc: false, content: cls });
    expect(put.status, put.text).toBeLessThan(300);
    const compiled = await server.local('POST', '/api/atelier/v1/USER/action/compile?flags=cuk', ['Demo.OrderToShipment.cls']);
    expect(compiled.status, compiled.text).toBe(200);
    expect((compiled.json as { status: { errors: unknown[] } }).status.errors).toEqual([]);

    const started = await server.local('POST', '/api/iop/start', { production: 'Demo.Orders' });
    expect(started.status, started.text).toBe(200);
    await eventually(() => existsSync(out), 'the operation to write what it received', 30_000);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ class: 'messages.Shipment', recipient: 'ADA', count: 3, first_item: 'gear' });

    // Python code runs the same stored transform itself: self.transform(...) and iris.cls(...).Transform(...).
    const converted = await server.local('POST', '/api/iop/test', {
      target: 'Converter',
      classname: 'messages.Order',
      body: { customer: 'Bob', items: ['axle', 'nut'] },
    });
    expect(converted.status, converted.text).toBe(200);
    const reply = converted.json as { classname: string; body: string };
    expect(reply.classname).toBe('messages.Shipment');
    expect(JSON.parse(reply.body)).toEqual({ recipient: 'BOB', count: 2, first_item: 'axle' });

    // A running component imports a JSON schema file (IoP's IOP.Message.JSONSchema.Import).
    const schemaFile = join(dir.path, 'thing.json');
    writeFileSync(schemaFile, JSON.stringify({ title: 'Thing', type: 'object', properties: { size: { type: 'number' } } }));
    const imported = await server.local('POST', '/api/iop/test', { target: 'SchemaImporter', classname: 'Ens.StringRequest', body: schemaFile });
    expect(imported.status, imported.text).toBe(200);
    const tree = await server.local('GET', '/api/iop/schemas/imported.Thing/tree');
    expect(tree.status, tree.text).toBe(200);
    expect(JSON.stringify(tree.json)).toContain('size');
  });
});
