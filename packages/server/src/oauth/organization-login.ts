import type { CachedClient, OAuthConfig } from '../services/config-cache.js';
import type { OrganizationInvitations } from '../services/organization-invitations.js';
import type { OrganizationRecord } from '../storage/repositories/organizations.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizeRequest } from './authorize/request.js';
import { InvalidRequest } from './errors.js';
import type { SignInRefusal, StageCheck } from './sign-in-pipeline.js';

export interface OrganizationLoginDeps {
  storage: Storage;
  tenantId: string;
  invitations: OrganizationInvitations;
  /** The tenant's settings (`allow_organization_name_in_authentication_api`). */
  config: Pick<OAuthConfig, 'tenantDocument'>;
  now: () => Date;
}

/** How a client uses organizations (the platform's defaults: `deny`, and `no_prompt` when required). */
export function organizationUsage(client: CachedClient) {
  return { usage: client.data.organization_usage ?? 'deny', behavior: client.data.organization_require_behavior ?? 'no_prompt' } as const;
}

/** What `/authorize` does about organizations before anyone logs in. */
export type OrganizationStart = { kind: 'none' } | { kind: 'organization'; request: AuthorizeRequest } | { kind: 'select-first' };

/**
 * Logins to organizations, as the platform has them. `/authorize?organization=` (an id or, where the tenant allows
 * organization names in the Authentication API, a name) logs the user in to that organization: only its enabled
 * connections are offered, and the user must be a member, or become one (a connection that assigns membership on
 * login, or an invitation for their address). A client that requires organizations gets its
 * `organization_require_behavior` when none is named: an error, the organization's name asked before login, or a
 * choice among the user's memberships after it.
 */
