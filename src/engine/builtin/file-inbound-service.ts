/**
 * `Conveyor.Service.FileInbound`: every CallInterval, picks up the files of the Adapter setting
 * `FilePath` matching `FileSpec` (a `*` wildcard pattern, default `*`), sends each as an
 * `Ens.StringRequest` (StringValue = the text, description = the file name) to `TargetConfigNames`,
 * and deletes the file (or moves it to `ArchivePath`) only once the message is persisted, so a crash
 * never loses a file: at worst it is sent twice.
 */
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallContext, Reply } from '../../core/component.ts';
import { stringRequest } from '../native-messages.ts';
import { BuiltinComponent } from './builtin-component.ts';

export function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

export class FileInboundService extends BuiltinComponent {
  private directory = '';
  private archive = '';
  private spec = /^.*$/;
  private targetNames: string[] = [];

  protected override async onInit(): Promise<void> {
    this.directory = this.requiredSetting('FilePath');
    this.archive = this.setting('ArchivePath', '');
    this.spec = wildcardToRegExp(this.setting('FileSpec', '*'));
    this.targetNames = this.targets();
    await mkdir(this.directory, { recursive: true });
    if (this.archive !== '') await mkdir(this.archive, { recursive: true });
  }

  override async onProcessInput(_input: Reply, call: CallContext): Promise<Reply> {
    const names = (await readdir(this.directory, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && this.spec.test(entry.name) && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
    for (const name of names) {
      const path = join(this.directory, name);
      const text = await readFile(path, 'utf8');
      for (const target of this.targetNames) await call.sendAsync(target, stringRequest(text), { description: name });
      if (this.archive !== '') await rename(path, join(this.archive, name));
      else await unlink(path);
    }
    return null;
  }
}
