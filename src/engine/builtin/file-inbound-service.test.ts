import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { componentContext, RecordingCall } from '../../../test/support/component-harness.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { bodyText } from '../native-messages.ts';
import { FileInboundService, wildcardToRegExp } from './file-inbound-service.ts';

describe('wildcardToRegExp (FileSpec)', () => {
  it('matches * as any run of characters and ? as one, the whole name only', () => {
    const spec = wildcardToRegExp('order-*.t?t');
    expect(['order-1.txt', 'order-.tst', 'order-a.b.txt'].filter((name) => spec.test(name))).toEqual(['order-1.txt', 'order-.tst', 'order-a.b.txt']);
    expect(['order-1.txt.bak', 'xorder-1.txt', 'order-1.tt'].some((name) => spec.test(name))).toBe(false);
  });

  it('takes regular-expression characters literally', () => {
    const spec = wildcardToRegExp('a+b(1).[x]$');
    expect(spec.test('a+b(1).[x]$')).toBe(true);
    expect(spec.test('aab(1)x[x]$')).toBe(false);
  });
});

describe('Conveyor.Service.FileInbound', () => {
  let dir: ReturnType<typeof tempDir>;
  let inbox: string;
  beforeEach(() => {
    dir = tempDir();
    inbox = join(dir.path, 'in');
  });
  afterEach(() => dir.remove());

  async function service(settings: Record<string, string> = {}): Promise<FileInboundService> {
    const component = new FileInboundService();
    await component.init(
      componentContext({ configName: 'Inbox', kind: 'service', adapter: { FilePath: inbox, ...settings }, host: { TargetConfigNames: 'A,B' } }),
    );
    return component;
  }

  it('refuses to start without FilePath', async () => {
    const error = await new FileInboundService().init(componentContext({ configName: 'Inbox', kind: 'service' })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConveyorError(error, 'ERR_CONFIG')).toBe(true);
    expect((error as Error).message).toBe('Item Inbox needs the setting FilePath');
  });

  it('creates its folders at start', async () => {
    await service({ ArchivePath: join(dir.path, 'archive') });
    expect(existsSync(inbox)).toBe(true);
    expect(existsSync(join(dir.path, 'archive'))).toBe(true);
  });

  it('sends each matching file, in name order, to every target as a string request named after the file, then deletes it', async () => {
    const inbound = await service({ FileSpec: '*.txt' });
    writeFileSync(join(inbox, 'b.txt'), 'second');
    writeFileSync(join(inbox, 'a.txt'), 'first');
    writeFileSync(join(inbox, 'skip.csv'), 'not matching');
    writeFileSync(join(inbox, '.hidden.txt'), 'half written');
    mkdirSync(join(inbox, 'folder.txt'));
    const call = new RecordingCall();
    expect(await inbound.onProcessInput(null, call)).toBeNull();
    expect(call.sent.map((s) => [s.mode, s.target, s.description, bodyText(s.body)])).toEqual([
      ['async', 'A', 'a.txt', 'first'],
      ['async', 'B', 'a.txt', 'first'],
      ['async', 'A', 'b.txt', 'second'],
      ['async', 'B', 'b.txt', 'second'],
    ]);
    expect(readdirSync(inbox).sort()).toEqual(['.hidden.txt', 'folder.txt', 'skip.csv']);
  });

  it('moves sent files to ArchivePath instead of deleting them', async () => {
    const archive = join(dir.path, 'archive');
    const inbound = await service({ ArchivePath: archive });
    writeFileSync(join(inbox, 'a.txt'), 'first');
    await inbound.onProcessInput(null, new RecordingCall());
    expect(readdirSync(inbox)).toEqual([]);
    expect(readdirSync(archive)).toEqual(['a.txt']);
  });

  it('keeps a file whose request was not accepted, so the next poll sends it again', async () => {
    const inbound = await service();
    writeFileSync(join(inbox, 'a.txt'), 'first');
    const refused = new RecordingCall();
    refused.refuseAsync = new Error('store closed');
    await expect(inbound.onProcessInput(null, refused)).rejects.toThrow('store closed');
    expect(readdirSync(inbox)).toEqual(['a.txt']);
    const next = new RecordingCall();
    await inbound.onProcessInput(null, next);
    expect(next.sent.map((s) => bodyText(s.body))).toEqual(['first', 'first']);
    expect(readdirSync(inbox)).toEqual([]);
  });
});
