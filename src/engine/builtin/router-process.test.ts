import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall, textBody } from '../../../test/support/component-harness.ts';
import { RouterProcess } from './router-process.ts';

describe('Conveyor.Process.Router', () => {
  it('refuses to start without TargetConfigNames', async () => {
    const error = await new RouterProcess().init(componentContext({ configName: 'R', kind: 'process', host: { TargetConfigNames: ' , ' } })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
    expect((error as Error).message).toBe('Item R needs the setting TargetConfigNames');
  });

  it('sends the request synchronously to each target in order, keeping the description, and answers with the last reply', async () => {
    const router = new RouterProcess();
    await router.init(componentContext({ kind: 'process', host: { TargetConfigNames: 'A,B' } }));
    const call = new RecordingCall(5, 'order-17.txt');
    call.answer = async (target) => textBody(`{"from":"${target}"}`);
    const request = textBody('{"n":1}');
    expect(await router.onMessage(request, call)).toEqual(textBody('{"from":"B"}'));
    expect(call.sent).toEqual([
      { mode: 'sync', target: 'A', body: request, description: 'order-17.txt' },
      { mode: 'sync', target: 'B', body: request, description: 'order-17.txt' },
    ]);
  });

  it('stops at the first target that fails, and fails the message with its error', async () => {
    const router = new RouterProcess();
    await router.init(componentContext({ kind: 'process', host: { TargetConfigNames: 'A,B' } }));
    const call = new RecordingCall(5);
    call.answer = () => Promise.reject(new Error('A is down'));
    await expect(router.onMessage(textBody('{}'), call)).rejects.toThrow('A is down');
    expect(call.sent.map((s) => s.target)).toEqual(['A']);
  });
});
