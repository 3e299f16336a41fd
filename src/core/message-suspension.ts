/**
 * Which messages are kept aside as suspended (IRIS's suspended messages; docs/operations.md, Queue
 * and message controls). A request is suspended when it failed for good — after its item's retries,
 * if any — while no caller waited for its reply: nobody was told, so it waits for an operator to
 * resend or discard it and is never purged. A failed request whose caller waited (a test call, a
 * synchronous send, an asynchronous send expecting a response) got its error back: it is finished.
 * Nothing extra is stored for it: the status, kind and response flag say it (the same predicate in SQL:
 * `kind = 'request' AND status = 'error' AND NOT response_required`).
 */
import type { MessageHeader } from './message.ts';

export function isSuspended(message: Pick<MessageHeader, 'kind' | 'status' | 'responseRequired'>): boolean {
  return message.kind === 'request' && message.status === 'error' && !message.responseRequired;
}
