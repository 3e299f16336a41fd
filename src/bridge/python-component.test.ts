import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentInstance } from '../core/component.ts';
import { isConveyorError } from '../core/errors.ts';
import { componentsDir, json, stringRequest, TestCall, TestContext } from '../../test/fixtures/python/harness.ts';
import { pythonComponentFactory } from './index.ts';

const started: ComponentInstance[] = [];

async function start(className: string, context: TestContext, module = 'bo'): Promise<ComponentInstance> {
  const instance = pythonComponentFactory({ module, className, classpaths: [componentsDir] }).create();
  started.push(instance);
  await instance.init(context);
  return instance;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop(2000)));
});

describe('python component: messages and dispatch', () => {
  it('dispatches a JSON message to its typed handler and answers compact JSON', async () => {
    const echo = await start('EchoOperation', new TestContext('Echo', 'operation'));
    const reply = await echo.onMessage(json('message.SimpleMessage', { integer: 1, string: 'test' }), new TestCall({}));
    expect(reply).toEqual({ classname: 'message.SimpleMessage', encoding: 'json', data: '{"integer":2,"string":"handled"}' });
  });

  it('dispatches a native Ens.StringRequest through a string annotation and logs with the calling method', async () => {
    const context = new TestContext('Echo', 'operation');
    const echo = await start('EchoOperation', context);
    const call = new TestCall({});
    const reply = await echo.onMessage(stringRequest('héllo'), call);
    expect(reply).toEqual({ classname: 'Ens.StringResponse', encoding: 'native', data: '{"StringValue":"héllo"}' });
    const entry = await context.waitForLog((l) => l.text === 'got héllo');
    expect(entry).toMatchObject({ type: 'Info', sourceClass: 'EchoOperation', sourceMethod: 'handle_string' });
    expect(entry.call).toBe(call);
  });

  it('falls back to on_message for an unmatched class and keeps extra attributes and coerced types', async () => {
    const echo = await start('EchoOperation', new TestContext('Echo', 'operation'));
    const typed = json('message.TypedMessage', { when: '2024-05-06T07:08:09', amount: '12.50', count: '7', tags: ['a'], extra: { kept: true } });
    const reply = await echo.onMessage(typed, new TestCall({}));
    expect(JSON.parse(reply!.data)).toEqual({ when: '2024-05-06T07:08:09', amount: '12.50', count: 7, tags: ['a'], note: null, extra: { kept: true } });
    const empty = await echo.onMessage({ classname: 'Ens.Request', encoding: 'empty', data: '' }, new TestCall({}));
    expect(empty).toEqual({ classname: 'Ens.Request', encoding: 'empty', data: '' });
  });

  it('round-trips Japanese text and a 4 MB string', async () => {
    const echo = await start('EchoOperation', new TestContext('Echo', 'operation'));
    const japanese = 'こんにちは世界、メッセージのテスト';
    const big = 'x'.repeat(4 * 1024 * 1024) + japanese;
    const reply = await echo.onMessage(json('message.MyResponse', { value: big }), new TestCall({}));
    expect(JSON.parse(reply!.data).value).toBe(big);
    const small = await echo.onMessage(json('message.SimpleMessage', { integer: 1, string: japanese }), new TestCall({}));
    expect(small!.data).toBe('{"integer":2,"string":"handled"}');
    const native = await echo.onMessage(stringRequest(japanese), new TestCall({}));
    expect(JSON.parse(native!.data)).toEqual({ StringValue: japanese });
  });

  it('lets a component call another item synchronously', async () => {
    const echo = await start('EchoOperation', new TestContext('Echo', 'operation'));
    const forwarding = await start(
      'ForwardingOperation',
      new TestContext('Forward', 'operation', undefined, { Echo: (body, call) => echo.onMessage(body, call) }),
    );
    const call = new TestCall({ Echo: (body, inner) => echo.onMessage(body, inner) });
    const reply = await forwarding.onMessage(json('message.SimpleMessage', { integer: 41, string: 'x' }), call);
    expect(JSON.parse(reply!.data)).toEqual({ integer: 42, string: 'handled' });
    expect(call.syncSent.map((s) => s.target)).toEqual(['Echo']);
  });
});