export function organizationLogin(deps: OrganizationLoginDeps) {
  const { storage, tenantId } = deps;

  async function find(value: string): Promise<OrganizationRecord | undefined> {
    return (await storage.organizations.get(tenantId, value)) ?? (value.startsWith('org_') ? undefined : await storage.organizations.getByName(tenantId, value.toLowerCase()));
  }

  /** Whether the tenant lets the Authentication API take organization names (off by default, as on the platform). */
  async function namesAllowed(): Promise<boolean> {
    const settings = (await deps.config.tenantDocument())?.settings as { allow_organization_name_in_authentication_api?: boolean } | undefined;
    return settings?.allow_organization_name_in_authentication_api === true;
  }

  /** The ids of the connections an organization's members log in with. */
  async function connectionIds(organizationId: string): Promise<Set<string>> {
    return new Set((await storage.organizations.connections(tenantId, organizationId)).map((connection) => connection.connectionId));
  }

  async function joinByInvitation(request: AuthorizeRequest, userId: string, email: string | undefined): Promise<SignInRefusal | void> {
    const redeemable = await deps.invitations.redeemable(request.invitation ?? '', request.organization ?? '');
    if (!redeemable) return { reason: 'denied', description: 'The invitation is not valid: it expired, was withdrawn or was accepted already.' };
    const { invitation } = redeemable;
    if ((email ?? '').toLowerCase() !== invitation.data.invitee.email) {
      return { reason: 'denied', description: 'The invitation is for another e-mail address.' };
    }
    const at = deps.now().toISOString();
    // Accepted once: the invitation is deleted in the commit that makes the user a member.
    const joined = await storage.transaction(async (repos) => {
      if (!(await repos.organizations.removeInvitation(tenantId, invitation.id))) return false;
      await repos.organizations.addMembers(tenantId, invitation.organizationId, [userId], at);
      await repos.organizations.assignMemberRoles(tenantId, invitation.organizationId, userId, invitation.data.roles, at);
      return true;
    });
    if (!joined) return { reason: 'denied', description: 'The invitation is not valid: it expired, was withdrawn or was accepted already.' };
  }

  /** Whether the user must choose among their organizations after logging in. */
  function pickerNeeded(request: Pick<AuthorizeRequest, 'organization'>, client: CachedClient): boolean {
    const { usage, behavior } = organizationUsage(client);
    return request.organization === undefined && usage === 'require' && behavior === 'post_login_prompt';
  }

  return {
    /**
     * Checks a request's `organization` and `invitation` against the client and resolves the organization to its id
     * (and name); tells when the organization must be asked for first. Throws `invalid_request` as the platform does.
     */
    async start(request: AuthorizeRequest, client: CachedClient): Promise<OrganizationStart> {
      const { usage, behavior } = organizationUsage(client);
      if (request.organization === undefined) {
        if (request.invitation !== undefined) throw new InvalidRequest('parameter invitation requires the organization parameter');
        if (usage !== 'require') return { kind: 'none' };
        if (behavior === 'pre_login_prompt') return { kind: 'select-first' };
        if (behavior === 'post_login_prompt') return { kind: 'none' };
        throw new InvalidRequest('parameter organization is required for this client');
      }
      if (usage === 'deny') throw new InvalidRequest('parameter organization is not allowed for this client');
      // A name is taken only where the tenant allows names: the ID token then has the org_name that clients asking by
      // name check (the platform's SDKs do). Elsewhere the platform refuses it with this answer.
      if (!request.organization.startsWith('org_') && !(await namesAllowed())) {
        throw new InvalidRequest('authorization request parameter organization must be an organization id');
      }
      const organization = await find(request.organization);
      if (!organization) throw new InvalidRequest(`parameter organization is invalid: no organization found for ${request.organization}`);
      if (request.invitation !== undefined && !(await deps.invitations.redeemable(request.invitation, organization.id))) {
        throw new InvalidRequest('parameter invitation is invalid: it expired, was withdrawn or was accepted already');
      }
      return { kind: 'organization', request: { ...request, organization: organization.id, organizationName: organization.name } };
    },

    /** An organization by id or name, for the screen that asks for it. */
    find,

    /** Whether members of the organization may log in with this connection (by id). */
    async connectionEnabled(organizationId: string, connectionId: string): Promise<boolean> {
      return (await connectionIds(organizationId)).has(connectionId);
    },

    connectionIds,

    /** The names of the connections an organization's members log in with. */
    async connectionNames(organizationId: string): Promise<Set<string>> {
      const records = await Promise.all([...(await connectionIds(organizationId))].map((id) => storage.connections.get(tenantId, id)));
      return new Set(records.flatMap((record) => (record ? [record.columns.name] : [])));
    },

    pickerNeeded,

    /** The organizations a user belongs to, by name. */
    async memberships(userId: string): Promise<OrganizationRecord[]> {
      return storage.organizations.getMany(tenantId, await storage.organizations.organizationIdsOfUser(tenantId, userId));
    },

    async isMember(organizationId: string, userId: string): Promise<boolean> {
      return storage.organizations.isMember(tenantId, organizationId, userId);
    },

    /**
     * The `organization-membership` stage: a login to an organization needs a member, or makes one (an invitation
     * for the user's address, once; or a connection that assigns membership on login). A client that has its users
     * choose their organization after logging in gets that decided here.
     */
    membershipStage: (async (attempt) => {
      const authorization = attempt.authorization;
      if (!authorization) return;
      const { request, client } = authorization;
      if (request.organization === undefined) {
        if (attempt.decisions && pickerNeeded(request, client)) attempt.decisions.pickOrganization = true;
        return;
      }
      if (request.invitation !== undefined) {
        const email = attempt.account?.email ?? (await storage.users.get(tenantId, attempt.userId))?.data.email;
        return joinByInvitation(request, attempt.userId, email);
      }
      if (await storage.organizations.isMember(tenantId, request.organization, attempt.userId)) return;
      const connection = attempt.connection === undefined ? undefined : await storage.connections.findOne(tenantId, { name: attempt.connection });
      const enabled = connection && (await storage.organizations.connection(tenantId, request.organization, connection.id));
      if (enabled?.assignMembershipOnLogin) {
        await storage.organizations.addMembers(tenantId, request.organization, [attempt.userId], deps.now().toISOString());
        return;
      }
      return { reason: 'denied', description: `User '${attempt.userId}' is not part of the '${request.organization}' organization.` };
    }) satisfies StageCheck,
  };
}

export type OrganizationLogin = ReturnType<typeof organizationLogin>;
