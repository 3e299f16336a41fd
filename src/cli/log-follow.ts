/**
 * `-L` and attached `-s`: the event log printed as it arrives, by polling `GET /log?since_id=` (ids are
 * strictly increasing, so nothing is printed twice). Ctrl+C ends the tail; for `-s` it first stops the
 * production that the command started.
 */
import type { ConveyorClient } from '../client/api-client.ts';
import type { LogEntryWire } from '../client/replies.ts';
import { effectiveDefault, type CliIo, type CommandContext } from './context.ts';
import { formatLogLine, useColour } from './output-format.ts';

const pollIntervalMs = 500;
const defaultTail = 10;

export async function logAction({ command, client, io }: CommandContext): Promise<void> {
  const print = printer(io);
  // The server sends the most recent entries newest first; a tail reads oldest first.
  const recent = (await client.logTop(command.logCount ?? defaultTail)).sort((a, b) => a.id - b.id);
  recent.forEach(print);
  if (command.logCount !== undefined) return;
  await followUntilInterrupted(client, lastId(recent, 0), print, io);
}

export async function startAttachedAction({ command, client, io }: CommandContext): Promise<void> {
  const name = command.value ?? (await effectiveDefault(client));
  // Only what the start produces is shown: remember where the log stands before it.
  const since = lastId(await client.logTop(1), 0);
  const reply = await client.start(name);
  const started = reply.production || name;
  io.err(`Production '${started}' started. Showing its log; press Ctrl+C to stop the production.`);
  await followUntilInterrupted(client, since, printer(io), io);
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

function printer(io: CliIo): (entry: LogEntryWire) => void {
  const colour = useColour(io.stdoutIsTty, io.env);
  return (entry) => io.out(formatLogLine(entry, colour));
}

function lastId(entries: LogEntryWire[], fallback: number): number {
  return entries.reduce((max, entry) => (entry.id > max ? entry.id : max), fallback);
}

/** Polls until Ctrl+C. A failing poll (server gone) ends the command with that error. */
export async function followUntilInterrupted(client: ConveyorClient, sinceId: number, print: (entry: LogEntryWire) => void, io: CliIo): Promise<void> {
  const controller = new AbortController();
  const remove = io.onInterrupt(() => controller.abort());
  let since = sinceId;
  try {
    while (!controller.signal.aborted) {
      const entries = await client.logSince(since);
      for (const entry of entries) {
        print(entry);
        if (entry.id > since) since = entry.id;
      }
      await sleep(pollIntervalMs, controller.signal);
    }
  } finally {
    remove();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
