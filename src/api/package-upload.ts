/**
 * Checking an uploaded package (`PUT /migrate`) before anything is written: the package name, every
 * file name, and the folder it goes into. Writing it, validating it and switching it in, all or
 * nothing across kill -9, is the engine's (src/engine/migration/package-swap.ts).
 */
import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import type { PackageFile } from '../engine/migration/package-swap.ts';

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
  if (name.startsWith('/') || isAbsolute(name) || /^[A-Za-z]:/.test(name))
    throw unsafe(`The ${what} ${shown} is absolute; names must be relative to the package`);
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

export function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of a folder that may not exist yet: its deepest existing ancestor, resolved, plus the rest. */
export async function realpathOfFuture(folder: string): Promise<string> {
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
      throw unsafe(
        `remote_folder ${JSON.stringify(remoteFolder)} is outside the folders this server may write to`,
        `Allowed: ${allowedRoots.join(', ')} (server option allowed roots)`,
      );
    }
    folder = real;
  }
  await mkdir(folder, { recursive: true });
  return folder;
}
