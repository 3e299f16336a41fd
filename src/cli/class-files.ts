/**
 * Class files for `-i`: every `*.cls` under a folder, named as the class-document API names them
 * (relative path with `/` turned into `.`: `IOP/Demo/Transform.cls` → `IOP.Demo.Transform.cls`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { repositoryRoot } from './package-info.ts';

export interface ClassFile {
  /** Document name, e.g. `Demo.Transform.cls`. */
  name: string;
  path: string;
}

/**
 * The class files Conveyor bundles: `cls/` at the package root. The framework classes of IoP (hosts,
 * messages, utilities) are built into the engine, so the bundle holds class documents that are meant to
 * be loaded as documents (see docs/cli.md).
 */
export const bundledClassFolder = join(repositoryRoot, 'cls');

export function collectClassFiles(folder: string): ClassFile[] {
  const stats = statSync(folder, { throwIfNoEntry: false });
  if (!stats) throw new ConveyorError('ERR_INVALID_INPUT', `The class folder ${folder} does not exist`);
  if (!stats.isDirectory()) throw new ConveyorError('ERR_INVALID_INPUT', `${folder} is not a folder: -i takes a folder of .cls files`);
  const files: ClassFile[] = [];
  walk(folder, [], files);
  if (files.length === 0) throw new ConveyorError('ERR_INVALID_INPUT', `No .cls files found in ${folder}`);
  return files;
}

function walk(folder: string, parts: string[], files: ClassFile[]): void {
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && entry.name !== 'node_modules') walk(path, [...parts, entry.name], files);
    } else if (entry.name.endsWith('.cls')) {
      files.push({ name: [...parts, entry.name].join('.'), path });
    }
  }
}

/** The document as the API takes it: its lines, without line ends. */
export function classFileLines(file: ClassFile): string[] {
  return readFileSync(file.path, 'utf8').replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
}
