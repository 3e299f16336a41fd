/**
 * Beyond the spec: `GET /nodes`, the servers serving this store — every registered node of a
 * cluster sharing PostgreSQL, or this server alone on the embedded store — with their liveness.
 */
import type { FastifyInstance } from 'fastify';
import { nodes } from '../core/contract/component-routes.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

export function registerNodesRoute(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  serve(contractScope(root), catalog, nodes, async () => {
    const found = await engine.nodes();
    return { nodes: found.map((node) => ({ node_id: node.nodeId, host: node.host, pid: node.pid, self: node.self, silent_ms: Math.round(node.silentMs) })) };
  });
}
