/** Beyond the spec: the API's users (admin role). Passwords are only ever received, never returned. */
import { Type } from 'typebox';
import { closed, noQuery, ok, pathText, route } from './route.ts';

const tag = 'Users';
export const role = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]);
const user = closed({
  name: Type.String(),
  role,
  disabled: Type.Boolean({ description: 'A disabled user is refused (401) until an admin enables it again' }),
});
const nameParams = closed({ name: pathText('User name') });

export const listUsers = route({
  method: 'GET',
  path: '/users',
  role: 'admin',
  spec: false,
  tag,
  summary: 'The users, their roles and whether they are disabled',
  querystring: noQuery,
  replies: ok('Users', Type.Array(user)),
});

export const putUser = route({
  method: 'PUT',
  path: '/users/:name',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Create a user, or set its password and role (a disabled user stays disabled)',
  params: nameParams,
  querystring: noQuery,
  body: closed({ password: Type.String({ minLength: 1 }), role }),
  replies: ok('The user', user),
});

export const setUserRole = route({
  method: 'POST',
  path: '/users/:name/role',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Change the role of a user, keeping its password; the last enabled admin cannot be demoted',
  params: nameParams,
  querystring: noQuery,
  body: closed({ role }),
  replies: ok('The user', user),
});

export const resetUserPassword = route({
  method: 'POST',
  path: '/users/:name/password',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Give a user a new password, keeping its role; the old one stops working at once',
  params: nameParams,
  querystring: noQuery,
  body: closed({ password: Type.String({ minLength: 1 }) }),
  replies: ok('The user', user),
});

export const disableUser = route({
  method: 'POST',
  path: '/users/:name/disable',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Disable a user: its requests are refused (401) from the next one on; the last enabled admin cannot be disabled',
  params: nameParams,
  querystring: noQuery,
  replies: ok('The user', user),
});

export const enableUser = route({
  method: 'POST',
  path: '/users/:name/enable',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Enable a disabled user again',
  params: nameParams,
  querystring: noQuery,
  replies: ok('The user', user),
});

export const deleteUser = route({
  method: 'DELETE',
  path: '/users/:name',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Remove a user; the last enabled admin cannot be removed',
  params: nameParams,
  querystring: noQuery,
  replies: ok('Removed', closed({ status: Type.Literal('removed'), name: Type.String() })),
});
