/**
 * The store side of queue and message controls (docs/operations.md): suspended queues, the links
 * between a resent message and its original, and the status changes operators make (abort, discard).
 * Suspended messages are not stored apart: see src/core/message-suspension.ts.
 */
import type { MessageHeader } from '../core/message.ts';

export interface QueueSuspension {
  item: string;
  /** The user who suspended it. */
  suspendedBy: string;
  /** Epoch ms. */
  suspendedAt: number;
}

/** A resend: a new message copying (or editing) the body of an original one. */
export interface ResendLink {
  resendId: number;
  originalId: number;
  target: string;
  /** The body was edited before it was sent. */
  edited: boolean;
  user: string;
  /** Epoch ms. */
  createdAt: number;
}

export interface MessageLinks {
  /** The message this one is a resend of, or null. */
  resentFrom: ResendLink | null;
  /** The resends of this message, oldest first. */
  resends: ResendLink[];
}

export interface SuspendedQuery {
  target?: string;
  /** Keyset paging: only ids lower than this (newest first). */
  beforeId?: number;
  limit: number;
}

export interface ControlRepository {
  /** Records the item's queue as suspended; false when it already was (the first suspension is kept). */
  suspendQueue(namespace: string, suspension: QueueSuspension): Promise<boolean>;
  /** False when the queue was not suspended. */
  resumeQueue(namespace: string, item: string): Promise<boolean>;
  /** The suspended queues of the namespace, by item. */
  suspendedQueues(namespace: string): Promise<QueueSuspension[]>;
  /**
   * Takes queued requests out of their queue: each that is still `queued` and claimed by no node
   * becomes `discarded` with `reason` as its error text. Returns the ids changed (others are left).
   */
  abort(namespace: string, ids: number[], reason: string): Promise<number[]>;
  /** Requests in `error` (suspended or not) become `discarded`, their error text kept. Returns the ids changed. */
  discard(namespace: string, ids: number[]): Promise<number[]>;
  /**
   * Records resends, all in one transaction; an original that is suspended becomes `discarded` in the
   * same transaction (it was dealt with: its resend carries it on).
   */
  recordResends(namespace: string, links: ResendLink[]): Promise<void>;
  links(namespace: string, id: number): Promise<MessageLinks>;
  /** Suspended messages (src/core/message-suspension.ts), newest first. */
  suspended(namespace: string, query: SuspendedQuery): Promise<MessageHeader[]>;
  /** How many suspended messages each target has, sorted by target. */
  suspendedCounts(namespace: string): Promise<Array<{ target: string; count: number }>>;
}

export interface QueueSuspensionRow {
  item: string;
  suspended_by: string;
  suspended_at: number;
}

export interface ResendLinkRow {
  resend_id: number;
  original_id: number;
  target: string;
  edited: number | boolean;
  by_user: string;
  created_at: number;
}

export function toQueueSuspension(row: QueueSuspensionRow): QueueSuspension {
  return { item: row.item, suspendedBy: row.suspended_by, suspendedAt: row.suspended_at };
}

export function toResendLink(row: ResendLinkRow): ResendLink {
  return {
    resendId: row.resend_id,
    originalId: row.original_id,
    target: row.target,
    edited: row.edited === true || row.edited === 1,
    user: row.by_user,
    createdAt: row.created_at,
  };
}

export function toLinks(id: number, rows: ResendLinkRow[]): MessageLinks {
  const links = rows.map(toResendLink);
  return { resentFrom: links.find((link) => link.resendId === id) ?? null, resends: links.filter((link) => link.originalId === id) };
}
