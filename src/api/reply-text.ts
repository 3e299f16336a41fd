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

const tracebackNote = "(traceback left out; it is in the server's log)";

/**
 * Drops the frames of Python tracebacks. The exception line after them stays unless the text already
 * says it; a note where the traceback was says where to find it.
 */
export function withoutTracebacks(text: string): string {
  if (!text.includes('Traceback (most recent call last):')) return text;
  const kept: string[] = [];
  let blanks: string[] = [];
  let inFrames = false;
  let noted = false;
  for (const line of text.split('\n')) {
    // Python's sentences between chained tracebacks belong to the traceback.
    if (/^(During handling of the above exception|The above exception was the direct cause)/.test(line)) continue;
    if (line.trim() === '') {
      if (!inFrames) blanks.push(line);
      continue;
    }
    if (line.startsWith('Traceback (most recent call last):')) {
      blanks = [];
      inFrames = true;
      if (!noted) {
        if (kept.length > 0) kept[kept.length - 1] = `${kept[kept.length - 1]} ${tracebackNote}`;
        else kept.push(tracebackNote);
        noted = true;
      }
      continue;
    }
    if (inFrames && line.startsWith(' ')) continue;
    const exceptionLine = inFrames;
    inFrames = false;
    kept.push(...blanks);
    blanks = [];
    if (exceptionLine && kept.join('\n').includes(line.trim())) continue;
    kept.push(line);
  }
  return kept.join('\n');
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
