import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.ts';
import { checkMessageClass, forgetMessageCheckWorkers, maxConcurrentChecks } from './message-class-check.ts';

describe('checkMessageClass (a real python3 decodes the test body as the worker would)', () => {
  const dir = tempDir();
  writeFileSync(
    join(dir.path, 'probe_msg.py'),
    [
      'from dataclasses import dataclass',
      'from iop import Message',
      "print('noise printed at import')",
      '@dataclass',
      'class Order(Message):',
      '    item: str',
      '    count: int = 1',
    ].join('\n'),
  );
  writeFileSync(join(dir.path, 'slow_msg.py'), 'import time\ntime.sleep(60)\n');
  const pidsFile = join(dir.path, 'pids.txt');
  // Each interpreter that imports it writes its process id: how many python3 the checks started.
  writeFileSync(
    join(dir.path, 'counted_msg.py'),
    [
      'import os',
      'from dataclasses import dataclass',
      'from iop import Message',
      `with open(${JSON.stringify(pidsFile)}, 'a') as f: f.write(f'{os.getpid()}\\n')`,
      '@dataclass',
      'class Ping(Message):',
      '    text: str = ""',
    ].join('\n'),
  );
  afterAll(() => {
    forgetMessageCheckWorkers();
    dir.remove();
  });
  const json = (classname: string, data: string) => ({ classname, encoding: 'json' as const, data });

  it('accepts a body its class can be built from, whatever the module prints', async () => {
    await expect(checkMessageClass(json('probe_msg.Order', '{"item":"pen","count":2}'), [dir.path], 'python3')).resolves.toBeUndefined();
  });

  it('refuses an unknown class or module with ERR_CLASS_NOT_FOUND naming it', async () => {
    await expect(checkMessageClass(json('probe_msg.Nope', '{}'), [dir.path], 'python3')).rejects.toMatchObject({
      code: 'ERR_CLASS_NOT_FOUND',
      message: expect.stringMatching(/probe_msg\.Nope/),
    });
    await expect(checkMessageClass(json('absent_module.Order', '{}'), [dir.path], 'python3')).rejects.toMatchObject({ code: 'ERR_CLASS_NOT_FOUND' });
  });

  it('refuses a body the class does not accept with ERR_INVALID_INPUT', async () => {
    await expect(checkMessageClass(json('probe_msg.Order', '{"count":2}'), [dir.path], 'python3')).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: expect.stringMatching(/probe_msg\.Order/),
    });
  });

  it('gives up on a module whose import never finishes', async () => {
    await expect(checkMessageClass(json('slow_msg.Order', '{}'), [dir.path], 'python3', 500)).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
  });

  it('a burst of checks starts no python3 per call: at most maxConcurrentChecks workers, reused (M-4)', async () => {
    writeFileSync(pidsFile, '');
    const checks = Array.from({ length: 8 }, (_, n) => checkMessageClass(json('counted_msg.Ping', `{"text":"${n}"}`), [dir.path], 'python3'));
    await Promise.all(checks);
    await checkMessageClass(json('counted_msg.Ping', '{}'), [dir.path], 'python3');
    const pids = new Set(readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean));
    expect(pids.size).toBeGreaterThan(0);
    expect(pids.size).toBeLessThanOrEqual(maxConcurrentChecks);
  });

  it('a check that cannot get its turn within its timeout gives up (ERR_TIMEOUT) instead of waiting on', async () => {
    // Two checks stuck in an import that never finishes hold both turns for 3 s.
    const holding = Array.from({ length: maxConcurrentChecks }, () =>
      checkMessageClass(json('slow_msg.Order', '{}'), [dir.path], 'python3', 3000).catch(() => undefined),
    );
    await expect(checkMessageClass(json('probe_msg.Order', '{"item":"pen"}'), [dir.path], 'python3', 200)).rejects.toMatchObject({
      code: 'ERR_TIMEOUT',
      message: expect.stringMatching(/did not get its turn/),
    });
    await Promise.all(holding);
  });

  it('after forgetMessageCheckWorkers a changed message module is checked afresh', async () => {
    const module = (cls: string) =>
      ['from dataclasses import dataclass', 'from iop import Message', '@dataclass', `class ${cls}(Message):`, '    text: str = ""'].join('\n');
    writeFileSync(join(dir.path, 'changing_msg.py'), module('Old'));
    await checkMessageClass(json('changing_msg.Old', '{}'), [dir.path], 'python3');
    writeFileSync(join(dir.path, 'changing_msg.py'), module('New'));
    forgetMessageCheckWorkers();
    await expect(checkMessageClass(json('changing_msg.New', '{}'), [dir.path], 'python3')).resolves.toBeUndefined();
    await expect(checkMessageClass(json('changing_msg.Old', '{}'), [dir.path], 'python3')).rejects.toMatchObject({ code: 'ERR_CLASS_NOT_FOUND' });
  });

  it('leaves native and empty bodies alone (no Python needed)', async () => {
    await expect(checkMessageClass({ classname: 'Ens.Request', encoding: 'empty', data: '' }, [], '/nonexistent/python')).resolves.toBeUndefined();
  });
});
