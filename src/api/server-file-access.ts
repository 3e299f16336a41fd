/**
 * Which files on the server a request may have the server read (the `path` of POST /schemas/import):
 * only files inside one of `roots` (the server gives one: its import folder, `importFolder`, default
 * `<home>/imports`), and never one inside a `closed` folder (the home, with its users file, database
 * and keys; the TLS files), unless it lies in a root that is itself inside that closed folder
 * (`<home>/imports`). A relative name is a file of the first root. Checked on the path as given and
 * again once links are resolved, so neither `..` nor a link can lead out. A refusal names the path the
 * client sent, never what the file holds.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { inside, realpathOfFuture } from './package-upload.ts';

export interface ServerFileAccess {
  /** Folders a file may lie in. */
  roots: string[];
  /** Folders (or single files) closed even inside the roots, except to a root inside them. */
  closed: string[];
}

/** No file of the server may be read: the default when the server gives no access. */
export const noServerFileAccess: ServerFileAccess = { roots: [], closed: [] };

/** The rule, on paths of one kind (all as given, or all with links resolved). */
function permitted(candidate: string, access: ServerFileAccess): boolean {
  const roots = access.roots.filter((root) => inside(root, candidate));
  if (roots.length === 0) return false;
  return access.closed.every((closed) => !inside(closed, candidate) || roots.some((root) => root !== closed && inside(closed, root)));
}

function refused(path: string): ConveyorError {
  return new ConveyorError('ERR_UNSAFE_PATH', `path ${JSON.stringify(path)} is outside the folders the server reads schema files from`, {
    hint: "Put the file in the server's import folder (importFolder, default <home>/imports) and give its name, or upload the schema document itself as schema",
  });
}

/**
 * The real path of `path` when the access allows reading it; else ERR_UNSAFE_PATH. A path refused as
 * given is refused before the file system is asked anything about it.
 */
export async function resolveReadableFile(path: string, access: ServerFileAccess): Promise<string> {
  if (path.includes('\0')) throw new ConveyorError('ERR_UNSAFE_PATH', 'path contains a NUL character');
  const [folder] = access.roots;
  if (!isAbsolute(path) && folder === undefined) {
    throw new ConveyorError('ERR_UNSAFE_PATH', `path ${JSON.stringify(path)} must be an absolute path on the server`);
  }
  const given = isAbsolute(path) || folder === undefined ? resolve(path) : resolve(folder, path);
  const lexical: ServerFileAccess = { roots: access.roots.map((root) => resolve(root)), closed: access.closed.map((closed) => resolve(closed)) };
  if (!permitted(given, lexical)) throw refused(path);
  let real: string;
  try {
    real = await realpath(given);
  } catch (error) {
    throw new ConveyorError(
      'ERR_INVALID_INPUT',
      `Cannot read the schema file ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  const resolved: ServerFileAccess = {
    roots: await Promise.all(lexical.roots.map(realpathOfFuture)),
    closed: await Promise.all(lexical.closed.map(realpathOfFuture)),
  };
  if (!permitted(real, resolved)) throw refused(path);
  return real;
}
