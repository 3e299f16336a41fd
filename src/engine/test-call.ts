/**
 * The rules of a test call (spec POST /test) that keep it from freezing anything: what can never be
 * answered is refused at once, naming the item and the reason, and the wait for the reply has a
 * timeout that fires. The Director runs the call; this file holds its refusals and its bounded wait.
 */
import type { Reply } from '../core/component.ts';
import { ConveyorError } from '../core/errors.ts';
import type { ItemHost } from './item-host.ts';
import type { SentRequest } from './message-router.ts';
import type { RunningProduction } from './running-production.ts';
import { timerDelay } from './timer-delay.ts';

/** The pseudo-item that sends the test endpoint's requests, named as IRIS names its testing service. */
export const testingService = 'EnsLib.Testing.Service';

/** How long a test call waits for its reply unless the request says otherwise. */
export const defaultTestTimeoutMs = 300_000;

/**
 * Refusals that need no wait. A business service takes no requests (it would never take the
 * message from its queue); a disabled item runs no job, even after a restart; without a restart an
 * item that is not running would leave the message queued forever.
 */
export function refuseUntestable(host: ItemHost, restart: boolean): void {
  if (host.kind === 'service') {
    throw new ConveyorError('ERR_INVALID_INPUT', `Cannot test ${host.name}: it is a business service, which takes no requests`, {
      hint: 'Test a business process or a business operation',
    });
  }
  if (!host.item.enabled) {
    throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Cannot test ${host.name}: the item is disabled`, {
      hint: 'Enable it in the production definition and update the production',
    });
  }
  if (!restart) refuseUnready(host, false);
}

/** The target must run now: a stopped item or one in error never takes the message. */
export function refuseUnready(host: ItemHost, restarted: boolean): void {
  if (host.state === 'running') return;
  const why = host.state === 'error' ? `it is in error: ${host.error ?? 'see the event log'}` : `it is ${host.state}`;
  throw new ConveyorError('ERR_ITEM_NOT_RUNNING', `Cannot test ${host.name}: ${why}`, {
    hint: restarted ? 'Fix the component (the event log says why it did not start), then test again' : 'Test with restart true, or start the item first',
  });
}

/**
 * Waits for the reply of a test request, at most `timeoutMs`. Past it the request is recorded as
 * failed, a job stuck on it is ended (its item goes to `error`) and the caller gets ERR_TIMEOUT.
 */
export async function awaitTestReply(running: RunningProduction, target: string, sent: SentRequest, timeoutMs: number): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timerDelay(timeoutMs));
  });
  try {
    const outcome = await Promise.race([(sent.reply as Promise<Reply>).then((reply) => ({ reply })), expired]);
    if (outcome !== 'expired') return outcome.reply;
  } finally {
    clearTimeout(timer);
  }
  const text = await running.abandonRequest(target, sent.message.id, `Item ${target} did not answer test message ${sent.message.id} within ${timeoutMs} ms`);
  throw new ConveyorError('ERR_TIMEOUT', text, { hint: 'The event log says what the item was doing; restart it (component restart) once it is fixed' });
}
