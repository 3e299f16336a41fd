/**
 * `Conveyor.Operation.FileOutbound`: writes each request's text to a file in the Adapter setting
 * `FilePath`. The file is named after the request's description (the original file name when it
 * came from a FileInbound service), else `message-<id>.txt`. Writes go through a temporary file and
 * a rename, so a reader never sees half a file.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CallContext, Reply } from '../../core/component.ts';
import type { MessageBody } from '../../core/message.ts';
import { bodyText } from '../native-messages.ts';
import { BuiltinComponent } from './builtin-component.ts';

export class FileOutboundOperation extends BuiltinComponent {
  private directory = '';

  protected override async onInit(): Promise<void> {
    this.directory = this.requiredSetting('FilePath');
    await mkdir(this.directory, { recursive: true });
  }

  override async onMessage(request: MessageBody, call: CallContext): Promise<Reply> {
    const name = basename(call.description || `message-${call.messageId ?? 'unknown'}.txt`);
    const path = join(this.directory, name);
    const temporary = join(this.directory, `.${name}.${process.pid}.tmp`);
    await writeFile(temporary, bodyText(request));
    await rename(temporary, path);
    return null;
  }
}
