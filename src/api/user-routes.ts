/**
 * Beyond the spec: managing the API's users (admin role). Passwords are only ever received, never
 * returned; each change takes effect at the next request (cached verifications are dropped).
 */
import type { FastifyInstance } from 'fastify';
import * as contract from '../core/contract/user-routes.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import type { UserDirectory } from './users.ts';

export function registerUserRoutes(root: FastifyInstance, users: UserDirectory, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, contract.listUsers, async () => {
    await users.reload();
    return users.list();
  });

  serve(scope, catalog, contract.putUser, async (request) => {
    const { name } = request.params;
    const { password, role } = request.body;
    await users.set(name, password, role);
    return { name, role };
  });

  serve(scope, catalog, contract.deleteUser, async (request) => {
    const { name } = request.params;
    await users.remove(name);
    return { status: 'removed' as const, name };
  });
}
