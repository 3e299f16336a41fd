/**
 * Where JSON.parse failed in a text, as line and column, without quoting any of the text: V8's
 * messages quote the text around an unexpected token (`Unexpected token 'r', "root:x:0:0"… is not
 * valid JSON`), which would hand a client the start of any file it names.
 */

/** Whether `prefix` could still be the beginning of a JSON text (it fails only for lack of the rest). */
function readsAsStart(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    return message === 'Unexpected end of JSON input' || message.endsWith(`at position ${prefix.length}`);
  }
}

/** The 0-based offset of the first character JSON.parse refused in `text`, given its error. */
export function jsonErrorOffset(text: string, error: unknown): number {
  const message = error instanceof Error ? error.message : '';
  const stated = /at position (\d+)/.exec(message);
  if (stated) return Number(stated[1]);
  if (message === 'Unexpected end of JSON input') return text.length;
  // No offset stated: the longest prefix that still reads as a start ends where the text goes wrong
  // (every prefix of such a prefix reads as a start too, so halving finds it).
  let good = 0;
  let bad = text.length;
  while (bad - good > 1) {
    const middle = (good + bad) >> 1;
    if (readsAsStart(text.slice(0, middle))) good = middle;
    else bad = middle;
  }
  return good;
}

/** `line L, column C` (both from 1) of the failure, for an error text. */
export function jsonErrorPosition(text: string, error: unknown): string {
  const offset = jsonErrorOffset(text, error);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line}, column ${column}`;
}
