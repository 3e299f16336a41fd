import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import { componentContext, RecordingCall, textBody } from '../../../test/support/component-harness.ts';
import { TransformProcess } from './transform-process.ts';

/** A stand-in for the namespace's DTL service: upper-cases the data and names the transform. */
const upperCase = async (name: string, body: MessageBody): Promise<MessageBody> => ({
  classname: `out.${name}`,
  encoding: 'json',
  data: body.data.toUpperCase(),
});

async function initError(process: TransformProcess, options: Parameters<typeof componentContext>[0]): Promise<unknown> {
  return process.init(componentContext({ configName: 'T', kind: 'process', ...options })).then(
    () => null,
    (e: unknown) => e,
  );
}

describe('Conveyor.Process.Transform', () => {
  it('refuses to start without the Transform setting, or on a host that offers no DTL', async () => {
    const noSetting = await initError(new TransformProcess(), { transform: upperCase });
    expect(isConveyorError(noSetting, 'ERR_CONFIG')).toBe(true);
    expect((noSetting as Error).message).toBe('Item T needs the setting Transform');
    const noDtl = await initError(new TransformProcess(), { host: { Transform: 'Demo.Map' } });
    expect(isConveyorError(noDtl, 'ERR_CONFIG')).toBe(true);
    expect((noDtl as Error).message).toBe('Item T: this host offers no DTL');
  });

  it('without targets, answers with the transformed message', async () => {
    const process = new TransformProcess();
    await process.init(componentContext({ kind: 'process', host: { Transform: 'Demo.Map' }, transform: upperCase }));
    const call = new RecordingCall(3);
    expect(await process.onMessage(textBody('{"a":"x"}'), call)).toEqual({ classname: 'out.Demo.Map', encoding: 'json', data: '{"A":"X"}' });
    expect(call.sent).toEqual([]);
  });

  it('sends the transformed message to each target in order and answers with the last reply', async () => {
    const process = new TransformProcess();
    await process.init(componentContext({ kind: 'process', host: { Transform: 'Demo.Map', TargetConfigNames: 'A,B' }, transform: upperCase }));
    const call = new RecordingCall(3, 'in.json');
    call.answer = async (target) => textBody(`"${target}"`);
    expect(await process.onMessage(textBody('{"a":"x"}'), call)).toEqual(textBody('"B"'));
    expect(call.sent.map((s) => [s.target, s.body.data, s.description])).toEqual([
      ['A', '{"A":"X"}', 'in.json'],
      ['B', '{"A":"X"}', 'in.json'],
    ]);
  });

  it('fails the message, sending nothing, when the transform fails', async () => {
    const process = new TransformProcess();
    await process.init(
      componentContext({
        kind: 'process',
        host: { Transform: 'Demo.Broken', TargetConfigNames: 'A' },
        transform: () => Promise.reject(new Error('line 3: unknown function')),
      }),
    );
    const call = new RecordingCall(3);
    await expect(process.onMessage(textBody('{}'), call)).rejects.toThrow('line 3: unknown function');
    expect(call.sent).toEqual([]);
  });
});
