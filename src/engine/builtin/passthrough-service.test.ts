import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall } from '../../../test/support/component-harness.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { PassthroughService } from './passthrough-service.ts';
import { streamContent } from './stream-container.ts';

describe('EnsLib.File.PassthroughService', () => {
  let dir: ReturnType<typeof tempDir>;
  let inbox: string;
  beforeEach(() => {
    dir = tempDir();
    inbox = join(dir.path, 'in');
  });
  afterEach(() => dir.remove());

  async function service(adapter: Record<string, string> = {}): Promise<PassthroughService> {
    const component = new PassthroughService();
    await component.init(
      componentContext({ configName: 'FileIn', kind: 'service', adapter: { FilePath: inbox, ...adapter }, host: { TargetConfigNames: 'A, B' } }),
    );
    return component;
  }

  const sent = (call: RecordingCall): Array<[string, string, string, string]> =>
    call.sent.map((s) => {
      const { originalFilename, content } = streamContent(s.body);
      return [s.target, s.description ?? '', originalFilename, content.toString('latin1')];
    });

  it('refuses to start without FilePath, naming the item', async () => {
    const error = await new PassthroughService().init(componentContext({ configName: 'FileIn', kind: 'service' })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
    expect((error as Error).message).toBe('Item FileIn needs the setting FilePath');
  });

  it('sends each file matching one of the FileSpec patterns as a stream container to every target, then deletes it', async () => {
    const inbound = await service({ FileSpec: '*.txt;*.bin' });
    writeFileSync(join(inbox, 'b.bin'), Buffer.from([0, 0xff, 0x0d, 0x0a]));
    writeFileSync(join(inbox, 'a.txt'), 'first');
    writeFileSync(join(inbox, 'skip.csv'), 'no');
    writeFileSync(join(inbox, '.partial.txt'), 'being written');
    mkdirSync(join(inbox, 'folder.txt'));
    const call = new RecordingCall();
    expect(await inbound.onProcessInput(null, call)).toBeNull();
    expect(call.sent.every((s) => s.mode === 'async' && s.body.classname === 'Ens.StreamContainer')).toBe(true);
    expect(sent(call)).toEqual([
      ['A', 'a.txt', 'a.txt', 'first'],
      ['B', 'a.txt', 'a.txt', 'first'],
      ['A', 'b.bin', 'b.bin', '\u0000\u00ff\r\n'],
      ['B', 'b.bin', 'b.bin', '\u0000\u00ff\r\n'],
    ]);
    expect(readdirSync(inbox).sort()).toEqual(['.partial.txt', 'folder.txt', 'skip.csv']);
  });

  it('moves sent files to ArchivePath, keeping an archived file of the same name', async () => {
    const archive = join(dir.path, 'archive');
    const inbound = await service({ ArchivePath: archive });
    writeFileSync(join(inbox, 'a.txt'), 'one');
    await inbound.onProcessInput(null, new RecordingCall());
    writeFileSync(join(inbox, 'a.txt'), 'two');
    await inbound.onProcessInput(null, new RecordingCall());
    expect(readdirSync(inbox)).toEqual([]);
    const archived = readdirSync(archive).sort();
    expect(archived).toHaveLength(2);
    expect(archived[0]).toBe('a.txt');
    expect(archived[1]).toMatch(/^a\.txt_\d{4}-\d\d-\d\d_\d\d\.\d\d\.\d\d\.\d{3}$/);
    expect(archived.map((name) => readFileSync(join(archive, name), 'utf8')).sort()).toEqual(['one', 'two']);
  });

  it('keeps a file whose request was not accepted; the next poll sends it again', async () => {
    const inbound = await service();
    writeFileSync(join(inbox, 'a.txt'), 'first');
    const refused = new RecordingCall();
    refused.refuseAsync = new Error('store closed');
    await expect(inbound.onProcessInput(null, refused)).rejects.toThrow('store closed');
    expect(readdirSync(inbox)).toEqual(['a.txt']);
    const next = new RecordingCall();
    await inbound.onProcessInput(null, next);
    expect(sent(next).map((s) => s[3])).toEqual(['first', 'first']);
    expect(readdirSync(inbox)).toEqual([]);
  });

  it('with WorkPath, works on the file there and sends a file a crash left in WorkPath again first', async () => {
    const work = join(dir.path, 'work');
    const inbound = await service({ WorkPath: work });
    writeFileSync(join(work, 'interrupted.txt'), 'left by a crash');
    writeFileSync(join(inbox, 'new.txt'), 'new');
    const refused = new RecordingCall();
    refused.refuseAsync = new Error('store closed');
    await expect(inbound.onProcessInput(null, refused)).rejects.toThrow('store closed');
    expect(readdirSync(work)).toEqual(['interrupted.txt']);
    const call = new RecordingCall();
    await inbound.onProcessInput(null, call);
    expect(sent(call).map((s) => `${s[0]}:${s[2]}`)).toEqual(['A:interrupted.txt', 'B:interrupted.txt', 'A:new.txt', 'B:new.txt']);
    expect(readdirSync(work)).toEqual([]);
    expect(readdirSync(inbox)).toEqual([]);
  });
});
