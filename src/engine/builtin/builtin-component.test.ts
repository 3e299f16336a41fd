import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall, textBody } from '../../../test/support/component-harness.ts';
import { BuiltinComponent } from './builtin-component.ts';

/** A component that uses only the base class: what every built-in inherits. */
class Bare extends BuiltinComponent {
  read(name: string, fallback: string): string {
    return this.setting(name, fallback);
  }
  require(name: string): string {
    return this.requiredSetting(name);
  }
  targetList(): string[] {
    return this.targets();
  }
}

async function bare(options: Parameters<typeof componentContext>[0] = {}): Promise<Bare> {
  const component = new Bare();
  await component.init(componentContext({ configName: 'Bare1', ...options }));
  return component;
}

describe('BuiltinComponent', () => {
  it('refuses messages and process input it does not handle with ERR_COMPONENT_FAILED naming the item', async () => {
    const component = await bare();
    for (const call of [() => component.onMessage(textBody('{}'), new RecordingCall()), () => component.onProcessInput(null, new RecordingCall())]) {
      const error = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isConveyorError(error, 'ERR_COMPONENT_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/Bare \(item Bare1\) does not handle/);
    }
  });

  it('passes responses through on_response and on_complete', async () => {
    const component = await bare();
    const response = textBody('{"ok":true}');
    const asyncResponse = { callRequest: textBody('{}'), callResponse: response, completionKey: null };
    expect(await component.onResponse(textBody('{}'), response, asyncResponse, new RecordingCall())).toBe(response);
    expect(await component.onComplete(textBody('{}'), response, new RecordingCall())).toBe(response);
  });

  it('reads a Host setting before the Adapter setting of the same name, else the fallback', async () => {
    const component = await bare({ host: { A: 'host' }, adapter: { A: 'adapter', B: 'adapter-only' } });
    expect(component.read('A', 'x')).toBe('host');
    expect(component.read('B', 'x')).toBe('adapter-only');
    expect(component.read('C', 'fallback')).toBe('fallback');
  });

  it('refuses a missing or empty required setting with ERR_CONFIG naming the item and the setting', async () => {
    const component = await bare({ host: { Empty: '' } });
    for (const name of ['Missing', 'Empty']) {
      let error: unknown;
      try {
        component.require(name);
      } catch (e) {
        error = e;
      }
      expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
      expect((error as Error).message).toBe(`Item Bare1 needs the setting ${name}`);
    }
  });

  it('splits TargetConfigNames on commas, trimming blanks and dropping empty names', async () => {
    expect((await bare({ host: { TargetConfigNames: ' A, B ,,C , ' } })).targetList()).toEqual(['A', 'B', 'C']);
    expect((await bare()).targetList()).toEqual([]);
  });

  it('stops and is killed without error (nothing runs outside the server process)', async () => {
    const component = await bare();
    await expect(component.stop(10)).resolves.toBeUndefined();
    expect(() => component.kill()).not.toThrow();
  });
});
