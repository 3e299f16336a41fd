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
    return users.get(name);
  });

  serve(scope, catalog, contract.setUserRole, async (request) => {
    await users.setRole(request.params.name, request.body.role);
    return users.get(request.params.name);
  });

  serve(scope, catalog, contract.resetUserPassword, async (request) => {
    await users.setPassword(request.params.name, request.body.password);
    return users.get(request.params.name);
  });

  serve(scope, catalog, contract.disableUser, async (request) => {
    await users.setDisabled(request.params.name, true);
    return users.get(request.params.name);
  });

  serve(scope, catalog, contract.enableUser, async (request) => {
    await users.setDisabled(request.params.name, false);
    return users.get(request.params.name);
  });

  serve(scope, catalog, contract.deleteUser, async (request) => {
    const { name } = request.params;
    await users.remove(name);
    return { status: 'removed' as const, name };
  });
}
