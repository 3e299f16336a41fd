/**
 * A large body passed on unchanged is stored once. A process routing a 1 MB request on, or a service
 * handing its input on, sends the engine back the very buffer the engine gave it (an echo,
 * src/bridge/frames.ts), and the engine stores the new request with that buffer: a second copy of
 * the same megabyte, in the WAL, again in the database file, each time. IRIS keeps one body object
 * that several message headers point at; here the second row names the first in `data_of` and holds
 * '' itself, and readers go through the view `message_body_texts`, which puts the text back
 * (migration 'shared-bodies').
 *
 * Only the same buffer object is shared, never equal text found by comparing: the engine knows the
 * bytes are the same without reading them. Retention copies the text into the rows still sharing a
 * body before it removes the row holding it (sqlite-retention.ts), so a purge never takes a body from
 * a message it keeps.
 */
import type Database from 'better-sqlite3';

/** Smaller bodies are stored again: a reference saves little, and costs a lookup to write and to read. */
export const sharedBodyMinBytes = 16 * 1024;

export class SharedBodies {
  /** Body bytes → the message whose body row holds them, for bytes seen being stored. */
  readonly #holders = new WeakMap<Buffer, number>();
  readonly #holds: Database.Statement<[number], number>;

  constructor(db: Database.Database) {
    this.#holds = db.prepare<[number], number>('SELECT 1 FROM message_bodies WHERE message_id = ? AND data_of IS NULL').pluck();
  }

  /**
   * The message whose body row holds these very bytes, checked in the running transaction: a row
   * of a batch that was rolled back, or that retention removed since, is no holder.
   */
  holderOf(bytes: Buffer | undefined): number | undefined {
    if (bytes === undefined || bytes.length < sharedBodyMinBytes) return undefined;
    const holder = this.#holders.get(bytes);
    if (holder === undefined || this.#holds.get(holder) !== undefined) return holder;
    this.#holders.delete(bytes);
    return undefined;
  }

  /** Message `id`'s body row now holds `bytes`. */
  stored(bytes: Buffer | undefined, id: number): void {
    if (bytes !== undefined && bytes.length >= sharedBodyMinBytes) this.#holders.set(bytes, id);
  }
}
