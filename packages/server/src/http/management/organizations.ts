import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { organizationsService } from '../../services/organizations.js';
import { deleteHandler, listHandler } from './resource-handlers.js';
import { ManagementError } from './errors.js';
import { CheckpointQuery, commaList, ERROR_RESPONSES, FieldsQuery, IdParams, listResponseSchema, NO_CONTENT_RESPONSES, nullable, PaginationQuery } from './schemas.js';
import { organizationInvitationRoutes } from './organization-invitations.js';
import { named } from '../plugin-name.js';

const color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'A colour, #RRGGBB.' });
const Branding = Type.Object(
  {
    logo_url: Type.Optional(Type.String({ maxLength: 2048, pattern: '^https://[^\\s]+$', description: 'The organization\u2019s logo (https).' })),
    colors: Type.Optional(Type.Object({ primary: color, page_background: color }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'What the login pages show for the organization.' },
);
const Metadata = Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 255 }), { maxProperties: 25, description: 'Up to 25 string key/value pairs.' });
const name = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$',
  description: 'Unique in the tenant: lowercase letters, digits, - and _, starting and ending with a letter or digit.',
});
const displayName = Type.String({ minLength: 1, maxLength: 255, description: 'The name users see.' });

const Organization = Type.Object(
  { id: Type.String(), name: Type.String(), display_name: Type.Optional(Type.String()), branding: Type.Optional(Branding), metadata: Type.Optional(Type.Record(Type.String(), Type.String())) },
  { additionalProperties: false },
);
const CreateBody = Type.Object(
  { name, display_name: Type.Optional(displayName), branding: Type.Optional(Branding), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  { name: Type.Optional(name), display_name: Type.Optional(displayName), branding: Type.Optional(nullable(Branding)), metadata: Type.Optional(nullable(Metadata)) },
  { additionalProperties: false, minProperties: 1 },
);
const Member = Type.Object({
  user_id: Type.String(),
  email: Type.Optional(Type.String()),
  picture: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  roles: Type.Optional(Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: 'The member\u2019s roles in the organization: only with fields=roles.' })),
});
const Role = Type.Object({ id: Type.String(), name: Type.String(), description: Type.Optional(Type.String()) });
const EnabledConnection = Type.Object({
  connection_id: Type.String(),
  assign_membership_on_login: Type.Boolean(),
  show_as_button: Type.Boolean(),
  is_signup_enabled: Type.Boolean(),
  connection: Type.Object({ name: Type.String(), strategy: Type.String() }),
});
const connectionFlags = {
  assign_membership_on_login: Type.Optional(Type.Boolean({ description: 'A user who logs in with this connection becomes a member (default false).' })),
  show_as_button: Type.Optional(Type.Boolean({ description: 'Shown as a button on the organization\u2019s login page (default true).' })),
  is_signup_enabled: Type.Optional(Type.Boolean({ description: 'Members may sign up with it (database connections; default true).' })),
};
const AddConnectionBody = Type.Object({ connection_id: Type.String({ minLength: 1, maxLength: 100 }), ...connectionFlags }, { additionalProperties: false });
const UpdateConnectionBody = Type.Object(connectionFlags, { additionalProperties: false, minProperties: 1 });
const ids = (what: string) => Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: 1000, description: what });
const MembersBody = Type.Object({ members: ids('Ids of the users.') }, { additionalProperties: false });
const RolesBody = Type.Object({ roles: ids('Ids of the roles.') }, { additionalProperties: false });

const PageQuery = Type.Object(PaginationQuery, { additionalProperties: false });
const CheckpointPageQuery = Type.Object({ ...PaginationQuery, ...CheckpointQuery }, { additionalProperties: false });
const MembersQuery = Type.Object({ ...PaginationQuery, ...CheckpointQuery, ...FieldsQuery }, { additionalProperties: false });
const MEMBER_ROLES_SCOPE = 'read:organization_member_roles';
const OrgParams = IdParams('The organization id.');
const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 50, description: 'The organization name.' }) });
const MemberParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), user_id: Type.String({ minLength: 1, maxLength: 300, description: 'The member\u2019s user id.' }) });
const ConnectionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), connection_id: Type.String({ minLength: 1, maxLength: 100 }) });
const UserParams = IdParams('User id, e.g. auth0|abc.', 300);
const tags = ['organizations'];

