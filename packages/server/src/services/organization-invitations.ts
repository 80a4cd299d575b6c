import { createHash } from 'node:crypto';
import { hmacSha256 } from '../crypto/deployment-secret.js';
import { randomId } from '../crypto/random.js';
import type { InvitationData, InvitationRecord, OrganizationRecord } from '../storage/repositories/organizations.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import type { ClientData } from '../storage/records.js';
import { ServiceError } from './errors.js';
import type { Notifier } from './notifier.js';
import { noOrganization } from './organizations.js';

/** The platform's default lifetime of an invitation (7 days), and its longest (30 days). */
export const INVITATION_TTL_SECONDS = 604_800;
export const INVITATION_MAX_TTL_SECONDS = 2_592_000;

export interface InvitationView {
  id: string;
  organization_id: string;
  inviter: { name: string };
  invitee: { email: string };
  invitation_url: string;
  ticket_id: string;
  client_id: string;
  connection_id?: string;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
  roles: string[];
  created_at: string;
  expires_at: string;
}

/** A new invitation as the Management API takes it: what is stored, and how long it lasts and whether it is mailed. */
export type InvitationInput = Omit<InvitationData, 'roles'> & { ttl_sec?: number; roles?: string[]; send_invitation_email?: boolean };

export interface InvitationsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
  /** Derives an invitation's ticket from its id: only the ticket's hash is stored, yet the link can be shown again. */
  ticketKey: Buffer;
  notifier: Pick<Notifier, 'organizationInvitation'>;
}

/** An invitation that a login may redeem: it exists, has not expired, and its ticket matches. */
export interface RedeemableInvitation {
  invitation: InvitationRecord;
  organization: OrganizationRecord;
}

const ticketHash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/**
 * Invitations to organizations: an e-mail with a link to the application's `initiate_login_uri`, carrying the
 * invitation's ticket and the organization; the application sends the user to `/authorize` with both, and the user
 * joins the organization (with the invitation's roles) by logging in or signing up with the invited address, once.
 */
export function organizationInvitations(deps: InvitationsDeps) {
  const { storage, tenantId } = deps;
  const ticketOf = (id: string) => hmacSha256(deps.ticketKey, `organization-invitation:${tenantId}:${id}`).toString('base64url');

  async function organization(id: string): Promise<OrganizationRecord> {
    const found = await storage.organizations.get(tenantId, id);
    if (!found) throw noOrganization();
    return found;
  }

  function invitationUrl(client: ClientData | undefined, organization: OrganizationRecord, ticket: string): string {
    const base = client?.initiate_login_uri;
    if (!base) return '';
    const url = new URL(base);
    url.searchParams.set('invitation', ticket);
    url.searchParams.set('organization', organization.id);
    url.searchParams.set('organization_name', organization.name);
    return url.href;
  }

  async function view(invitation: InvitationRecord, organizationRecord: OrganizationRecord): Promise<InvitationView> {
    const client = (await storage.clients.get(tenantId, invitation.data.client_id))?.data;
    const ticket = ticketOf(invitation.id);
    return {
      id: invitation.id,
      organization_id: invitation.organizationId,
      inviter: invitation.data.inviter,
      invitee: invitation.data.invitee,
      invitation_url: invitationUrl(client, organizationRecord, ticket),
      ticket_id: ticket,
      client_id: invitation.data.client_id,
      ...(invitation.data.connection_id !== undefined ? { connection_id: invitation.data.connection_id } : {}),
      ...(invitation.data.app_metadata !== undefined ? { app_metadata: invitation.data.app_metadata } : {}),
      ...(invitation.data.user_metadata !== undefined ? { user_metadata: invitation.data.user_metadata } : {}),
      roles: invitation.data.roles,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
    };
  }

  return {
    async create(organizationId: string, input: InvitationInput): Promise<InvitationView> {
      const org = await organization(organizationId);
      const client = (await storage.clients.get(tenantId, input.client_id))?.data;
      if (!client) throw new ServiceError('not_found', 'The client does not exist', 'inexistent_client');
      if (!client.initiate_login_uri) {
        throw new ServiceError('invalid', 'The application must have an initiate_login_uri to send invitations to.', 'invalid_body');
      }
      if (input.connection_id !== undefined && !(await storage.organizations.connection(tenantId, organizationId, input.connection_id))) {
        throw new ServiceError('invalid', 'The connection is not enabled for this organization.', 'invalid_body');
      }
      const roles = [...new Set(input.roles ?? [])];
      if ((await storage.roles.getMany(tenantId, roles)).length !== roles.length) throw new ServiceError('not_found', 'The role does not exist.', 'inexistent_role');
      const now = deps.now();
      const ttl = input.ttl_sec === undefined || input.ttl_sec === 0 ? INVITATION_TTL_SECONDS : input.ttl_sec;
      const data: InvitationData = {
        inviter: input.inviter,
        invitee: { email: input.invitee.email.trim().toLowerCase() },
        client_id: input.client_id,
        ...(input.connection_id !== undefined ? { connection_id: input.connection_id } : {}),
        ...(input.app_metadata !== undefined ? { app_metadata: input.app_metadata } : {}),
        ...(input.user_metadata !== undefined ? { user_metadata: input.user_metadata } : {}),
        roles,
      };
      const invitation: InvitationRecord = {
        id: `uinv_${randomId(16)}`,
        organizationId,
        data,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttl * 1000).toISOString(),
      };
      const ticket = ticketOf(invitation.id);
      await storage.organizations.insertInvitation(tenantId, invitation, ticketHash(ticket));
      const shown = await view(invitation, org);
      if (input.send_invitation_email !== false) {
        await deps.notifier.organizationInvitation({
          email: data.invitee.email,
          url: shown.invitation_url,
          clientName: client.name ?? '',
          inviter: data.inviter.name,
          organization: org.displayName ?? org.name,
        });
      }
      return shown;
    },

    async list(organizationId: string, window: PageWindow) {
      const org = await organization(organizationId);
      const page = await storage.organizations.invitations(tenantId, organizationId, window);
      return { items: await Promise.all(page.items.map((invitation) => view(invitation, org))), total: page.total };
    },

    async get(organizationId: string, id: string): Promise<InvitationView> {
      const org = await organization(organizationId);
      const invitation = await storage.organizations.invitation(tenantId, organizationId, id);
      if (!invitation) throw new ServiceError('not_found', 'The invitation does not exist.', 'inexistent_resource');
      return view(invitation, org);
    },

    async remove(organizationId: string, id: string): Promise<void> {
      await organization(organizationId);
      if (!(await storage.organizations.invitation(tenantId, organizationId, id))) throw new ServiceError('not_found', 'The invitation does not exist.', 'inexistent_resource');
      await storage.organizations.removeInvitation(tenantId, id);
    },

    /** The invitation a ticket names, for the organization the request names, while it is valid. */
    async redeemable(ticket: string, organizationId: string): Promise<RedeemableInvitation | undefined> {
      const invitation = await storage.organizations.invitationByTicket(tenantId, ticketHash(ticket));
      if (!invitation || invitation.organizationId !== organizationId || invitation.expiresAt <= deps.now().toISOString()) return undefined;
      const org = await storage.organizations.get(tenantId, organizationId);
      return org && { invitation, organization: org };
    },
  };
}

export type OrganizationInvitations = ReturnType<typeof organizationInvitations>;
