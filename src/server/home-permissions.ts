/**
 * A private home. The store, the users file and the uploaded code are readable by nobody but the
 * server's user: a fresh home is created 0700 and the server runs with umask 077, so every file it
 * (or a worker it starts) creates is 0600 and every folder 0700. A home other users can write is
 * refused (they could replace the code the server runs, or the users file); a home they can read is
 * served with a warning, and the server's own files in it are tightened to 0600.
 */
import { chmod, lstat, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { ConveyorError } from '../core/errors.ts';

/** Files of the home the server itself writes (the socket is handled by the listener). */
export const serverFiles = ['conveyor.db', 'conveyor.db-wal', 'conveyor.db-shm', 'users.json', 'server.log', 'server.pid'] as const;

const groupOrOtherWrite = 0o022;
const groupOrOtherAccess = 0o077;

export interface HomeCheck {
  /** Problems that make serving unsafe (the server refuses to start). */
  problems: string[];
  /** Served anyway, but said at start and by `conveyor doctor`. */
  warnings: string[];
  /** The server's own files that other users can read (a start makes them private again). */
  readableFiles: string[];
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}

/** Inspects an existing home without changing it (what `conveyor doctor` reports). */
export async function inspectHome(home: string): Promise<HomeCheck> {
  const check: HomeCheck = { problems: [], warnings: [], readableFiles: [] };
  let info;
  try {
    info = await stat(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return check;
    throw error;
  }
  if (!info.isDirectory()) {
    check.problems.push(`The home ${home} is not a folder`);
    return check;
  }
  if ((info.mode & groupOrOtherWrite) !== 0) {
    check.problems.push(`Other users can write the home ${home} (mode ${octal(info.mode)}): fix it with chmod 700 ${home}`);
  } else if ((info.mode & groupOrOtherAccess) !== 0) {
    check.warnings.push(`Other users can read the home ${home} (mode ${octal(info.mode)}): chmod 700 ${home} makes it private`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    check.warnings.push(`The home ${home} belongs to another user (uid ${info.uid}); the server runs as uid ${uid}`);
  }
  for (const name of serverFiles) {
    const path = join(home, name);
    const file = await lstat(path).catch(() => null);
    if (file?.isFile() && (file.mode & groupOrOtherAccess) !== 0) check.readableFiles.push(path);
  }
  return check;
}

/**
 * Creates the home (0700) or checks an existing one, and makes the process's new files private.
 * Throws ERR_HOME_UNSAFE for a home others can write; reports the rest through `warn`.
 */
export async function prepareHome(home: string, warn: (line: string) => void): Promise<void> {
  // Python workers inherit the umask, so what they write into the home is private too.
  if (isMainThread) process.umask(0o077);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const check = await inspectHome(home);
  if (check.problems.length > 0) {
    throw new ConveyorError('ERR_HOME_UNSAFE', check.problems.join('; '), {
      hint: `Conveyor refuses to serve a home other users can change; run chmod 700 ${home} (or use another home)`,
    });
  }
  for (const warning of check.warnings) warn(`Warning: ${warning}`);
  // Files an older server left readable: the server writes them, so it makes them private again.
  for (const path of check.readableFiles) {
    await chmod(path, 0o600);
    warn(`Warning: other users could read ${path}; made it private (mode 600)`);
  }
}