/**
 * `/api/v2/organizations` with its members, members' roles, enabled connections and invitations, and
 * `/api/v2/users/{id}/organizations`, with the platform's bodies, statuses and scopes.
 */
export function organizationsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const organizations = organizationsService(registry);

    app.get(
      '/organizations',
      { config: { scopes: ['read:organizations'] }, schema: { tags, summary: 'List organizations (page/per_page, or from/take)', querystring: CheckpointPageQuery, response: { 200: listResponseSchema('organizations', Organization, { checkpoint: true }), ...ERROR_RESPONSES } } },
      listHandler('organizations', (window) => organizations.list(window)),
    );
    app.post(
      '/organizations',
      { config: { scopes: ['create:organizations'] }, schema: { tags, summary: 'Create an organization', body: CreateBody, response: { 201: Organization, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await organizations.create(request.body)),
    );
    app.get(
      '/organizations/name/:name',
      { config: { scopes: ['read:organizations'] }, schema: { tags, summary: 'Get an organization by its name', params: NameParams, response: { 200: Organization, ...ERROR_RESPONSES } } },
      async (request) => organizations.getByName(request.params.name),
    );
    app.get(
      '/organizations/:id',
      { config: { scopes: ['read:organizations'] }, schema: { tags, summary: 'Get an organization', params: OrgParams, response: { 200: Organization, ...ERROR_RESPONSES } } },
      async (request) => organizations.get(request.params.id),
    );
    app.patch(
      '/organizations/:id',
      { config: { scopes: ['update:organizations'] }, schema: { tags, summary: 'Update an organization', params: OrgParams, body: UpdateBody, response: { 200: Organization, ...ERROR_RESPONSES } } },
      async (request) => organizations.update(request.params.id, request.body),
    );
    app.delete(
      '/organizations/:id',
      { config: { scopes: ['delete:organizations'] }, schema: { tags, summary: 'Delete an organization (its members, connections and invitations go with it)', params: OrgParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => organizations.remove(id)),
    );

    app.get(
      '/organizations/:id/members',
      {
        config: { scopes: ['read:organization_members'] },
        schema: {
          tags,
          summary: 'List members (page/per_page, or from/take); their roles only with fields=roles',
          params: OrgParams,
          querystring: MembersQuery,
          response: { 200: listResponseSchema('members', Member, { checkpoint: true }), ...ERROR_RESPONSES },
        },
      },
      async (request) => {
        // As the platform: roles are never sent by default, only when fields names them, and reading them takes
        // the member roles' own scope besides the route's.
        const withRoles = request.query.include_fields !== false && (commaList(request.query.fields) ?? []).includes('roles');
        if (withRoles && !request.auth?.scopes.has(MEMBER_ROLES_SCOPE)) {
          throw new ManagementError(403, `Insufficient scope, expected any of: ${MEMBER_ROLES_SCOPE}`, 'insufficient_scope');
        }
        return listHandler('members', (window) => organizations.members(request.params.id, window, withRoles))(request);
      },
    );
    app.post(
      '/organizations/:id/members',
      { config: { scopes: ['create:organization_members'] }, schema: { tags, summary: 'Add members', params: OrgParams, body: MembersBody, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await organizations.addMembers(request.params.id, request.body.members);
        return reply.code(204).send(null);
      },
    );
    app.delete(
      '/organizations/:id/members',
      { config: { scopes: ['delete:organization_members'] }, schema: { tags, summary: 'Remove members (and their roles in the organization)', params: OrgParams, body: MembersBody, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await organizations.removeMembers(request.params.id, request.body.members);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/organizations/:id/members/:user_id/roles',
      {
        config: { scopes: ['read:organization_member_roles'] },
        schema: { tags, summary: 'List a member\u2019s roles in the organization', params: MemberParams, querystring: PageQuery, response: { 200: listResponseSchema('roles', Role), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('roles', (window) => organizations.memberRoles(request.params.id, request.params.user_id, window))(request),
    );
    app.post(
      '/organizations/:id/members/:user_id/roles',
      { config: { scopes: ['create:organization_member_roles'] }, schema: { tags, summary: 'Give a member roles in the organization', params: MemberParams, body: RolesBody, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await organizations.assignMemberRoles(request.params.id, request.params.user_id, request.body.roles);
        return reply.code(204).send(null);
      },
    );
    app.delete(
      '/organizations/:id/members/:user_id/roles',
      { config: { scopes: ['delete:organization_member_roles'] }, schema: { tags, summary: 'Take roles in the organization from a member', params: MemberParams, body: RolesBody, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await organizations.removeMemberRoles(request.params.id, request.params.user_id, request.body.roles);
        return reply.code(204).send(null);
      },
    );

    // `enabled_connections` is the platform's first path for these; its newer SDKs (and the deploy CLI) use
    // `connections`, with the list under that key. Both address the same links.
    for (const key of ['enabled_connections', 'connections']) {
      app.get(
        `/organizations/:id/${key}`,
        {
          config: { scopes: ['read:organization_connections'] },
          schema: { tags, summary: 'List the connections members log in with', params: OrgParams, querystring: PageQuery, response: { 200: listResponseSchema(key, EnabledConnection), ...ERROR_RESPONSES } },
        },
        async (request) => listHandler(key, (window) => organizations.connections(request.params.id, window))(request),
      );
      app.post(
        `/organizations/:id/${key}`,
        { config: { scopes: ['create:organization_connections'] }, schema: { tags, summary: 'Enable a connection for the organization', params: OrgParams, body: AddConnectionBody, response: { 201: EnabledConnection, ...ERROR_RESPONSES } } },
        async (request, reply) => reply.code(201).send(await organizations.addConnection(request.params.id, request.body)),
      );
      app.get(
        `/organizations/:id/${key}/:connection_id`,
        { config: { scopes: ['read:organization_connections'] }, schema: { tags, summary: 'Get an enabled connection', params: ConnectionParams, response: { 200: EnabledConnection, ...ERROR_RESPONSES } } },
        async (request) => organizations.connection(request.params.id, request.params.connection_id),
      );
      app.patch(
        `/organizations/:id/${key}/:connection_id`,
        { config: { scopes: ['update:organization_connections'] }, schema: { tags, summary: 'Change how members log in with a connection', params: ConnectionParams, body: UpdateConnectionBody, response: { 200: EnabledConnection, ...ERROR_RESPONSES } } },
        async (request) => organizations.updateConnection(request.params.id, request.params.connection_id, request.body),
      );
      app.delete(
        `/organizations/:id/${key}/:connection_id`,
        { config: { scopes: ['delete:organization_connections'] }, schema: { tags, summary: 'Disable a connection for the organization', params: ConnectionParams, response: NO_CONTENT_RESPONSES } },
        deleteHandler(({ id, connection_id: connectionId }) => organizations.removeConnection(id, connectionId)),
      );
    }

    app.get(
      '/users/:id/organizations',
      {
        config: { scopes: ['read:users', 'read:organizations'] },
        schema: { tags: ['users'], summary: 'List the organizations a user belongs to', params: UserParams, querystring: PageQuery, response: { 200: listResponseSchema('organizations', Organization), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('organizations', (window) => organizations.ofUser(request.params.id, window))(request),
    );

    await app.register(named(organizationInvitationRoutes(registry)));
  };
}
