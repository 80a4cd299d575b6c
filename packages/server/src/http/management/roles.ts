import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { rolesService } from '../../services/roles.js';
import { listHandler } from './resource-handlers.js';
import { CheckpointQuery, ERROR_RESPONSES, IdParams, listResponseSchema, PaginationQuery } from './schemas.js';

const Role = Type.Object({ id: Type.String(), name: Type.String(), description: Type.Optional(Type.String()) });
const Permission = Type.Object({
  resource_server_identifier: Type.String(),
  permission_name: Type.String(),
  resource_server_name: Type.String(),
  description: Type.String(),
});
const UserPermission = Type.Object({
  ...Permission.properties,
  sources: Type.Array(Type.Object({ source_id: Type.String(), source_name: Type.String(), source_type: Type.Union([Type.Literal('DIRECT'), Type.Literal('ROLE')]) })),
});
const RoleUser = Type.Object({ user_id: Type.String(), email: Type.Optional(Type.String()), picture: Type.Optional(Type.String()), name: Type.Optional(Type.String()) });

const roleName = Type.String({ minLength: 1, maxLength: 50, description: 'Name of the role (unique in the tenant).' });
const roleDescription = Type.String({ maxLength: 140, description: 'Description of the role.' });
const CreateBody = Type.Object({ name: roleName, description: Type.Optional(roleDescription) }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(roleName), description: Type.Optional(roleDescription) }, { additionalProperties: false });
const PermissionKey = Type.Object(
  {
    resource_server_identifier: Type.String({ minLength: 1, maxLength: 600, description: 'The API, by its identifier.' }),
    permission_name: Type.String({ minLength: 1, maxLength: 280, description: 'One of the API\u2019s scopes.' }),
  },
  { additionalProperties: false },
);
const PermissionsBody = Type.Object({ permissions: Type.Array(PermissionKey, { minItems: 1, maxItems: 1000, description: 'API identifier and permission name pairs.' }) }, { additionalProperties: false });
const ids = (what: string) => Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: 1000, description: what });
const UsersBody = Type.Object({ users: ids('Ids of the users to give the role.') }, { additionalProperties: false });
const RolesBody = Type.Object({ roles: ids('Ids of the roles.') }, { additionalProperties: false });

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    name_filter: Type.Optional(Type.String({ maxLength: 50, description: 'Only roles whose name contains this (case-insensitive).' })),
    // The platform also has roles scoped to one organization; every Latchkey role is a tenant role, so
    // `tenant` lists them all (the deploy CLI asks for it) and no other kind is taken.
    type: Type.Optional(Type.Unsafe<'tenant'>({ type: 'string', enum: ['tenant'], description: 'tenant: roles of the whole tenant (every role here).' })),
  },
  { additionalProperties: false },
);
const PageQuery = Type.Object(PaginationQuery, { additionalProperties: false });
const RoleUsersQuery = Type.Object({ ...PaginationQuery, ...CheckpointQuery }, { additionalProperties: false });
const RoleParams = IdParams('The role id.');
const UserParams = IdParams('User id, e.g. auth0|abc (the | may be URL-encoded as %7C).', 300);
const tags = ['roles'];
const userTags = ['users'];

/**
 * `/api/v2/roles` with its permissions and users, and `/api/v2/users/{id}/roles` and `/users/{id}/permissions`, with
 * the platform's bodies, statuses and scopes (a token needs any one of a route's scopes).
 */
