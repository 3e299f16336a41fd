/**
 * `conveyor purge`: asks the running server of a home, over its Unix socket (trusted as the home's
 * admin), to purge old finished messages and event-log entries (`POST /messages/purge`). The purge
 * runs inside the server, paced against its traffic; without a running server there is nothing to
 * ask, and the command says how to start one.
 */
import { join } from 'node:path';
import { ConveyorClient } from '../client/api-client.ts';
import { createNodeTransport } from '../client/node-transport.ts';
import { retentionRoutes, type ReplyOf } from '../client/routes.ts';
import { ConveyorError, isConveyorError } from '../core/errors.ts';

export interface PurgeFlags {
  namespace: string;
  keepDays?: string;
  olderThan?: string;
  dryRun?: boolean;
  /** commander's --no-log sets log false. */
  log: boolean;
}

type PurgeReply = ReplyOf<typeof retentionRoutes.purgeMessages>;

/** A little longer than the server's own budget for one purge (namespace-retention.ts). */
const replyTimeoutMs = 300_000;

export async function purgeThroughServer(home: string, apiPrefix: string, flags: PurgeFlags): Promise<PurgeReply> {
  const keepDays = flags.keepDays === undefined ? undefined : Number(flags.keepDays);
  if (keepDays !== undefined && Number.isNaN(keepDays))
    throw new ConveyorError('ERR_INVALID_INPUT', `--keep-days must be a number of days, not ${flags.keepDays}`);
  const client = new ConveyorClient(createNodeTransport({ socketPath: join(home, 'conveyor.sock') }), { namespace: flags.namespace, apiPrefix });
  try {
    return await client.call(retentionRoutes.purgeMessages, {
      body: {
        ...(keepDays === undefined ? {} : { keepDays }),
        ...(flags.olderThan === undefined ? {} : { olderThan: flags.olderThan }),
        ...(flags.dryRun ? { dryRun: true } : {}),
        ...(flags.log ? {} : { includeLog: false }),
      },
      timeoutMs: replyTimeoutMs,
    });
  } catch (error) {
    const code = isConveyorError(error) ? (error.details as { code?: unknown } | undefined)?.code : undefined;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') {
      throw new ConveyorError('ERR_UNREACHABLE', `No Conveyor server runs for ${home}: a purge runs inside the server`, {
        hint: `Start it (conveyor serve --home ${home}), then run conveyor purge again.`,
      });
    }
    throw error;
  }
}

/** The lines to print. */
export function purgeLines(reply: PurgeReply): string[] {
  const verb = reply.dryRun ? 'Would purge' : 'Purged';
  const lines = [
    `${verb} ${reply.messages} messages (${reply.bodies} bodies) and ${reply.logEntries} event-log entries older than ${reply.olderThan}, about ${reply.bytesEstimate} bytes`,
  ];
  if (!reply.dryRun) lines.push(`Gave ${reply.reclaimedBytes} bytes back to the file system; ${reply.batches} batches in ${reply.durationMs} ms`);
  if (!reply.complete) lines.push('Stopped at its time budget (4 minutes) before the end: run it again for the rest');
  return lines;
}
