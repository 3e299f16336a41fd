import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall, textBody } from '../../../test/support/component-harness.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { stringRequest } from '../native-messages.ts';
import { FileOutboundOperation } from './file-outbound-operation.ts';

describe('Conveyor.Operation.FileOutbound', () => {
  let dir: ReturnType<typeof tempDir>;
  let outbox: string;
  beforeEach(() => {
    dir = tempDir();
    outbox = join(dir.path, 'out', 'nested');
  });
  afterEach(() => dir.remove());

  async function operation(): Promise<FileOutboundOperation> {
    const component = new FileOutboundOperation();
    await component.init(componentContext({ configName: 'Outbox', adapter: { FilePath: outbox } }));
    return component;
  }

  it('refuses to start without FilePath', async () => {
    const error = await new FileOutboundOperation().init(componentContext({ configName: 'Outbox' })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
  });

  it('writes the text of a string request to a file named after the description, answering nothing', async () => {
    const outbound = await operation();
    expect(await outbound.onMessage(stringRequest('hello'), new RecordingCall(9, 'greeting.txt'))).toBeNull();
    expect(readFileSync(join(outbox, 'greeting.txt'), 'utf8')).toBe('hello');
  });

  it('writes the raw data of other bodies, and names the file after the message id without a description', async () => {
    const outbound = await operation();
    await outbound.onMessage(textBody('{"n":1}'), new RecordingCall(42));
    expect(readFileSync(join(outbox, 'message-42.txt'), 'utf8')).toBe('{"n":1}');
  });

  it('keeps the file inside FilePath when the description is a path', async () => {
    const outbound = await operation();
    await outbound.onMessage(stringRequest('x'), new RecordingCall(1, '../../escape.txt'));
    expect(readdirSync(outbox)).toEqual(['escape.txt']);
    expect(readdirSync(join(dir.path, 'out'))).toEqual(['nested']);
  });

  it('replaces a file of the same name whole and leaves no temporary file behind', async () => {
    const outbound = await operation();
    await outbound.onMessage(stringRequest('a much longer first text'), new RecordingCall(1, 'same.txt'));
    await outbound.onMessage(stringRequest('short'), new RecordingCall(2, 'same.txt'));
    expect(readFileSync(join(outbox, 'same.txt'), 'utf8')).toBe('short');
    expect(readdirSync(outbox)).toEqual(['same.txt']);
  });
});
