/**
 * Every wait on a real Python worker has a budget that fires: a hook that never returns, an on_init
 * that never returns, and a worker that never greets are ended, and the caller gets ERR_TIMEOUT.
 * Time the engine spends serving the hook's own ops does not count against the hook.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentInstance } from '../core/component.ts';
import { isConveyorError } from '../core/errors.ts';
import { componentsDir, json, stringRequest, TestCall, TestContext } from '../../test/fixtures/python/harness.ts';
import { pythonComponentFactory, type BridgeTimeouts } from './index.ts';
import { processExists } from '../core/process-exists.ts';

const started: ComponentInstance[] = [];

function create(className: string, timeouts: Partial<BridgeTimeouts>, interpreter?: string): ComponentInstance {
  const instance = pythonComponentFactory({ module: 'bo', className, classpaths: [componentsDir], timeouts, interpreter }).create();
  started.push(instance);
  return instance;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop(2000)));
});

describe('python bridge timeouts', () => {
  it('ends a worker whose on_message never returns: ERR_TIMEOUT for the call, onExit for the host', async () => {
    const op = create('SpinningOperation', { callMs: 500 });
    await op.init(new TestContext('Spin', 'operation'));
    const pid = (op as unknown as { pid: number }).pid;
    const exits: string[] = [];
    op.onExit((reason) => exits.push(reason));
    const failure = await op.onMessage(stringRequest('x'), new TestCall({})).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_TIMEOUT')).toBe(true);
    expect((failure as Error).message).toBe(`The Python worker ${pid} did not run on_message of bo.SpinningOperation within 500 ms; it was ended`);
    await expect.poll(() => !processExists(pid), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => exits).toEqual([`Python worker ${pid} was ended because it did not run on_message of bo.SpinningOperation within 500 ms`]);
  });

  it('ends a worker whose on_init never returns, rejecting init with ERR_TIMEOUT', async () => {
    const op = create('SpinningInitOperation', { initMs: 500 });
    const failure = await op.init(new TestContext('SpinInit', 'operation')).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_TIMEOUT')).toBe(true);
    expect((failure as Error).message).toMatch(/^The Python worker \d+ did not start bo\.SpinningInitOperation within 500 ms; it was ended$/);
    const pid = (op as unknown as { pid: number }).pid;
    await expect.poll(() => !processExists(pid), { timeout: 10_000 }).toBe(true);
  });

  it('ends an interpreter that never sends its hello frame', async () => {
    const silent = join(mkdtempSync(join(tmpdir(), 'conveyor-interp-')), 'python-silent');
    writeFileSync(silent, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const op = create('EchoOperation', { startMs: 500 }, silent);
    const failure = await op.init(new TestContext('Silent', 'operation')).catch((error: unknown) => error);
    expect(isConveyorError(failure, 'ERR_TIMEOUT')).toBe(true);
    expect((failure as Error).message).toMatch(/^The Python worker \d+ did not start within 500 ms; it was ended$/);
  });

  it('does not count the time the engine spends on a synchronous send of the hook', async () => {
    const slowEcho = async (body: Parameters<TestCall['sendSync']>[1]) => {
      // Longer than the hook's whole budget: only Python time counts.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const request = JSON.parse(body.data) as { integer: number; string: string };
      return json('message.SimpleMessage', { integer: request.integer + 1, string: 'slowly' });
    };
    const forwarding = create('ForwardingOperation', { callMs: 800 });
    await forwarding.init(new TestContext('Forward', 'operation'));
    const reply = await forwarding.onMessage(json('message.SimpleMessage', { integer: 1, string: 'x' }), new TestCall({ Echo: slowEcho }));
    expect(JSON.parse(reply!.data)).toEqual({ integer: 2, string: 'slowly' });
  });
});
