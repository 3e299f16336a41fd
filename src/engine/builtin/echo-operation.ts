/**
 * `Conveyor.Operation.Echo`: answers every request with a copy of it. With the Host setting
 * `FilePath`, also appends one JSON line per request to that file (a simple recorder).
 */
import { appendFile } from 'node:fs/promises';
import type { Reply } from '../../core/component.ts';
import type { MessageBody } from '../../core/message.ts';
import { BuiltinComponent } from './builtin-component.ts';

export class EchoOperation extends BuiltinComponent {
  private filePath = '';

  protected override async onInit(): Promise<void> {
    this.filePath = this.setting('FilePath', '');
  }

  override async onMessage(request: MessageBody): Promise<Reply> {
    if (this.filePath !== '') {
      await appendFile(this.filePath, `${JSON.stringify({ classname: request.classname, data: request.data })}\n`);
    }
    return request.encoding === 'empty' ? { classname: 'Ens.Response', encoding: 'empty', data: '' } : { ...request };
  }
}
