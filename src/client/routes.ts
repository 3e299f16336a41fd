/**
 * The route declarations and their JSON types, for callers of `ConveyorClient.call`. The portal takes
 * them from here: web/ may import src/client (and src/dtl), not src/core.
 */
export * from '../core/contract/index.ts';
export type { BodyOf, ParamsOf, QueryOf, ReplyOf } from '../core/contract/route.ts';
