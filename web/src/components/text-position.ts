/** Where a diagnostic's line and column are in the editor's text. */

/** The offset in `text` of a line and column (both 1-based, as diagnostics give them), clamped to the text. */
export function caretOffset(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  const at = Math.min(Math.max(line, 1), lines.length);
  const start = lines.slice(0, at - 1).reduce((sum, content) => sum + content.length + 1, 0);
  return start + Math.min(Math.max(column - 1, 0), lines[at - 1]!.length);
}
