/**
 * Beyond the spec: retention (declared in src/core/contract/retention-routes.ts). `POST /messages/purge`
 * runs a paced purge in the server and answers once it is done; `GET`/`PUT /retention` read and set the
 * namespace's policy with what its store holds. Times go out as ISO 8601.
 */
import type { FastifyInstance } from 'fastify';
import * as contract from '../core/contract/retention-routes.ts';
import type { ReplyOf } from '../core/contract/route.ts';
import type { EngineOperations, NamespaceOperations } from '../engine/namespace-operations.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

type StoreReport = ReplyOf<typeof contract.getRetention>;

const iso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

async function storeReport(namespace: NamespaceOperations): Promise<StoreReport> {
  const [policy, usage] = await Promise.all([namespace.retention.policy(), namespace.retention.usage()]);
  const last = namespace.retention.lastRun();
  return {
    namespace: namespace.name,
    policy,
    usage: { ...usage, oldestMessage: iso(usage.oldestMessage), oldestLogEntry: iso(usage.oldestLogEntry) },
    lastRun:
      last === null
        ? null
        : {
            at: new Date(last.at).toISOString(),
            messages: last.report?.messages ?? 0,
            logEntries: last.report?.logEntries ?? 0,
            bytesEstimate: last.report?.bytes ?? 0,
            error: last.error,
          },
  };
}

export function registerRetentionRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, contract.purgeMessages, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { olderThan, keepDays, dryRun, includeLog } = request.body;
    const outcome = await namespace.retention.purge({ olderThan, keepDays, dryRun, includeLog }, request.user?.name ?? 'unknown');
    return {
      purged: outcome.messages,
      olderThan: new Date(outcome.before).toISOString(),
      dryRun: outcome.dryRun,
      messages: outcome.messages,
      bodies: outcome.bodies,
      logEntries: outcome.logEntries,
      bytesEstimate: outcome.bytes,
      reclaimedBytes: outcome.reclaimedBytes,
      batches: outcome.batches,
      durationMs: outcome.durationMs,
      complete: outcome.complete,
    };
  });

  serve(scope, catalog, contract.getRetention, async (request) => storeReport(await namespaceOf(request, engine)));

  serve(scope, catalog, contract.putRetention, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { messageDays, logDays, maxStoreBytes } = request.body;
    const none = messageDays === null && logDays === null && maxStoreBytes === null;
    await namespace.retention.setPolicy(none ? null : { messageDays, logDays, maxStoreBytes });
    return storeReport(namespace);
  });
}
