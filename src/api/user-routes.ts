/**
 * Beyond the spec: managing the API's users (admin role). Passwords are only ever received, never
 * returned; each change takes effect at the next request (cached verifications are dropped).
 */
import type { FastifyInstance } from 'fastify';
import { ConveyorError } from '../core/errors.ts';
import { bodyObject, optionalString, requiredString } from './request-input.ts';
import { addRoute, type RouteCatalog } from './route-catalog.ts';
import * as s from './schemas.ts';
import { isRole, type UserDirectory } from './users.ts';

const tag = 'Users';
const roleSchema = { type: 'string', enum: ['viewer', 'operator', 'admin'] };
const userSchema = s.object({ name: s.str, role: roleSchema });
const nameParam = s.pathParameter('name', 'User name');

export function registerUserRoutes(scope: FastifyInstance, users: UserDirectory, catalog: RouteCatalog | null): void {
  addRoute(scope, catalog, { method: 'GET', url: '/users', role: 'admin', spec: false, tag, summary: 'The users and their roles', responses: s.ok('Users', s.arrayOf(userSchema)) }, async () => {
    await users.reload();
    return users.list();
  });

  addRoute(
    scope,
    catalog,
    {
      method: 'PUT',
      url: '/users/:name',
      role: 'admin',
      spec: false,
      tag,
      summary: 'Create a user, or set its password and role',
      parameters: [nameParam],
      body: { schema: s.object({ password: { type: 'string', minLength: 1 }, role: roleSchema }), required: true },
      responses: s.ok('The user', userSchema),
    },
    async (request) => {
      const { name } = request.params as { name: string };
      const body = bodyObject(request);
      const password = requiredString(body, 'password', "the user's new password");
      const role = optionalString(body, 'role');
      if (!isRole(role)) throw new ConveyorError('ERR_INVALID_INPUT', `role must be viewer, operator or admin, not ${JSON.stringify(role ?? null)}`);
      await users.set(name, password, role);
      return { name, role };
    },
  );

  addRoute(
    scope,
    catalog,
    { method: 'DELETE', url: '/users/:name', role: 'admin', spec: false, tag, summary: 'Remove a user', parameters: [nameParam], responses: s.ok('Removed', s.object({ status: { const: 'removed' }, name: s.str })) },
    async (request) => {
      const { name } = request.params as { name: string };
      await users.remove(name);
      return { status: 'removed', name };
    },
  );
}
