/**
 * Beyond the spec: `GET /nodes`, the servers serving this store — every registered node of a
 * cluster sharing PostgreSQL, or this server alone on the embedded store — with their liveness.
 */
import type { FastifyInstance } from 'fastify';
import type { EngineApi } from '../engine/engine-api.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';

const nodeSchema = s.object({ node_id: s.str, host: s.str, pid: s.int, self: s.bool, silent_ms: s.int });
const nodesSchema = s.object({ nodes: s.arrayOf(nodeSchema) });

export function registerNodesRoute(scope: FastifyInstance, engine: EngineApi, catalog: RouteCatalog | null): void {
  addRoute(
    scope,
    catalog,
    { method: 'GET', url: '/nodes', role: 'viewer', spec: false, tag: 'Cluster', summary: 'The nodes serving this store and how long each has been silent', responses: s.ok('Nodes', nodesSchema) },
    async () => {
      const nodes = (await engine.nodes?.()) ?? [];
      return { nodes: nodes.map((node) => ({ node_id: node.nodeId, host: node.host, pid: node.pid, self: node.self, silent_ms: Math.round(node.silentMs) })) };
    },
  );
}
