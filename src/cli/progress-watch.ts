/**
 * Progress of a lifecycle command, item by item, in local and remote mode alike: while the command's
 * request runs, the cli polls the event log (`GET /log?since_id=`, a spec route) for the entries the
 * engine writes per item ("Item X started with 1 job", "Item X stopped", "Item X failed to start: …")
 * and, to draw a bar, asks once how many items the command concerns (`GET /items`, Conveyor's own
 * route; a server without it gets a spinner and the events only). No server change, no second
 * channel: the log is already where every node of a cluster writes what its items do.
 */
import type { ConveyorClient } from '../client/api-client.ts';
import type { LogEntryWire } from '../client/replies.ts';
import { portalRoutes } from '../core/contract/index.ts';
import type { CliIo } from './context.ts';
import { createProgressView, progressStyle, type ProgressView } from './progress-view.ts';
import { sleep } from './abortable-sleep.ts';

export type WatchedOperation = 'start' | 'stop' | 'kill' | 'restart' | 'update';

export const pollIntervalMs = 250;

export interface ItemEvent {
  text: string;
  /** One of the steps the bar counts. */
  counts: boolean;
  failure: boolean;
}

/** What an engine log entry says about one item, as a progress event; null for any other entry. */
export function itemEvent(entry: LogEntryWire, operation: WatchedOperation): ItemEvent | null {
  const item = entry.config_name;
  if (!item || !entry.text.startsWith(`Item ${item} `)) return null;
  const what = entry.text.slice(`Item ${item} `.length);
  const failure = entry.type === 'Error';
  if (/^started\b/.test(what)) return { text: `${item} started`, counts: operation === 'start' || operation === 'restart' || operation === 'update', failure };
  if (/^stopped\b/.test(what)) return { text: `${item} stopped`, counts: operation === 'stop' || operation === 'restart', failure };
  if (/^failed to start\b/.test(what)) return { text: `${item} ${what}`, counts: operation === 'start' || operation === 'restart', failure: true };
  return failure ? { text: `${item}: ${what}`, counts: false, failure } : null;
}

/**
 * How many item events the bar counts: the enabled items a start starts, the running items a stop
 * stops, both for a restart. Unknown (undefined) for a kill and an update, or when the server does not
 * answer `GET /items`.
 */
export async function stepCount(client: ConveyorClient, operation: WatchedOperation, production: string): Promise<number | undefined> {
  if (operation === 'kill' || operation === 'update') return undefined;
  try {
    const reply = await client.call(portalRoutes.items, { query: production ? { production } : {} });
    const enabled = reply.items.filter((item) => item.enabled).length;
    const running = reply.running ? reply.items.filter((item) => item.state === 'running').length : 0;
    if (operation === 'start') return enabled;
    if (operation === 'stop') return running;
    return running + enabled;
  } catch {
    return undefined;
  }
}

/** The newest log id, to read only what comes after; null when the log cannot be read (no progress then). */
export async function newestLogId(client: ConveyorClient): Promise<number | null> {
  try {
    return (await client.logTop(1)).reduce((max, entry) => Math.max(max, entry.id), 0);
  } catch {
    return null;
  }
}

/**
 * Calls `onEntry` for each log entry after `sinceId`, oldest first, until `signal` aborts; then reads
 * once more (the entries written just before the command answered). Returns the last id seen. A
 * failing read ends the polling quietly: progress never fails a command.
 */
export async function pollLog(client: ConveyorClient, sinceId: number, onEntry: (entry: LogEntryWire) => void, signal: AbortSignal): Promise<number> {
  let since = sinceId;
  const read = async () => {
    for (const entry of await client.logSince(since)) {
      if (entry.id <= since) continue;
      since = entry.id;
      onEntry(entry);
    }
  };
  try {
    while (!signal.aborted) {
      await read();
      await sleep(pollIntervalMs, signal);
    }
    await read();
  } catch {
    // The server went away or does not serve the log: the command's own result says what matters.
  }
  return since;
}

/** A view for the command on this terminal (live on stderr, plain lines, or nothing). */
export function viewFor(io: CliIo, title: string): ProgressView {
  return createProgressView(progressStyle(io), title, io, {
    write: (text) => process.stderr.write(text),
    get columns() {
      return process.stderr.columns;
    },
  });
}

/** Runs `request` while showing the item events of `operation` on `production` ('' = the current one). */
export async function withProgress<T>(
  ctx: { client: ConveyorClient; io: CliIo },
  operation: WatchedOperation,
  title: string,
  production: string,
  request: () => Promise<T>,
): Promise<T> {
  const { client, io } = ctx;
  if (progressStyle(io) === 'off') return request();
  const since = await newestLogId(client);
  const view = viewFor(io, title);
  const stopPolling = new AbortController();
  void stepCount(client, operation, production).then((total) => total !== undefined && view.setTotal(total));
  const polling =
    since === null
      ? Promise.resolve()
      : pollLog(
          client,
          since,
          (entry) => {
            const event = itemEvent(entry, operation);
            if (event) view.event(event.text, event);
          },
          stopPolling.signal,
        );
  try {
    return await request();
  } finally {
    stopPolling.abort();
    await polling;
    view.finish();
  }
}
