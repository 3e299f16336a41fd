/**
 * The Python files an item runs, found without running Python: its module, then every module it
 * imports that lives in its classpaths (the user's code), transitively, with the `__init__.py` of
 * each package on the way. Modules outside the classpaths (the standard library, site-packages,
 * the SDK) are not followed. Read statically (`import a.b`, `from .c import d`, also inside
 * functions and in parenthesized lists), so an import built at run time (importlib) is not seen.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

interface FoundModule {
  file: string;
  /** The dotted name the file was found under, and whether it is a package (`__init__.py`). */
  name: string;
  isPackage: boolean;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/** The module's file and the `__init__.py` files of its parent packages, in the first classpath that has it. */
async function locate(name: string, classpaths: readonly string[]): Promise<FoundModule[]> {
  const parts = name.split('.');
  for (const root of classpaths) {
    const base = join(root, ...parts);
    const found: FoundModule | null = (await isFile(`${base}.py`))
      ? { file: `${base}.py`, name, isPackage: false }
      : (await isFile(join(base, '__init__.py')))
        ? { file: join(base, '__init__.py'), name, isPackage: true }
        : null;
    if (!found) continue;
    const parents: FoundModule[] = [];
    for (let depth = 1; depth < parts.length; depth++) {
      const init = join(root, ...parts.slice(0, depth), '__init__.py');
      if (await isFile(init)) parents.push({ file: init, name: parts.slice(0, depth).join('.'), isPackage: true });
    }
    return [...parents, found];
  }
  return [];
}

/** `from ..x import y` inside module `pkg.sub.mod` (or package `pkg.sub`) → `pkg.x`. */
function absoluteName(dots: number, rest: string, importer: FoundModule): string | null {
  if (dots === 0) return rest;
  const packageParts = importer.name.split('.');
  if (!importer.isPackage) packageParts.pop();
  const kept = packageParts.length - (dots - 1);
  if (kept < 0) return null;
  return [...packageParts.slice(0, kept), ...(rest ? [rest] : [])].join('.');
}

/** The names of the modules a source imports (each `from x import y` also offers `x.y`: y may be a submodule). */
function importedNames(source: string, importer: FoundModule): string[] {
  // Joins parenthesized import lists and backslash continuations into one line each.
  const text = source.replace(/\\\r?\n/g, ' ').replace(/\(([^)]*)\)/g, (_, inside: string) => inside.replace(/\r?\n/g, ' '));
  const names: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const plain = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/.exec(line);
    if (plain) {
      for (const part of plain[1]!.split(',')) names.push(part.trim().split(/\s+/)[0]!);
      continue;
    }
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)/.exec(line);
    if (!from) continue;
    const module = absoluteName(from[1]!.length, from[2]!, importer);
    if (module === null) continue;
    if (module) names.push(module);
    for (const part of from[3]!.replace(/#.*/, '').split(',')) {
      const imported = part.trim().split(/\s+/)[0];
      if (imported && /^\w+$/.test(imported)) names.push(module ? `${module}.${imported}` : imported);
    }
  }
  return names;
}

/** The files of `module` and of everything it imports from the classpaths, sorted. */
export async function pythonFilesOf(module: string, classpaths: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  const seen = new Set<string>();
  const pending = [module];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const found of await locate(name, classpaths)) {
      if (files.has(found.file)) continue;
      files.add(found.file);
      const source = await readFile(found.file, 'utf8').catch(() => '');
      pending.push(...importedNames(source, found));
    }
  }
  return [...files].sort();
}

/** A file as the log names it: relative to the classpath that holds it. */
export function shortName(file: string, classpaths: readonly string[]): string {
  const root = classpaths.filter((path) => file.startsWith(`${path}/`)).sort((a, b) => b.length - a.length)[0];
  return root === undefined ? file : file.slice(root.length + 1);
}
