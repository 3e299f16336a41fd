/**
 * The message check through a fresh real worker: a body the class accepts, an unknown class, a
 * body the class refuses, a module that prints at import, and one whose import never finishes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { componentsDir, json } from '../../test/fixtures/python/harness.ts';
import { defaultInterpreter } from './index.ts';
import { messageDecodeFailure, serializationErrorType } from './message-check.ts';

const check = (body: ReturnType<typeof json>, classpaths = [componentsDir], timeoutMs = 30_000) =>
  messageDecodeFailure(body, classpaths, defaultInterpreter(), timeoutMs);

describe('messageDecodeFailure', () => {
  it('answers null for a body its class accepts', async () => {
    expect(await check(json('message.SimpleMessage', { integer: 1, string: 'x' }))).toBeNull();
  });

  it("names an unknown class with IoP 4's MessageClassImportError (a SerializationError)", async () => {
    const failure = await check(json('message.NoSuchMessage', {}));
    expect(failure).toMatchObject({ type: 'MessageClassImportError', step: 'deserialize' });
    expect(failure?.message).toMatch(/^Failed to load class message\.NoSuchMessage: /);
  });

  it('gives the reason a class refuses the body, and ignores what the module prints', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'conveyor-check-'));
    writeFileSync(
      join(folder, 'strict.py'),
      'from dataclasses import dataclass\nfrom iop import Message\nprint(\'{"t": "result"}\')\n\n@dataclass\nclass Needy(Message):\n    must: int\n',
    );
    const failure = await check(json('strict.Needy', {}), [folder]);
    expect(failure).toMatchObject({ type: serializationErrorType, message: 'strict.Needy is missing the required field(s) must' });
    expect(await check(json('strict.Needy', { must: 1 }), [folder])).toBeNull();
  });

  it('ends a check whose module import never finishes', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'conveyor-check-'));
    writeFileSync(join(folder, 'stuck.py'), 'while True:\n    pass\n');
    const error = await check(json('stuck.Anything', {}), [folder], 1000).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_TIMEOUT')).toBe(true);
    expect((error as Error).message).toMatch(/^The Python worker \d+ did not check the message class stuck\.Anything within 1000 ms; it was ended$/);
  });
});
