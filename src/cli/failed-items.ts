/**
 * After a start, restart or update: the items of the production that did not start, and why, on
 * stderr. The spec's status stays `running` (the rest of the production runs), so this is the only
 * place the command line learns that some items are in error. The items come from the server's
 * own items route; a server without it (IoP's) answers nothing, and nothing is said.
 */
import type { ConveyorClient } from '../client/api-client.ts';
import { portalRoutes } from '../client/routes.ts';
import type { CliIo } from './context.ts';

export async function reportFailedItems(client: ConveyorClient, io: CliIo, production: string): Promise<void> {
  let items;
  try {
    items = (await client.call(portalRoutes.items, { query: { production } })).items;
  } catch {
    return;
  }
  const failed = items.filter((item) => item.enabled && item.state === 'error');
  if (failed.length === 0) return;
  io.err(`Warning: ${failed.length === 1 ? '1 item' : `${failed.length} items`} of ${production} did not start:`);
  for (const item of failed) io.err(`  ${item.name} (${item.classname}): ${item.error ?? 'no reason recorded'}`);
}
