/** Moves the caret of an editor's text area to a diagnostic's line and column. */
import { caretOffset } from './text-position.ts';

/**
 * Puts the caret at a line and column (1-based) and scrolls the text area — not the page: the form
 * or graph beside it may be what the user looks at — so that the line is in view, a few lines down.
 */
export function placeCaret(area: HTMLTextAreaElement | null, line: number, column: number): void {
  if (!area) return;
  const offset = caretOffset(area.value, line, column);
  area.focus({ preventScroll: true });
  area.setSelectionRange(offset, offset);
  const lineHeight = Number.parseFloat(getComputedStyle(area).lineHeight) || 17;
  area.scrollTop = Math.max(0, (line - 4) * lineHeight);
}
