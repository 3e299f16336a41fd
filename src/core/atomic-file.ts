/**
 * Replacing a small file so that a kill -9 or a power loss at any instant leaves either the whole old
 * text or the whole new one: the new text goes to a temporary file beside it, is flushed, renamed
 * over the file (one atomic step), and the rename is flushed with the folder. Each write has its own
 * temporary file (pid plus random part), so writers of one file at the same time never share one.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

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

/**
 * Removes the temporary files a killed writer of `file` left behind (those of live processes are
 * still being written and stay). Returns the names removed.
 */
export async function removeStaleTemporaries(file: string): Promise<string[]> {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    // `<pid>.<12 hex>.tmp`, or `<pid>.tmp` as earlier versions named it.
    const pid = /^(\d+)(?:\.[0-9a-f]{12})?\.tmp$/.exec(name.slice(prefix.length))?.[1];
    if (!name.startsWith(prefix) || pid === undefined || isAlive(Number(pid))) continue;
    await rm(join(dirname(file), name), { force: true });
    removed.push(name);
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
