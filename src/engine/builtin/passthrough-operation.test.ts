import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall } from '../../../test/support/component-harness.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { stringRequest } from '../native-messages.ts';
import { PassthroughOperation } from './passthrough-operation.ts';
import { streamContainer } from './stream-container.ts';

describe('EnsLib.File.PassthroughOperation', () => {
  let dir: ReturnType<typeof tempDir>;
  let out: string;
  beforeEach(() => {
    dir = tempDir();
    out = join(dir.path, 'out');
  });
  afterEach(() => dir.remove());

  async function operation(host: Record<string, string> = {}, adapter: Record<string, string> = {}): Promise<PassthroughOperation> {
    const component = new PassthroughOperation();
    await component.init(componentContext({ configName: 'FileOut', host, adapter: { FilePath: out, ...adapter } }));
    return component;
  }

  async function refusal(host: Record<string, string>, adapter: Record<string, string>): Promise<Error> {
    return operation(host, adapter).then(
      () => {
        throw new Error('started');
      },
      (e: unknown) => e as Error,
    );
  }

  it('writes the stream unchanged under IRIS default name %f_%Q', async () => {
    const bytes = Buffer.from([0, 1, 0xfe, 0xff, 10]);
    await (await operation()).onMessage(streamContainer('scan.bin', bytes), new RecordingCall(7));
    const [name] = readdirSync(out);
    expect(name).toMatch(/^scan\.bin_\d{4}-\d\d-\d\d_\d\d\.\d\d\.\d\d\.\d{3}$/);
    expect(readFileSync(join(out, name!)).equals(bytes)).toBe(true);
  });

  it('names files by the Filename setting; a string message takes its name from the description', async () => {
    const writer = await operation({ Filename: '%Y/%f.out' });
    await writer.onMessage(stringRequest('hello'), new RecordingCall(3, 'note.txt'));
    const year = String(new Date().getFullYear());
    expect(readFileSync(join(out, year, 'note.txt.out'), 'utf8')).toBe('hello');
    await writer.onMessage(stringRequest('no name'), new RecordingCall(9));
    expect(readFileSync(join(out, year, 'message-9.out'), 'utf8')).toBe('no name');
  });

  it('replaces a file of the same name by default and appends with Overwrite 0', async () => {
    const replacing = await operation({ Filename: 'fixed.txt' });
    await replacing.onMessage(streamContainer('a', Buffer.from('one')), new RecordingCall(1));
    await replacing.onMessage(streamContainer('a', Buffer.from('two')), new RecordingCall(2));
    expect(readFileSync(join(out, 'fixed.txt'), 'utf8')).toBe('two');
    const appending = await operation({ Filename: 'log.txt' }, { Overwrite: '0' });
    writeFileSync(join(out, 'log.txt'), 'a\n');
    await appending.onMessage(stringRequest('b\n'), new RecordingCall(3));
    expect(readFileSync(join(out, 'log.txt'), 'utf8')).toBe('a\nb\n');
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('writes the text of string messages in the Charset asked for', async () => {
    await (await operation({ Filename: 'l.txt' }, { Charset: 'latin1' })).onMessage(stringRequest('é'), new RecordingCall(1));
    expect([...readFileSync(join(out, 'l.txt'))]).toEqual([0xe9]);
  });

  it('refuses to start without FilePath, with an unknown Charset or an Overwrite that is not a flag', async () => {
    const missing = await new PassthroughOperation().init(componentContext({ configName: 'FileOut' })).then(
      () => null,
      (e: unknown) => e,
    );
    expect((missing as Error).message).toBe('Item FileOut needs the setting FilePath');
    const charset = await refusal({}, { Charset: 'klingon' });
    expect(isConveyorError(charset, 'ERR_CONFIG')).toBe(true);
    expect(charset.message).toMatch(/^Item FileOut: Charset klingon is not supported/);
    expect((await refusal({}, { Overwrite: 'maybe' })).message).toBe("Item FileOut: Overwrite must be 1 or 0 (true or false), not 'maybe'");
  });
});
