/**
 * `EnsLib.File.PassthroughOperation` with `EnsLib.File.OutboundAdapter`'s settings: writes the
 * stream of each request (an `Ens.StreamContainer`; a string message's text, any other body's data)
 * to a file of the Adapter setting `FilePath`, named by the Host setting `Filename` with IRIS's time
 * stamp codes (default `%f_%Q`: the original file name, then the time). `Overwrite` (default true)
 * replaces a file of that name, else the stream is appended to it; `Charset` (default UTF-8) is how
 * the text of string messages is written (a stream's bytes are written as they are).
 * A replaced file is written beside it and renamed over it, so a reader never sees half a file.
 */
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CallContext, Reply } from '../../core/component.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';
import { BuiltinComponent } from './builtin-component.ts';
import { expandFilenameSpec } from './filename-spec.ts';
import { streamContent } from './stream-container.ts';

/** IRIS charset names to Node's; Native and Binary write text as UTF-8 (the server's native charset). */
const charsets: Readonly<Record<string, BufferEncoding>> = {
  '': 'utf8',
  native: 'utf8',
  binary: 'utf8',
  'utf-8': 'utf8',
  utf8: 'utf8',
  latin1: 'latin1',
  'iso-8859-1': 'latin1',
  ascii: 'ascii',
  'utf-16': 'utf16le',
  unicode: 'utf16le',
};

export class PassthroughOperation extends BuiltinComponent {
  private directory = '';
  private filename = '%f_%Q';
  private overwrite = true;
  private charset: BufferEncoding = 'utf8';

  protected override async onInit(): Promise<void> {
    this.directory = this.requiredSetting('FilePath');
    this.filename = this.setting('Filename', '%f_%Q');
    if (this.filename.trim() === '') this.filename = '%f_%Q';
    this.overwrite = parseFlag(this.setting('Overwrite', '1'), 'Overwrite', this.context.configName);
    const charset = this.setting('Charset', '').trim().toLowerCase();
    const encoding = charsets[charset];
    if (encoding === undefined) {
      throw new ConveyorError(
        'ERR_CONFIG',
        `Item ${this.context.configName}: Charset ${charset} is not supported (use ${Object.keys(charsets).filter(Boolean).join(', ')})`,
      );
    }
    this.charset = encoding;
    await mkdir(this.directory, { recursive: true });
  }

  override async onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    const { originalFilename, content } = streamContent(request, this.charset);
    const original = originalFilename || call.description || `message-${call.messageId ?? 'unknown'}`;
    const name = expandFilenameSpec(this.filename, original, new Date());
    if (name === '' || name === '.' || name === '..') {
      throw new ConveyorError('ERR_CONFIG', `Item ${this.context.configName}: Filename ${this.filename} gives no usable file name for ${original}`);
    }
    const path = join(this.directory, name);
    await mkdir(dirname(path), { recursive: true }); // a Filename such as `%Y/%f` writes into sub-folders
    if (!this.overwrite) {
      await appendFile(path, content);
      return null;
    }
    const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    await writeFile(temporary, content);
    await rename(temporary, path);
    return null;
  }
}

function parseFlag(text: string, setting: string, item: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new ConveyorError('ERR_CONFIG', `Item ${item}: ${setting} must be 1 or 0 (true or false), not '${text}'`);
}
