import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.ts';
import { checkMessageClass } from './message-class-check.ts';

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
  afterAll(() => dir.remove());
  const json = (classname: string, data: string) => ({ classname, encoding: 'json' as const, data });

  it('accepts a body its class can be built from, whatever the module prints', async () => {
    await expect(checkMessageClass(json('probe_msg.Order', '{"item":"pen","count":2}'), [dir.path], 'python3')).resolves.toBeUndefined();
  });

  it('refuses an unknown class or module with ERR_CLASS_NOT_FOUND naming it', async () => {
    await expect(checkMessageClass(json('probe_msg.Nope', '{}'), [dir.path], 'python3')).rejects.toMatchObject({ code: 'ERR_CLASS_NOT_FOUND', message: expect.stringMatching(/probe_msg\.Nope/) });
    await expect(checkMessageClass(json('absent_module.Order', '{}'), [dir.path], 'python3')).rejects.toMatchObject({ code: 'ERR_CLASS_NOT_FOUND' });
  });

  it('refuses a body the class does not accept with ERR_INVALID_INPUT', async () => {
    await expect(checkMessageClass(json('probe_msg.Order', '{"count":2}'), [dir.path], 'python3')).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', message: expect.stringMatching(/probe_msg\.Order/) });
  });

  it('gives up on a module whose import never finishes', async () => {
    await expect(checkMessageClass(json('slow_msg.Order', '{}'), [dir.path], 'python3', 500)).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
  });

  it('leaves native and empty bodies alone (no Python needed)', async () => {
    await expect(checkMessageClass({ classname: 'Ens.Request', encoding: 'empty', data: '' }, [], '/nonexistent/python')).resolves.toBeUndefined();
  });
});