export function rolesRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const roles = rolesService(registry);

    app.get(
      '/roles',
      { config: { scopes: ['read:roles'] }, schema: { tags, summary: 'List roles', querystring: ListQuery, response: { 200: listResponseSchema('roles', Role), ...ERROR_RESPONSES } } },
      listHandler('roles', (window, query) => roles.list(window, query.name_filter)),
    );
    app.post(
      '/roles',
      { config: { scopes: ['create:roles'] }, schema: { tags, summary: 'Create a role', body: CreateBody, response: { 200: Role, ...ERROR_RESPONSES } } },
      async (request) => roles.create(request.body),
    );
    app.get(
      '/roles/:id',
      { config: { scopes: ['read:roles'] }, schema: { tags, summary: 'Get a role', params: RoleParams, response: { 200: Role, ...ERROR_RESPONSES } } },
      async (request) => roles.get(request.params.id),
    );
    app.patch(
      '/roles/:id',
      { config: { scopes: ['update:roles'] }, schema: { tags, summary: 'Update a role', params: RoleParams, body: UpdateBody, response: { 200: Role, ...ERROR_RESPONSES } } },
      async (request) => roles.update(request.params.id, request.body),
    );
    app.delete(
      '/roles/:id',
      { config: { scopes: ['delete:roles'] }, schema: { tags, summary: 'Delete a role (its assignments and permissions go with it)', params: RoleParams, response: { 200: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.remove(request.params.id);
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/roles/:id/permissions',
      { config: { scopes: ['read:roles'] }, schema: { tags, summary: 'List the permissions a role grants', params: RoleParams, querystring: PageQuery, response: { 200: listResponseSchema('permissions', Permission), ...ERROR_RESPONSES } } },
      async (request) => listHandler('permissions', (window) => roles.permissions(request.params.id, window))(request),
    );
    app.post(
      '/roles/:id/permissions',
      { config: { scopes: ['update:roles'] }, schema: { tags, summary: 'Add permissions to a role', params: RoleParams, body: PermissionsBody, response: { 201: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.addPermissions(request.params.id, request.body.permissions);
        return reply.code(201).send(null);
      },
    );
    app.delete(
      '/roles/:id/permissions',
      { config: { scopes: ['update:roles'] }, schema: { tags, summary: 'Remove permissions from a role', params: RoleParams, body: PermissionsBody, response: { 200: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.removePermissions(request.params.id, request.body.permissions);
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/roles/:id/users',
      {
        config: { scopes: ['read:users', 'read:roles', 'read:role_members'] },
        schema: { tags, summary: 'List the users of a role (page/per_page, or from/take)', params: RoleParams, querystring: RoleUsersQuery, response: { 200: listResponseSchema('users', RoleUser, { checkpoint: true }), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('users', (window) => roles.users(request.params.id, window))(request),
    );
    app.post(
      '/roles/:id/users',
      { config: { scopes: ['update:roles', 'create:role_members'] }, schema: { tags, summary: 'Give a role to users', params: RoleParams, body: UsersBody, response: { 200: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.assignUsers(request.params.id, request.body.users);
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/users/:id/roles',
      {
        config: { scopes: ['read:users', 'read:roles', 'read:role_members'] },
        schema: { tags: userTags, summary: 'List a user\u2019s roles', params: UserParams, querystring: PageQuery, response: { 200: listResponseSchema('roles', Role), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('roles', (window) => roles.rolesOfUser(request.params.id, window))(request),
    );
    app.post(
      '/users/:id/roles',
      { config: { scopes: ['update:users', 'create:role_members'] }, schema: { tags: userTags, summary: 'Give roles to a user', params: UserParams, body: RolesBody, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.assignRoles(request.params.id, request.body.roles);
        return reply.code(204).send(null);
      },
    );
    app.delete(
      '/users/:id/roles',
      { config: { scopes: ['update:users', 'delete:role_members'] }, schema: { tags: userTags, summary: 'Take roles from a user', params: UserParams, body: RolesBody, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.removeRoles(request.params.id, request.body.roles);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/users/:id/permissions',
      {
        config: { scopes: ['read:users'] },
        schema: { tags: userTags, summary: 'List a user\u2019s permissions, direct and through roles, with their sources', params: UserParams, querystring: PageQuery, response: { 200: listResponseSchema('permissions', UserPermission), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('permissions', (window) => roles.permissionsOfUser(request.params.id, window))(request),
    );
    app.post(
      '/users/:id/permissions',
      { config: { scopes: ['update:users'] }, schema: { tags: userTags, summary: 'Give permissions to a user directly', params: UserParams, body: PermissionsBody, response: { 201: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.addUserPermissions(request.params.id, request.body.permissions);
        return reply.code(201).send(null);
      },
    );
    app.delete(
      '/users/:id/permissions',
      { config: { scopes: ['update:users'] }, schema: { tags: userTags, summary: 'Take permissions given directly from a user', params: UserParams, body: PermissionsBody, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await roles.removeUserPermissions(request.params.id, request.body.permissions);
        return reply.code(204).send(null);
      },
    );
  };
}
