/**
 * Error texts as the platform writes its status strings. IRIS answers `ERROR #5001: …`; Conveyor
 * answers `ERROR #<code>: …` where the code is the registry's stable code without its `ERR_` prefix
 * (`ERR_ITEM_NOT_FOUND` → `#ITEM_NOT_FOUND`). This is the one place that mapping is made; the full
 * code stays in the `code` field of a JSON error body.
 */
import type { ErrorCode } from './errors.ts';

const statusPrefix = /^ERROR #[A-Z0-9_]+: /;

/** The code as it appears in a status text. */
export function shownCode(code: ErrorCode): string {
  return code.replace(/^ERR_/, '');
}

/** `ERROR #ITEM_NOT_FOUND: No item 'X' in production 'Y'`; a text that already is one is kept. */
export function statusText(code: ErrorCode, message: string): string {
  return statusPrefix.test(message) ? message : `ERROR #${shownCode(code)}: ${message}`;
}

/** Whether a text already reads as a status string (what the CLI prints without its own prefix). */
export function isStatusText(text: string): boolean {
  return statusPrefix.test(text);
}
