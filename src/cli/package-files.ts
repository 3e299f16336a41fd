/**
 * The files a remote migrate uploads: the settings file's folder, recursively, as UTF-8 text (the
 * spec's `body` of {name, data}). Python sources, class files and the data files next to them travel;
 * what is rebuilt or installed elsewhere does not (virtual environments, caches, VCS and node folders).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { TextDecoder } from 'node:util';
import type { PackageFile } from '../client/replies.ts';

/** Folder names never uploaded. A folder holding `pyvenv.cfg` (a virtual environment) is skipped too. */
export const excludedFolders = new Set([
  '__pycache__',
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
]);
const excludedExtensions = ['.pyc', '.pyo'];

export interface CollectedPackage {
  files: PackageFile[];
  /** Relative names of files left out because they are not UTF-8 text. */
  skippedBinary: string[];
  bytes: number;
}

export function collectPackageFiles(folder: string): CollectedPackage {
  const collected: CollectedPackage = { files: [], skippedBinary: [], bytes: 0 };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  walk(folder, '', collected, decoder);
  return collected;
}

function walk(absolute: string, relative: string, collected: CollectedPackage, decoder: TextDecoder): void {
  const entries = readdirSync(absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(absolute, entry.name);
    const name = relative ? `${relative}/${entry.name}` : entry.name;
    // Symbolic links to folders are not followed (no loops, nothing outside the package).
    const isFolder = entry.isDirectory();
    if (isFolder) {
      if (excludedFolders.has(entry.name) || existsSync(join(path, 'pyvenv.cfg'))) continue;
      walk(path, name, collected, decoder);
      continue;
    }
    if (entry.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isFile() !== true) continue;
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    if (excludedExtensions.some((extension) => entry.name.endsWith(extension))) continue;
    const bytes = readFileSync(path);
    const data = decodeText(bytes, decoder);
    if (data === undefined) {
      collected.skippedBinary.push(name);
      continue;
    }
    collected.files.push({ name, data });
    collected.bytes += bytes.length;
  }
}

/** The text of a UTF-8 file, or undefined for binary content (invalid UTF-8 or NUL bytes). */
function decodeText(bytes: Buffer, decoder: TextDecoder): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
