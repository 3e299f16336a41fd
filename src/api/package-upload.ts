/**
 * Writing an uploaded package (`PUT /migrate`) safely. Every name is checked before anything is
 * written; the files go to a fresh staging folder beside the package, which then takes the old
 * package's place by two renames. If writing or the migration fails, the previous package is put back,
 * so a failed upload never leaves a half-written package behind.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConveyorError } from '../core/errors.ts';

export interface PackageFile {
  name: string;
  data: string;
}

function unsafe(message: string, hint?: string): ConveyorError {
  return new ConveyorError('ERR_UNSAFE_PATH', message, hint === undefined ? {} : { hint });
}

/** The package is one folder name: no separators, no dots-only names, nothing hidden. */
export function checkPackageName(name: string): void {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name) || name.length > 255) {
    throw unsafe(`package ${JSON.stringify(name)} is not a plain folder name`, 'Use letters, digits, _ . and -, starting with a letter, digit or _');
  }
}

/** A relative path with `/` separators that stays inside its folder. */
export function checkRelativeName(name: string, what = 'file name'): void {
  const shown = JSON.stringify(name);
  if (name.length === 0) throw unsafe(`A ${what} is empty`);
  if (name.includes('\0')) throw unsafe(`The ${what} ${shown} contains a NUL character`);
  if (name.startsWith('/') || isAbsolute(name) || /^[A-Za-z]:/.test(name)) throw unsafe(`The ${what} ${shown} is absolute; names must be relative to the package`);
  if (name.includes('\\')) throw unsafe(`The ${what} ${shown} contains a backslash; separate folders with /`);
  for (const segment of name.split('/')) {
    if (segment === '..') throw unsafe(`The ${what} ${shown} contains ..; names must stay inside the package`);
    if (segment === '' || segment === '.') throw unsafe(`The ${what} ${shown} has an empty or . path segment`);
  }
}

export function checkFiles(files: unknown): PackageFile[] {
  if (!Array.isArray(files)) throw new ConveyorError('ERR_INVALID_INPUT', 'body is required: an array of {name, data} files to write');
  const seen = new Set<string>();
  const checked = files.map((file: unknown, index) => {
    const { name, data } = (file ?? {}) as { name?: unknown; data?: unknown };
    if (typeof name !== 'string' || typeof data !== 'string') {
      throw new ConveyorError('ERR_INVALID_INPUT', `body[${index}] must be {name: string, data: string} (data is the UTF-8 text of the file)`);
    }
    checkRelativeName(name);
    if (seen.has(name)) throw new ConveyorError('ERR_INVALID_INPUT', `The file ${JSON.stringify(name)} is listed twice`);
    seen.add(name);
    return { name, data };
  });
  for (const { name } of checked) {
    const segments = name.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth).join('/');
      if (seen.has(folder)) throw new ConveyorError('ERR_INVALID_INPUT', `${JSON.stringify(folder)} is both a file and the folder of ${JSON.stringify(name)}`);
    }
  }
  return checked;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of a folder that may not exist yet: its deepest existing ancestor, resolved, plus the rest. */
async function realpathOfFuture(folder: string): Promise<string> {
  let existing = folder;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(existing);
      if (parent === existing) throw error;
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/**
 * The folder a package goes into: `remote_folder` when given (absolute, and inside an allowed root once
 * links are resolved), else the namespace's package folder. Created when missing.
 */
export async function resolveTargetFolder(remoteFolder: string | undefined, defaultFolder: string, allowedRoots: string[]): Promise<string> {
  let folder = defaultFolder;
  if (remoteFolder !== undefined) {
    if (remoteFolder.includes('\0')) throw unsafe('remote_folder contains a NUL character');
    if (!isAbsolute(remoteFolder)) throw unsafe(`remote_folder ${JSON.stringify(remoteFolder)} must be an absolute path`);
    const real = await realpathOfFuture(resolve(remoteFolder));
    const roots = await Promise.all(allowedRoots.map((root) => realpathOfFuture(resolve(root))));
    if (!roots.some((root) => inside(root, real))) {
      throw unsafe(`remote_folder ${JSON.stringify(remoteFolder)} is outside the folders this server may write to`, `Allowed: ${allowedRoots.join(', ')} (server option allowed roots)`);
    }
    folder = real;
  }
  await mkdir(folder, { recursive: true });
  return folder;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function writeStaged(staging: string, files: PackageFile[]): Promise<void> {
  const realStaging = await realpath(staging);
  for (const file of files) {
    const destination = join(staging, ...file.name.split('/'));
    await mkdir(dirname(destination), { recursive: true });
    // Defence in depth: the staging folder is fresh, so no link can lead out of it; check anyway.
    if (!inside(realStaging, await realpath(dirname(destination)))) throw unsafe(`The file name ${JSON.stringify(file.name)} leads outside the package through a link`);
    await writeFile(destination, file.data, { encoding: 'utf8', flag: 'wx' });
  }
}

const locks = new Map<string, Promise<unknown>>();

/** Runs uploads of the same package folder one after the other. */
function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  locks.set(key, settled);
  void settled.then(() => {
    if (locks.get(key) === settled) locks.delete(key);
  });
  return next;
}

/**
 * Replaces `<folder>/<packageName>` with the files, then runs `afterSwap` on the new folder (the
 * migration). On any failure the previous package is restored and the error rethrown.
 */
export function replacePackage<T>(folder: string, packageName: string, files: PackageFile[], afterSwap: (packageDir: string) => Promise<T>): Promise<T> {
  checkPackageName(packageName);
  const packageDir = join(folder, packageName);
  return serialized(packageDir, async () => {
    const staging = await mkdtemp(join(folder, `.${packageName}.upload-`));
    try {
      await writeStaged(staging, files);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    const tag = randomBytes(6).toString('hex');
    const previous = (await exists(packageDir)) ? join(folder, `.${packageName}.previous-${tag}`) : null;
    if (previous) await rename(packageDir, previous);
    await rename(staging, packageDir);
    try {
      const result = await afterSwap(packageDir);
      if (previous) await rm(previous, { recursive: true, force: true });
      return result;
    } catch (error) {
      const failed = join(folder, `.${packageName}.failed-${tag}`);
      await rename(packageDir, failed);
      if (previous) await rename(previous, packageDir);
      await rm(failed, { recursive: true, force: true });
      throw error;
    }
  });
}