describe('python component: instances', () => {
  it('honours the item-level overrides %module, %classname and %classpaths', async () => {
    const settings = { host: { '%classpaths': `/nonexistent|${componentsDir}`, '%module': 'bo', '%classname': 'EchoOperation' }, adapter: {} };
    const instance = pythonComponentFactory({ module: 'elsewhere', className: 'Missing', classpaths: [] }).create();
    started.push(instance);
    await instance.init(new TestContext('Override', 'operation', settings));
    const reply = await instance.onMessage(json('message.SimpleMessage', { integer: 1, string: 'x' }), new TestCall({}));
    expect(JSON.parse(reply!.data)).toEqual({ integer: 2, string: 'handled' });
  });

  it('makes the instance without calling __init__ and tells the request its message id', async () => {
    const probe = await start('InitProbeOperation', new TestContext('Probe', 'operation'));
    const reply = await probe.onMessage(json('message.SimpleMessage', { integer: 1 }), new TestCall({}));
    expect(JSON.parse(reply!.data)).toEqual({ value: 'init_called=False id=1' });
  });
});

describe('python component: settings', () => {
  it('applies Host settings typed by the class before on_init; a None default stays None', async () => {
    const settings = { host: { my_str_var: 'bar', my_int_var: '1', my_float_var: '1.0', my_untyped_var: '1', my_flag: 'true', my_none_var: '' }, adapter: {} };
    const op = await start('MySettingOperation', new TestContext('Settings', 'operation', settings));
    const ask = async (name: string) => JSON.parse((await op.onMessage(stringRequest(name), new TestCall({})))!.data).value;
    expect(await ask('my_str_var')).toBe('str:bar');
    expect(await ask('init_saw')).toBe('str:bar');
    expect(await ask('my_int_var')).toBe('int:1');
    expect(await ask('my_float_var')).toBe('float:1.0');
    expect(await ask('my_untyped_var')).toBe('str:1');
    expect(await ask('my_flag')).toBe('bool:True');
    expect(await ask('my_none_var')).toBeNull();
  });

  it('keeps the class default without settings and applies %settings lines as strings', async () => {
    const settings = { host: { '%settings': 'extra_one=a=b\r\nmy_int_var=5' }, adapter: {} };
    const op = await start('MySettingOperation', new TestContext('Settings', 'operation', settings));
    const ask = async (name: string) => JSON.parse((await op.onMessage(stringRequest(name), new TestCall({})))!.data).value;
    expect(await ask('my_str_var')).toBe('str:foo');
    expect(await ask('extra_one')).toBe('str:a=b');
    expect(await ask('my_int_var')).toBe('str:5');
  });

  it('warns about a setting value that does not fit its type and still starts', async () => {
    const context = new TestContext('Settings', 'operation', { host: { my_int_var: 'many' }, adapter: {} });
    await start('MySettingOperation', context);
    const warning = await context.waitForLog((l) => l.type === 'Warning' && l.text.includes('my_int_var'));
    expect(warning.text).toContain("invalid literal for int() with base 10: 'many'");
  });
});

describe('python component: output and logging', () => {
  it('captures stdout as Info and stderr as Warning, and maps logger levels', async () => {
    const context = new TestContext('Noisy', 'operation');
    const op = await start('NoisyOperation', context);
    const call = new TestCall({});
    expect(await op.onMessage(stringRequest('x'), call)).toBeNull();
    const out = await context.waitForLog((l) => l.text === 'hello from stdout');
    expect(out).toMatchObject({ type: 'Info', sourceClass: 'NoisyOperation', sourceMethod: 'stdout' });
    const err = await context.waitForLog((l) => l.text === 'trouble on stderr');
    expect(err).toMatchObject({ type: 'Warning', sourceMethod: 'stderr' });
    expect(await context.waitForLog((l) => l.text === 'through the logger')).toMatchObject({
      type: 'Warning',
      sourceClass: 'NoisyOperation',
      sourceMethod: 'on_message',
    });
    expect(await context.waitForLog((l) => l.text === 'a trace')).toMatchObject({ type: 'Trace' });
    expect(await context.waitForLog((l) => l.text === 'an alert')).toMatchObject({ type: 'Alert' });
    expect(await context.waitForLog((l) => l.text === 'an error')).toMatchObject({ type: 'Error', sourceMethod: 'on_message' });
    expect(await context.waitForLog((l) => l.text === 'an assert')).toMatchObject({ type: 'Assert' });
    expect(await context.waitForLog((l) => l.text === 'a legacy warning')).toMatchObject({ type: 'Warning', sourceMethod: 'on_message' });
    expect(await context.waitForLog((l) => l.text === 'a debug record')).toMatchObject({ type: 'Trace', sourceMethod: 'on_message' });
    expect(context.logs.find((l) => l.text === 'to the console')).toBeUndefined();
    expect(context.logs.filter((l) => l.call === call).length).toBeGreaterThanOrEqual(7);
  });
});

