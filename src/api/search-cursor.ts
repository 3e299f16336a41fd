/**
 * The opaque cursor of `GET /messages/search`: where the next page starts (below which message id),
 * carried as base64url text so that clients pass it back as is and do not build their own. It holds no
 * filter: a cursor continues the search it came with; given with other filters it only sets the start.
 */
import { ConveyorError } from '../core/errors.ts';

const version = 'm1';

export function encodeCursor(beforeId: number): string {
  return Buffer.from(`${version}:${beforeId}`, 'utf8').toString('base64url');
}

/** The message id a cursor starts below; ERR_INVALID_INPUT for text this server did not give out. */
export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^m1:([1-9][0-9]{0,15})$/.exec(text);
  const beforeId = match ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(beforeId))
    throw new ConveyorError(
      'ERR_INVALID_INPUT',
      `cursor ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of this search: pass next_cursor from the previous page unchanged`,
    );
  return beforeId;
}
