/** Beyond the spec: the API's users (admin role). Passwords are only ever received, never returned. */
import { Type } from 'typebox';
import { closed, noQuery, ok, pathText, route } from './route.ts';

const tag = 'Users';
export const role = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]);
const user = closed({ name: Type.String(), role });
const nameParams = closed({ name: pathText('User name') });

export const listUsers = route({
  method: 'GET',
  path: '/users',
  role: 'admin',
  spec: false,
  tag,
  summary: 'The users and their roles',
  querystring: noQuery,
  replies: ok('Users', Type.Array(user)),
});

export const putUser = route({
  method: 'PUT',
  path: '/users/:name',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Create a user, or set its password and role',
  params: nameParams,
  querystring: noQuery,
  body: closed({ password: Type.String({ minLength: 1 }), role }),
  replies: ok('The user', user),
});

export const deleteUser = route({
  method: 'DELETE',
  path: '/users/:name',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Remove a user',
  params: nameParams,
  querystring: noQuery,
  replies: ok('Removed', closed({ status: Type.Literal('removed'), name: Type.String() })),
});