describe('python component: failures', () => {
  it('rejects a handler exception with ERR_COMPONENT_FAILED and logs the traceback', async () => {
    const context = new TestContext('Failing', 'operation');
    const op = await start('FailingOperation', context);
    const failure = await op.onMessage(stringRequest('x'), new TestCall({})).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_COMPONENT_FAILED')).toBe(true);
    expect((failure as Error).message).toBe(
      'Exception in Python class: bo.FailingOperation - ValueError - this request is not welcome (at bo.py:71 in on_message)',
    );
    const logged = context.logs.find((l) => l.type === 'Error');
    expect(logged?.text).toContain('Traceback');
    expect(logged?.sourceMethod).toBe('on_message');
    // The worker survives a handler exception.
    await expect(op.onMessage(stringRequest('y'), new TestCall({}))).rejects.toThrow('this request is not welcome');
  });

  it('leaves the traceback out of the event log when %traceback is 0', async () => {
    const context = new TestContext('Failing', 'operation', { host: { '%traceback': '0' }, adapter: {} });
    const op = await start('FailingOperation', context);
    await expect(op.onMessage(stringRequest('x'), new TestCall({}))).rejects.toThrow('this request is not welcome');
    expect(context.logs.filter((l) => l.type === 'Error')).toEqual([]);
  });

  it('does not leave a worker running when killed while it starts', async () => {
    const instance = pythonComponentFactory({ module: 'bo', className: 'EchoOperation', classpaths: [componentsDir] }).create();
    const starting = instance.init(new TestContext('Echo', 'operation')).catch((error: unknown) => error);
    instance.kill();
    const failure = await starting;
    expect(isConveyorError(failure, 'ERR_BRIDGE')).toBe(true);
    expect((failure as Error).message).toBe('Echo (bo.EchoOperation) was stopped while its worker was starting');
    const pid = (instance as unknown as { pid: number | null }).pid;
    expect(pid).not.toBeNull();
    await expect
      .poll(() => {
        try {
          process.kill(pid!, 0);
          return 'alive';
        } catch {
          return 'gone';
        }
      })
      .toBe('gone');
  });

  it('rejects init with the traceback when on_init raises', async () => {
    const failure = await start('FailingInitOperation', new TestContext('Bad', 'operation')).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_COMPONENT_FAILED')).toBe(true);
    expect((failure as Error).message).toContain('Cannot start Bad (bo.FailingInitOperation): on_init raised: RuntimeError: cannot reach the database');
    expect((failure as Error).message).toContain('Traceback');
  });

  it('rejects init clearly when the module cannot be imported', async () => {
    const failure = await start('Unreachable', new TestContext('Bad', 'operation'), 'bad_import').catch((error: unknown) => error);
    expect((failure as Error).message).toContain("importing it failed: ModuleNotFoundError: No module named 'this_module_does_not_exist'");
  });

  it('rejects an unknown interpreter with ERR_BRIDGE and a hint', async () => {
    const instance = pythonComponentFactory({
      module: 'bo',
      className: 'EchoOperation',
      classpaths: [componentsDir],
      interpreter: '/nonexistent/python3',
    }).create();
    const failure = await instance.init(new TestContext('Echo', 'operation')).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_BRIDGE')).toBe(true);
    expect((failure as Error).message).toContain("Cannot start the Python interpreter '/nonexistent/python3'");
  });

  it('rejects a worker that speaks another protocol version, or ends before its handshake', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-interp-'));
    const impostor = join(dir, 'python-impostor');
    const hello =
      "import json,os,struct,time; p=json.dumps({'t':'hello','protocol':99,'pid':0,'python':'x'}).encode(); os.write(4, struct.pack('>II', len(p) + 4, len(p)) + p); time.sleep(30)";
    writeFileSync(impostor, `#!/bin/sh\nexec python3 -c "${hello}"\n`, { mode: 0o755 });
    const mismatch = pythonComponentFactory({ module: 'bo', className: 'EchoOperation', classpaths: [], interpreter: impostor }).create();
    const failure = await mismatch.init(new TestContext('Echo', 'operation')).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_BRIDGE')).toBe(true);
    expect((failure as Error).message).toContain('The Python worker speaks protocol 99, the engine 4');

    const quitter = join(dir, 'python-quitter');
    writeFileSync(quitter, '#!/bin/sh\necho "no python here" >&2\nexit 4\n', { mode: 0o755 });
    const early = pythonComponentFactory({ module: 'bo', className: 'EchoOperation', classpaths: [], interpreter: quitter }).create();
    const ended = await early.init(new TestContext('Echo', 'operation')).catch((error: unknown) => error);
    expect((ended as Error).message).toBe('The Python worker ended (exit code 4) before its handshake; last stderr:\nno python here');
  });

  it('rejects the pending call with ERR_BRIDGE and fires onExit when the worker dies mid-message', async () => {
    const op = await start('CrashingOperation', new TestContext('Crash', 'operation'));
    const exits: string[] = [];
    op.onExit((reason) => exits.push(reason));
    const failure = await op.onMessage(stringRequest('x'), new TestCall({})).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_BRIDGE')).toBe(true);
    expect((failure as Error).message).toMatch(/exited \(exit code 3\) while it was to run on_message of bo.CrashingOperation; last stderr:\nabout to die/);
    expect(exits).toHaveLength(1);
    expect(exits[0]).toContain('exit code 3');
  });

  it('fires onExit when the worker is SIGKILLed while idle, and not after a requested stop', async () => {
    const op = await start('EchoOperation', new TestContext('Echo', 'operation'));
    const exits: string[] = [];
    op.onExit((reason) => exits.push(reason));
    const pid = (op as unknown as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => exits.length).toBe(1);
    expect(exits[0]).toContain('signal SIGKILL');
    await expect(op.onMessage(stringRequest('x'), new TestCall({}))).rejects.toThrow('has already exited');

    const other = await start('EchoOperation', new TestContext('Echo2', 'operation'));
    const otherExits: string[] = [];
    other.onExit((reason) => otherExits.push(reason));
    await other.stop(2000);
    expect(otherExits).toEqual([]);
  });

  it('rejects the pending call with ERR_BRIDGE when the worker is SIGKILLed mid-message', async () => {
    const context = new TestContext('Slow', 'operation');
    const op = await start('SlowOperation', context);
    const exits: string[] = [];
    op.onExit((reason) => exits.push(reason));
    const pending = op.onMessage(stringRequest('x'), new TestCall({})).catch((error: unknown) => error);
    await context.waitForLog((l) => l.text === 'working');
    process.kill((op as unknown as { pid: number }).pid, 'SIGKILL');
    const failure = await pending;
    expect(isConveyorError(failure, 'ERR_BRIDGE')).toBe(true);
    expect((failure as Error).message).toContain('exited (signal SIGKILL) while it was to run on_message of bo.SlowOperation');
    expect(exits).toEqual([expect.stringContaining('exited unexpectedly (signal SIGKILL)')]);
  });

  it('kills a worker whose on_tear_down overruns the grace period', async () => {
    const op = await start('SlowOperation', new TestContext('Slow', 'operation'));
    const pid = (op as unknown as { pid: number }).pid;
    await op.stop(300);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('runs on_tear_down on stop', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'conveyor-teardown-')), 'marker.txt');
    const op = await start('TeardownOperation', new TestContext('Teardown', 'operation', { host: { marker_file: marker }, adapter: {} }));
    await op.stop(5000);
    expect(readFileSync(marker, 'utf8')).toBe('torn down');
  });
});
