/**
 * The failure converter: how a structured Python failure reads, and that a real worker's exception
 * arrives with its type, message, traceback and user-code frame, raised as a PythonError.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentInstance } from '../core/component.ts';
import { ConveyorError, isConveyorError } from '../core/errors.ts';
import { componentsDir, stringRequest, TestCall, TestContext } from '../../test/fixtures/python/harness.ts';
import { describeFailure, engineFailure, isPythonError, PythonError, type PythonFailure } from './failure.ts';
import { pythonComponentFactory } from './index.ts';

const failure: PythonFailure = {
  type: 'ValueError',
  message: 'bad input',
  traceback: 'Traceback (most recent call last):\n  ...\nValueError: bad input\n',
  userFrame: { file: '/srv/conveyor/packages/demo/bo.py', line: 12, function: 'on_message' },
  step: 'on_message',
};

describe('failure converter', () => {
  it('reads as type, message and the user frame, naming the file without its folder', () => {
    expect(describeFailure(failure)).toBe('ValueError: bad input (at bo.py:12 in on_message)');
    expect(describeFailure({ ...failure, userFrame: null })).toBe('ValueError: bad input');
  });

  it('raises a ConveyorError that keeps the failure', () => {
    const error = new PythonError('ERR_COMPONENT_FAILED', 'Exception in Python class: bo.X - ValueError - bad input', failure);
    expect(isConveyorError(error, 'ERR_COMPONENT_FAILED')).toBe(true);
    expect(isPythonError(error)).toBe(true);
    expect(error.failure).toBe(failure);
    expect(isPythonError(new ConveyorError('ERR_BRIDGE', 'not from Python'))).toBe(false);
  });

  it('tells the worker an engine error by its code, and anything else as ERR_INTERNAL', () => {
    expect(engineFailure(new ConveyorError('ERR_ITEM_NOT_FOUND', 'No item named X'))).toEqual({ code: 'ERR_ITEM_NOT_FOUND', message: 'No item named X' });
    expect(engineFailure(new TypeError('boom'))).toEqual({ code: 'ERR_INTERNAL', message: 'boom' });
  });
});

describe('a real worker raising', () => {
  let instance: ComponentInstance | null = null;
  afterEach(async () => {
    await instance?.stop(2000);
  });

  it('crosses with type, message, traceback and the user frame, kind intact', async () => {
    instance = pythonComponentFactory({ module: 'bo', className: 'FailingOperation', classpaths: [componentsDir] }).create();
    await instance.init(new TestContext('Failing', 'operation'));
    const error = await instance.onMessage(stringRequest('x'), new TestCall({})).catch((e: unknown) => e);
    expect(isPythonError(error)).toBe(true);
    const crossed = (error as PythonError).failure;
    expect(crossed).toMatchObject({
      type: 'ValueError',
      message: 'this request is not welcome',
      userFrame: { file: `${componentsDir}/bo.py`, line: 71, function: 'on_message' },
      step: 'on_message',
    });
    expect(crossed.traceback).toMatch(
      /^Traceback \(most recent call last\):\n[\s\S]*bo\.py", line 71, in on_message\n[\s\S]*ValueError: this request is not welcome\n$/,
    );
  });

  it('names the user frame of an on_init failure in the start error', async () => {
    instance = pythonComponentFactory({ module: 'bo', className: 'FailingInitOperation', classpaths: [componentsDir] }).create();
    const error = await instance.init(new TestContext('Bad', 'operation')).catch((e: unknown) => e);
    expect(isPythonError(error)).toBe(true);
    expect((error as PythonError).failure).toMatchObject({ type: 'RuntimeError', step: 'on_init', userFrame: { line: 76, function: 'on_init' } });
    expect((error as Error).message).toMatch(
      /^Cannot start Bad \(bo\.FailingInitOperation\): on_init raised: RuntimeError: cannot reach the database \(at bo\.py:76 in on_init\)\nTraceback/,
    );
  });
});
