/**
 * The Python of DTL transforms through the bridge (real python3 workers): printed output never
 * reaches the result, an action that never ends is ended by its budget, and a raised exception
 * arrives structured, at the line of the action's code.
 */
import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { isPythonError, type PythonError } from '../bridge/index.ts';
import type { PythonRequest } from '../dtl/index.ts';
import { pythonRunner } from './dtl-python.ts';

/** An expression whose value is the worker's process id. */
const pid = '__import__("os").getpid()';

function request(mode: 'eval' | 'exec', code: string, source: PythonRequest['source'] = {}): PythonRequest {
  return { mode, code, imports: 'import math', source, target: {}, aux: '', locals: { factor: 3 } };
}

describe('DTL Python through the worker host', () => {
  it('keeps what the code prints out of the result', async () => {
    const printed: string[] = [];
    const run = pythonRunner(undefined, { onOutput: (stream, line) => printed.push(`${stream}: ${line}`) });
    const block = `print("not a result")
print('{"value": "forged"}')
import sys
print("to stderr", file=sys.stderr)
target.SetValueAt(source.GetValueAt("n") * factor, "n")
seen = math.floor(2.5)`;
    const result = await run(request('exec', block, { n: 7 }));
    expect(result).toEqual({ target: { n: 21 }, locals: { factor: 3, seen: 2 } });
    const value = await run(request('eval', 'print("side effect") or factor * 2'));
    expect(value).toEqual({ value: 6 });
    await expect
      .poll(() => printed)
      .toEqual(expect.arrayContaining(['stdout: not a result', 'stdout: {"value": "forged"}', 'stderr: to stderr', 'stdout: side effect']));
  });

  it('ends an action that never finishes, and the next action runs in a fresh worker', async () => {
    const run = pythonRunner(undefined, { timeoutMs: 1000, onOutput: () => undefined });
    const before = await run(request('eval', pid));
    const error = await run(request('exec', 'while True:\n    pass')).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_TIMEOUT')).toBe(true);
    expect((error as Error).message).toBe(`The Python worker ${String(before.value)} did not run the Python of a DTL action within 1000 ms; it was ended`);
    const after = await run(request('eval', pid));
    expect(after.value).not.toBe(before.value);
  });

  it('raises a Python exception with its type, message, traceback and the line of the code', async () => {
    const run = pythonRunner(undefined, { onOutput: () => undefined });
    const error = await run(request('exec', 'x = 1\ny = x / 0\n')).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_DTL')).toBe(true);
    expect(isPythonError(error)).toBe(true);
    expect((error as Error).message).toBe('ZeroDivisionError: division by zero (at <dtl python>:2 in <module>)');
    const failure = (error as PythonError).failure;
    expect(failure).toMatchObject({
      type: 'ZeroDivisionError',
      message: 'division by zero',
      step: 'dtl',
      userFrame: { file: '<dtl python>', line: 2, function: '<module>' },
    });
    expect(failure.traceback).toContain('ZeroDivisionError: division by zero');
  });

  it('runs concurrent actions side by side, each with its own answer', async () => {
    const run = pythonRunner(undefined, { onOutput: () => undefined });
    const answers = await Promise.all([1, 2, 3, 4].map((n) => run(request('eval', `source.GetValueAt("n") * factor`, { n }))));
    expect(answers).toEqual([{ value: 3 }, { value: 6 }, { value: 9 }, { value: 12 }]);
  });

  it('refuses a value JSON cannot carry with a clear failure, and the worker lives on', async () => {
    const run = pythonRunner(undefined, { onOutput: () => undefined });
    const before = await run(request('eval', pid));
    const error = await run(request('eval', '{1, 2}')).catch((e: unknown) => e);
    expect(isPythonError(error)).toBe(true);
    expect((error as Error).message).toBe('TypeError: Object of type set is not JSON serializable');
    expect(await run(request('eval', 'sorted({2, 1})'))).toEqual({ value: [1, 2] });
    expect(await run(request('eval', pid))).toEqual(before);
  });
});
