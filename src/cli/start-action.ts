/**
 * `-s [NAME]` (attached: then the log until Ctrl+C) and `-s [NAME] -D`. While the start runs, its
 * items' progress is shown (progress-watch.ts); attached, the log lines arrive as the start writes
 * them. Ctrl+C during the start cancels it: the cli asks for a stop (the server then makes items still
 * in on_init give up and starts no further one), waits for both requests to end, reads the status and
 * says in which state it left the production (exit 130). A second Ctrl+C leaves without waiting.
 */
import type { StatusReply } from '../client/replies.ts';
import { effectiveDefault, type CommandContext } from './context.ts';
import { reportFailedItems } from './failed-items.ts';
import { CommandInterrupted } from './interrupted.ts';
import { followUntilInterrupted, printer } from './log-follow.ts';
import { createProgressView, progressStyle, type ProgressView } from './progress-view.ts';
import { itemEvent, newestLogId, pollLog, stepCount, viewFor } from './progress-watch.ts';

type StartOutcome = { started: string } | { cancelled: StatusReply | null };

export async function startAction(ctx: CommandContext): Promise<void> {
  const { command, client, io } = ctx;
  const name = command.value ?? (await effectiveDefault(client));
  const attached = !command.detach;
  const style = progressStyle(io);
  // Attached, the log itself shows each item as plain lines: a plain progress would repeat them.
  const view: ProgressView = style === 'live' ? viewFor(io, `Starting ${name}`) : createProgressView('off', '', io, { write: () => {} });
  const since = attached || style !== 'off' ? await newestLogId(client) : null;
  const print = printer(io);
  const stopPolling = new AbortController();
  void stepCount(client, 'start', name).then((total) => total !== undefined && view.setTotal(total));
  const polling =
    since === null
      ? Promise.resolve(0)
      : pollLog(
          client,
          since,
          (entry) => {
            if (attached) view.print(() => print(entry));
            const event = itemEvent(entry, 'start');
            if (!event) return;
            if (!attached && style === 'plain') io.err(event.text);
            view.event(event.text, event);
          },
          stopPolling.signal,
        );
  let outcome: StartOutcome;
  let lastSeen: number;
  // From the start's answer until the log follow takes Ctrl+C over, a Ctrl+C is kept, not lost (a
  // lost one would end the cli by default and leave the production running unattended).
  let interruptedMeanwhile = false;
  let removeBridge = () => {};
  try {
    outcome = await startCancellable(ctx, name, view);
    if ('started' in outcome) removeBridge = io.onInterrupt(() => (interruptedMeanwhile = true));
  } finally {
    // The last read shows the entries written just before the reply, then the line goes.
    stopPolling.abort();
    lastSeen = await polling;
    view.finish();
  }
  if ('cancelled' in outcome) {
    const state = outcome.cancelled
      ? `production ${outcome.cancelled.production || name} is ${outcome.cancelled.status}`
      : 'its state could not be read: check it with cli -x';
    throw new CommandInterrupted(`The start of ${name} was cancelled; ${state}`);
  }
  const started = outcome.started;
  await reportFailedItems(client, io, started);
  if (!attached) {
    removeBridge();
    io.out(`Production ${started} started`);
    return;
  }
  io.err(`Production '${started}' started. Showing its log; press Ctrl+C to stop the production.`);
  if (!interruptedMeanwhile) {
    // followUntilInterrupted takes Ctrl+C over as soon as it is called.
    const following = followUntilInterrupted(client, lastSeen, print, io);
    removeBridge();
    await following;
  } else removeBridge();
  io.err(`Stopping production ${started}...`);
  const removeSecond = io.onInterrupt(() => {
    io.err('Interrupted again: leaving without waiting for the stop to finish.');
    process.exit(130);
  });
  try {
    await client.stop();
  } finally {
    removeSecond();
  }
  io.err(`Production ${started} stopped`);
}

/** The start request; a Ctrl+C meanwhile turns it into a cancellation whose end state is read back. */
async function startCancellable({ client, io }: CommandContext, name: string, view: ProgressView): Promise<StartOutcome> {
  let cancelling: Promise<unknown> | undefined;
  const remove = io.onInterrupt(() => {
    if (cancelling) {
      view.finish();
      io.err(`Interrupted again: leaving without waiting; ${name} may still be starting or stopping (check it with cli -x).`);
      process.exit(130);
    }
    view.print(() => io.err(`Ctrl+C: cancelling the start of ${name} (stopping it; press Ctrl+C again to leave without waiting)...`));
    // A stop made while the start runs ends it: items still in on_init give up, no further item starts.
    cancelling = client.stop().catch((error: unknown) => error);
  });
  try {
    const reply = await client.start(name).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if (!cancelling) {
      if ('error' in reply) throw reply.error;
      return { started: reply.value.production || name };
    }
    await cancelling;
    return { cancelled: await client.status().catch(() => null) };
  } finally {
    remove();
  }
}
