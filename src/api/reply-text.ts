/**
 * What an error reply may say: never a path of the server's file system nor a stack trace. The full
 * error goes to the server's log; the client gets a text with
 *
 * - the server's folders named by what they are: the home `<home>`, Conveyor's own files
 *   `<conveyor>`, the temporary folder `<tmp>`, the server user's home folder `~`;
 * - Python tracebacks left out (their last line, the exception, stays);
 * - file-system failures (`ENAMETOOLONG: name too long, open '/…'`) said without the path.
 */
import { homedir, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const conveyorRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/+$/, '');

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Longest first, so the home inside the user's folder is named `<home>`, not `~/.conveyor`. */
function serverFolders(): Array<[string, string]> {
  const folders: Array<[string, string]> = [
    [process.env['CONVEYOR_HOME'] ?? '', '<home>'],
    [conveyorRoot, '<conveyor>'],
    [tmpdir(), '<tmp>'],
    [homedir(), '~'],
  ];
  return folders
    .map(([path, label]): [string, string] => [path.replace(/\/+$/, ''), label])
    .filter(([path]) => path.length > 1)
    .sort((a, b) => b[0].length - a[0].length);
}

/** Replaces each server folder at the start of a path (not inside a URL or a longer name). */
export function withoutServerPaths(text: string): string {
  let result = text;
  for (const [path, label] of serverFolders()) {
    result = result.replace(new RegExp(`(^|[^\\w.~/-])${escape(path)}(?=$|[/'"\\s),:;\\]])`, 'g'), `$1${label}`);
  }
  return result;
}

/** Drops the frames of Python tracebacks, keeping the exception line after them. */
export function withoutTracebacks(text: string): string {
  if (!text.includes('Traceback (most recent call last):')) return text;
  const kept: string[] = [];
  let inFrames = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('Traceback (most recent call last):')) {
      inFrames = true;
      continue;
    }
    if (inFrames && (line.startsWith(' ') || line.trim() === '' || /^(During handling|The above exception)/.test(line))) continue;
    inFrames = false;
    kept.push(line);
  }
  return `${kept.join('\n').trimEnd()} (traceback left out; it is in the server's log)`;
}

/** Node's file-system errors read `CODE: description, syscall 'path'`: keep the code and description. */
export function fileSystemFailure(error: Error & { code?: unknown; syscall?: unknown }): string | null {
  if (typeof error.code !== 'string' || typeof error.syscall !== 'string') return null;
  const description = error.message.split(', ')[0] ?? error.code;
  return `${description} (${error.syscall})`;
}

/** Everything an error reply says passes here. */
export function publicText(text: string): string {
  return withoutServerPaths(withoutTracebacks(text));
}
