/**
 * `EnsLib.File.PassthroughService` with `EnsLib.File.InboundAdapter`'s settings: every
 * `CallInterval` (default 5 s) it takes the files of `FilePath` matching `FileSpec` (wildcards, `;`
 * between patterns, default `*`) and sends each, as an `Ens.StreamContainer` (its bytes and its
 * name), to every item of `TargetConfigNames`; then it deletes the file, or moves it to
 * `ArchivePath`.
 *
 * Across kill -9 a file is never lost and is sent again only if the crash came between its sends
 * and its removal (at least once): it leaves its folder only after every send is committed. With
 * `WorkPath`, the file is first moved there (one rename) so that nothing else picks it up while it
 * is sent; a file found in `WorkPath` at a poll was interrupted by a crash and is sent again first.
 */
import { copyFile, mkdir, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallContext, Reply } from '../../core/component.ts';
import { BuiltinComponent } from './builtin-component.ts';
import { fileSpecMatcher } from './file-spec.ts';
import { expandFilenameSpec } from './filename-spec.ts';
import { streamContainer } from './stream-container.ts';

export class PassthroughService extends BuiltinComponent {
  private directory = '';
  private archive = '';
  private work = '';
  private matches: (name: string) => boolean = () => true;
  private targetNames: string[] = [];

  protected override async onInit(): Promise<void> {
    this.directory = this.requiredSetting('FilePath');
    this.archive = this.setting('ArchivePath', '');
    this.work = this.setting('WorkPath', '');
    this.matches = fileSpecMatcher(this.setting('FileSpec', '*'));
    this.targetNames = this.targets();
    for (const folder of [this.directory, this.archive, this.work]) if (folder !== '') await mkdir(folder, { recursive: true });
  }

  override async onProcessInput(_input: Reply, call: CallContext): Promise<Reply> {
    if (this.work !== '') {
      // Left by a poll that a crash interrupted: their sends may not all have been committed.
      for (const name of await this.filesIn(this.work)) await this.send(join(this.work, name), name, call);
    }
    for (const name of await this.filesIn(this.directory)) {
      let path = join(this.directory, name);
      if (this.work !== '') {
        const working = join(this.work, name);
        await moveFile(path, working);
        path = working;
      }
      await this.send(path, name, call);
    }
    return null;
  }

  /** Matching plain files, in name order; names starting with a dot are files still being written. */
  private async filesIn(folder: string): Promise<string[]> {
    return (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.') && this.matches(entry.name))
      .map((entry) => entry.name)
      .sort();
  }

  private async send(path: string, name: string, call: CallContext): Promise<void> {
    const body = streamContainer(name, await readFile(path));
    // sendAsync resolves once the request is committed: only then may the file go.
    for (const target of this.targetNames) await call.sendAsync(target, body, { description: name });
    if (this.archive === '') {
      await unlink(path);
      return;
    }
    await moveFile(path, await freeName(this.archive, name));
  }
}

/** A rename; across file systems a copy then a delete (the copy is complete before the original goes). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await unlink(from);
  }
}

/** `name` in `folder`, or, when a file already has it, the name with IRIS's `_%Q` time stamp appended. */
async function freeName(folder: string, name: string): Promise<string> {
  const plain = join(folder, name);
  try {
    await stat(plain);
  } catch {
    return plain;
  }
  return join(folder, expandFilenameSpec('%f_%Q', name, new Date()));
}
