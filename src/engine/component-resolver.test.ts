import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { newItem } from '../core/production.ts';
import { newBinding } from '../store/conformance/harness.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { ComponentResolver } from './component-resolver.ts';
import { EchoOperation } from './builtin/echo-operation.ts';

describe('ComponentResolver on a real SQLite store', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let code: string;
  let resolver: ComponentResolver;

  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ sqlitePath: join(dir.path, 'conveyor.db') });
    code = join(dir.path, 'code');
    mkdirSync(join(code, 'pkg'), { recursive: true });
    writeFileSync(join(code, 'bo.py'), 'class MyOperation: pass\n');
    resolver = new ComponentResolver(store, 'USER', undefined);
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  async function rejection(classname: string): Promise<unknown> {
    return resolver.resolve(classname).then(
      () => null,
      (e: unknown) => e,
    );
  }

  it('resolves a built-in class without the store; built-in services are polled', async () => {
    const echo = await resolver.resolve('Conveyor.Operation.Echo');
    expect(echo).toMatchObject({ kind: 'operation', polling: false, fingerprint: 'builtin' });
    expect(echo.factory.create()).toBeInstanceOf(EchoOperation);
    expect(await resolver.resolve('Conveyor.Service.Ticker')).toMatchObject({ kind: 'service', polling: true });
  });

  it('refuses a class registered nowhere with ERR_CLASS_NOT_FOUND and a hint to register it', async () => {
    const error = await rejection('Python.Nope');
    expect(isConveyorError(error, 'ERR_CLASS_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toBe('Class Python.Nope is not registered in namespace USER');
    expect((error as { hint?: string }).hint).toMatch(/settings\.py/);
  });

  it('refuses a registered class without a Python module and class', async () => {
    await store.classes.put('USER', newBinding('Python.Half', { module: null, classpaths: [code] }));
    const error = await rejection('Python.Half');
    expect(isConveyorError(error, 'ERR_CLASS_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toBe('Class Python.Half has no Python module and class to run');
  });

  it('resolves a registered Python operation, not polled', async () => {
    await store.classes.put('USER', newBinding('Python.MyBo', { classpaths: [code] }));
    expect(await resolver.resolve('Python.MyBo')).toMatchObject({ kind: 'operation', polling: false });
  });

  it('changes the fingerprint when the module file changes, so Update restarts only changed items', async () => {
    await store.classes.put('USER', newBinding('Python.MyBo', { classpaths: [join(dir.path, 'elsewhere'), code] }));
    const before = (await resolver.resolve('Python.MyBo')).fingerprint;
    expect((await resolver.resolve('Python.MyBo')).fingerprint).toBe(before);
    writeFileSync(join(code, 'bo.py'), 'class MyOperation:\n    changed = True\n');
    utimesSync(join(code, 'bo.py'), new Date(), new Date(Date.now() + 5000));
    expect((await resolver.resolve('Python.MyBo')).fingerprint).not.toBe(before);
  });

  it('finds a package module (pkg/__init__.py) for the fingerprint, and falls back to the registration time without a file', async () => {
    writeFileSync(join(code, 'pkg', '__init__.py'), 'class A: pass\n');
    await store.classes.put('USER', newBinding('Python.Pkg', { module: 'pkg', classpaths: [code], updatedAt: 42 }));
    await store.classes.put('USER', newBinding('Python.Gone', { module: 'gone', classpaths: [code], updatedAt: 42 }));
    const [pkg, gone] = [await resolver.resolve('Python.Pkg'), await resolver.resolve('Python.Gone')];
    expect(pkg.fingerprint).not.toBe(gone.fingerprint);
    expect(gone.fingerprint).toMatch(/^\d+$/);
  });

  it('polls a Python service only when its adapter is an inbound adapter', async () => {
    await store.classes.put('USER', newBinding('Python.Polled', { kind: 'service', adapterType: 'Ens.InboundAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.Pushed', { kind: 'service', adapterType: null, classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.MyAdapter', { kind: 'inbound_adapter', module: 'bo', className: 'MyAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.OwnAdapter', { kind: 'service', adapterType: 'Python.MyAdapter', classpaths: [code] }));
    expect((await resolver.resolve('Python.Polled')).polling).toBe(true);
    expect((await resolver.resolve('Python.Pushed')).polling).toBe(false);
    const own = await resolver.resolve('Python.OwnAdapter');
    expect(own.polling).toBe(true);
    expect(own.fingerprint).toContain('+');
  });

  it("polls a Python operation's inbound side (IoP's DuplexOperation) only when its adapter is an inbound adapter", async () => {
    await store.classes.put('USER', newBinding('Python.DuplexBo', { kind: 'operation', adapterType: 'Ens.InboundAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.OutboundBo', { kind: 'operation', adapterType: 'EnsLib.HTTP.OutboundAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.MyAdapter', { kind: 'inbound_adapter', module: 'bo', className: 'MyAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.DuplexOwn', { kind: 'operation', adapterType: 'Python.MyAdapter', classpaths: [code] }));
    expect(await resolver.resolve('Python.DuplexBo')).toMatchObject({ kind: 'operation', polling: true });
    expect((await resolver.resolve('Python.OutboundBo')).polling).toBe(false);
    expect((await resolver.resolve('Python.DuplexOwn')).polling).toBe(true);
  });

  it('refuses a component whose adapter is an IRIS adapter Conveyor does not provide, or is not registered, naming it', async () => {
    await store.classes.put('USER', newBinding('Python.Mailer', { kind: 'operation', adapterType: 'EnsLib.EMail.OutboundAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.Orphan', { kind: 'service', adapterType: 'Python.Gone', classpaths: [code] }));
    await expect(resolver.resolve('Python.Mailer')).rejects.toThrow(
      'Class Python.Mailer names the adapter EnsLib.EMail.OutboundAdapter, an IRIS adapter Conveyor does not provide (docs/enslib.md)',
    );
    await expect(resolver.resolve('Python.Orphan')).rejects.toThrow(
      'Class Python.Orphan names the adapter Python.Gone, which is not registered in namespace USER',
    );
  });

  it("runs IRIS's file and HTTP adapters, polling the inbound one", async () => {
    await store.classes.put('USER', newBinding('Python.FileIn', { kind: 'service', adapterType: 'EnsLib.File.InboundAdapter', classpaths: [code] }));
    await store.classes.put('USER', newBinding('Python.FileOut', { kind: 'operation', adapterType: 'EnsLib.File.OutboundAdapter', classpaths: [code] }));
    expect((await resolver.resolve('Python.FileIn')).polling).toBe(true);
    expect((await resolver.resolve('Python.FileOut')).polling).toBe(false);
  });

  it('checks only JSON test bodies against Python (native and empty bodies need no worker)', async () => {
    const item = newItem('Echo', 'Conveyor.Operation.Echo');
    await expect(
      resolver.checkTestMessage({ production: 'P', item }, { classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"x"}' }),
    ).resolves.toBeUndefined();
    await expect(resolver.checkTestMessage({ production: 'P', item }, { classname: 'Ens.Request', encoding: 'empty', data: '' })).resolves.toBeUndefined();
  });
});
