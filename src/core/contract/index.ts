/** Every route of the HTTP API, by family; see route.ts for what a declaration holds. */
export * as componentRoutes from './component-routes.ts';
export * as controlRoutes from './control-routes.ts';
export * as definitionRoutes from './definition-routes.ts';
export * as documentRoutes from './document-routes.ts';
export * as messageSearchRoutes from './message-search-routes.ts';
export * as dtlRoutes from './dtl-routes.ts';
export * as monitoringRoutes from './monitoring-routes.ts';
export * as monitorRoutes from './monitor-routes.ts';
export * as portalRoutes from './portal-routes.ts';
export * as retentionRoutes from './retention-routes.ts';
export * as ruleRoutes from './rule-routes.ts';
export * as specRoutes from './spec-routes.ts';
export * as userRoutes from './user-routes.ts';
export * from './route.ts';
export * from './production-shapes.ts';
export * from './portal-shapes.ts';
export type { SchemaFieldJson } from './dtl-routes.ts';
