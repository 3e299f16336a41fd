/**
 * `-L` and attached `-s` (start-action.ts): the event log printed as it arrives, by polling
 * `GET /log?since_id=` (ids are strictly increasing, so nothing is printed twice). Ctrl+C ends the tail.
 */
import type { ConveyorClient } from '../client/api-client.ts';
import type { LogEntryWire } from '../client/replies.ts';
import type { CliIo, CommandContext } from './context.ts';
import { formatLogLine, useColour } from './output-format.ts';
import { sleep } from './abortable-sleep.ts';

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

/** Prints a log entry as `-L` does (coloured on a terminal). */
export function printer(io: CliIo): (entry: LogEntryWire) => void {
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
