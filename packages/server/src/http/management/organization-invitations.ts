import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { INVITATION_MAX_TTL_SECONDS } from '../../services/organization-invitations.js';
import { deleteHandler, listHandler } from './resource-handlers.js';
import { ERROR_RESPONSES, listResponseSchema, NO_CONTENT_RESPONSES, PaginationQuery } from './schemas.js';

const Metadata = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown(), { maxProperties: 25 });
const Invitation = Type.Object(
  {
    id: Type.String(),
    organization_id: Type.String(),
    inviter: Type.Object({ name: Type.String() }),
    invitee: Type.Object({ email: Type.String() }),
    invitation_url: Type.String(),
    ticket_id: Type.String(),
    client_id: Type.String(),
    connection_id: Type.Optional(Type.String()),
    app_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    user_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    roles: Type.Array(Type.String()),
    created_at: Type.String(),
    expires_at: Type.String(),
  },
  { additionalProperties: false },
);
const CreateBody = Type.Object(
  {
    inviter: Type.Object({ name: Type.String({ minLength: 1, maxLength: 300, description: 'Who invites, as the e-mail names them.' }) }, { additionalProperties: false }),
    invitee: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320, format: 'email', description: 'Who is invited: they join by logging in or signing up with this address.' }) }, { additionalProperties: false }),
    client_id: Type.String({ minLength: 1, maxLength: 100, description: 'The application the link leads to (its initiate_login_uri).' }),
    connection_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The connection to log in with (one enabled for the organization).' })),
    app_metadata: Type.Optional(Metadata),
    user_metadata: Type.Optional(Metadata),
    ttl_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: INVITATION_MAX_TTL_SECONDS, description: 'Lifetime in seconds (0 or absent: 7 days; at most 30 days).' })),
    roles: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: 'Roles the member gets in the organization.' })),
    send_invitation_email: Type.Optional(Type.Boolean({ description: 'Send the invitation e-mail (default true).' })),
  },
  { additionalProperties: false },
);
const OrgParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'The organization id.' }) });
const InvitationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), invitation_id: Type.String({ minLength: 1, maxLength: 100 }) });
const tags = ['organizations'];

/** `/api/v2/organizations/{id}/invitations`: invite someone to join, list, read and withdraw invitations. */
export function organizationInvitationRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const invitations = registry.invitations;
    app.get(
      '/organizations/:id/invitations',
      {
        config: { scopes: ['read:organization_invitations'] },
        schema: { tags, summary: 'List invitations', params: OrgParams, querystring: Type.Object(PaginationQuery, { additionalProperties: false }), response: { 200: listResponseSchema('invitations', Invitation), ...ERROR_RESPONSES } },
      },
      async (request) => listHandler('invitations', (window) => invitations.list(request.params.id, window))(request),
    );
    app.post(
      '/organizations/:id/invitations',
      { config: { scopes: ['create:organization_invitations'] }, schema: { tags, summary: 'Invite someone to join the organization', params: OrgParams, body: CreateBody, response: { 201: Invitation, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await invitations.create(request.params.id, request.body)),
    );
    app.get(
      '/organizations/:id/invitations/:invitation_id',
      { config: { scopes: ['read:organization_invitations'] }, schema: { tags, summary: 'Get an invitation', params: InvitationParams, response: { 200: Invitation, ...ERROR_RESPONSES } } },
      async (request) => invitations.get(request.params.id, request.params.invitation_id),
    );
    app.delete(
      '/organizations/:id/invitations/:invitation_id',
      { config: { scopes: ['delete:organization_invitations'] }, schema: { tags, summary: 'Withdraw an invitation', params: InvitationParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id, invitation_id: invitationId }) => invitations.remove(id, invitationId)),
    );
  };
}
