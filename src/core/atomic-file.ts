/**
 * Replacing a small file so that a kill -9 or a power loss at any instant leaves either the whole old
 * text or the whole new one: the new text goes to a temporary file beside it, is flushed, renamed
 * over the file (one atomic step), and the rename is flushed with the folder. Each write has its own
 * temporary file (pid plus random part), so writers of one file at the same time never share one.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processExists } from './process-exists.ts';

export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  // 'wx': never open (and truncate) a file that is already there, whoever's it is.
  const handle = await open(temporary, 'wx', mode);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** `<pid>.<12 hex>.tmp`, or `<pid>.tmp` as earlier versions named it: what follows the file's name. */
const temporarySuffix = /\.(\d+)(?:\.[0-9a-f]{12})?\.tmp$/;

/** Whether `name` is the name writeFileAtomic gives a temporary file of some file (not a name to store under). */
export function isTemporaryName(name: string): boolean {
  const suffix = temporarySuffix.exec(name);
  return suffix !== null && suffix.index > 0;
}

/**
 * Removes the temporary files a killed writer of `file` left behind (those of live processes are
 * still being written and stay). Returns the names removed.
 */
export function removeStaleTemporaries(file: string): Promise<string[]> {
  const prefix = basename(file);
  return removeStale(dirname(file), (name) => (name.startsWith(prefix) ? temporarySuffix.exec(name.slice(prefix.length)) : null)?.index === 0);
}

/** Removes the temporary files killed writers left behind for any file of `folder`. Returns the names removed. */
export function removeStaleTemporariesIn(folder: string): Promise<string[]> {
  return removeStale(folder, isTemporaryName);
}

async function removeStale(folder: string, isOurs: (name: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = temporarySuffix.exec(name)?.[1];
    if (!isOurs(name) || pid === undefined || processExists(Number(pid))) continue;
    await rm(join(folder, name), { force: true });
    removed.push(name);
  }
  return removed;
}
