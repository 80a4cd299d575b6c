import { requestOrigin } from '../request-origin.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { completeAuthorization } from '../../oauth/authorize/flow.js';
import { AccessDenied } from '../../oauth/errors.js';
import type { OrganizationRecord } from '../../storage/repositories/organizations.js';
import type { Registry } from '../../registry.js';
import { sendAuthorizationStep } from './authorization-step.js';
import { clearTransactionCookie } from './cookies.js';
import { loginScreenUrl } from './entry.js';
import { signedInUser } from './greeting-name.js';
import { sendErrorPage, sendScreen } from './pages.js';
import type { OrganizationShown } from './render/model.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { screenUrl } from './screens.js';
import { authorizeDeps, openScreenPost, openTransaction, refuseLogin, signedInSession, type OpenTransaction } from './transaction-context.js';

const SelectionForm = ScreenForm({ organizationName: Type.Optional(Type.String({ maxLength: 100 })) });
const PickerForm = ScreenForm({ organization: Type.Optional(Type.String({ maxLength: 100 })) });
const InvitationForm = ScreenForm({});

const shown = (organization: OrganizationRecord): OrganizationShown => ({
  id: organization.id,
  name: organization.name,
  ...(organization.displayName !== null ? { display_name: organization.displayName } : {}),
  ...(organization.branding !== null ? { branding: organization.branding as NonNullable<OrganizationShown['branding']> } : {}),
});

const noStoreRedirect = (reply: FastifyReply, url: string) => reply.header('cache-control', 'no-store').redirect(url, 302);

/**
 * The organization prompts and the invitation screen, under the platform's screen names:
 * - `organization-selection` (before login, for clients that require an organization and ask for it first): the
 *   user types the organization's name (`organizationName`);
 * - `organization-picker` (after login, `post_login_prompt`): the signed-in user chooses among their memberships
 *   (`organization`, an id);
 * - `accept-invitation`: who invites the user to which organization; continuing leads to login or signup with the
 *   invited address.
 */
export function organizationScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);
  const tags = ['hosted pages'];

  const selectionScreen = (open: OpenTransaction, extra: { errorCode?: 'invalid-organization'; value?: string } = {}) => ({
    screen: 'organization-selection' as const,
    client: open.client,
    transaction: open.transaction,
    action: screenUrl('organization-selection', open.transaction),
    values: { organizationName: extra.value ?? '' },
    ...(extra.errorCode ? { errorCode: extra.errorCode, errorField: 'organizationName' } : {}),
  });

  const sessionGone = (reply: FastifyReply, open: OpenTransaction) =>
    sendErrorPage(registry, reply, 400, 'invalid_request', 'This login belongs to a session that has ended. Go back to the application and start again.', open.client);

  async function invitationOf(open: OpenTransaction) {
    const { invitation, organization } = open.transaction.request;
    return invitation !== undefined && organization !== undefined ? registry.invitations.redeemable(invitation, organization) : undefined;
  }

  return async (app) => {
    app.get('/u/organization-selection', { schema: { tags, summary: 'Organization prompt: the organization\u2019s name before login', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      return sendScreen(registry, reply, 200, selectionScreen(open));
    });

    app.post(
      '/u/organization-selection',
      { attachValidation: true, schema: { tags, summary: 'Submit the organization\u2019s name', querystring: Type.Partial(StateQuery), body: SelectionForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'organization-selection');
        if (!open) return reply;
        const value = (request.body.organizationName ?? '').trim();
        // The client requires an organization: skipping (the SDK's skipOrganizationSelection) is not an answer.
        const organization = value === '' ? undefined : await registry.organizations.find(value);
        if (!organization) return sendScreen(registry, reply, 400, selectionScreen(open, { errorCode: 'invalid-organization', value }));
        const transaction = { ...open.transaction, request: { ...open.transaction.request, organization: organization.id, organizationName: organization.name } };
        await registry.transactions.save(open.handle, transaction);
        return noStoreRedirect(reply, await loginScreenUrl(registry, transaction));
      },
    );

    app.get('/u/accept-invitation', { schema: { tags, summary: 'Invitation: who invites the user to which organization', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const redeemable = await invitationOf(open);
      if (!redeemable) return refuseLogin(registry, reply, open, new AccessDenied('The invitation is not valid: it expired, was withdrawn or was accepted already.'));
      const { inviter, invitee } = redeemable.invitation.data;
      return sendScreen(registry, reply, 200, {
        screen: 'accept-invitation',
        client: open.client,
        transaction: open.transaction,
        action: screenUrl('accept-invitation', open.transaction),
        screenData: { inviter: inviter.name, email: invitee.email },
        textValues: { inviterName: inviter.name },
      });
    });

    app.post(
      '/u/accept-invitation',
      { attachValidation: true, schema: { tags, summary: 'Continue with the invitation (to login or signup)', querystring: Type.Partial(StateQuery), body: InvitationForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'accept-invitation');
        if (!open) return reply;
        const redeemable = await invitationOf(open);
        if (!redeemable) return refuseLogin(registry, reply, open, new AccessDenied('The invitation is not valid: it expired, was withdrawn or was accepted already.'));
        // The invited address logs in if it has an account on the organization's connections (the invitation's own,
        // when it names one), else signs up.
        const { invitee, connection_id: connectionId } = redeemable.invitation.data;
        const email = invitee.email;
        const named = connectionId === undefined ? undefined : (await registry.storage.connections.get(registry.tenantId, connectionId))?.columns.name;
        const names = named !== undefined ? new Set([named]) : await registry.organizations.connectionNames(redeemable.organization.id);
        let known = false;
        for (const connection of names) known ||= (await registry.storage.users.findOne(registry.tenantId, { connection, email })) !== undefined;
        const { screenHint: _hint, ...rest } = open.transaction.request;
        const transaction = { ...open.transaction, request: { ...rest, loginHint: email, ...(known ? {} : { screenHint: 'signup' }), ...(named !== undefined ? { connection: named } : {}) } };
        await registry.transactions.save(open.handle, transaction);
        return noStoreRedirect(reply, await loginScreenUrl(registry, transaction));
      },
    );

    app.get('/u/organization-picker', { schema: { tags, summary: 'Organization prompt: choose an organization after login', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const picker = open.transaction.organizationPicker;
      if (!picker) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login asks for no organization.', open.client);
      if (!(await signedInSession(registry, request, open.transaction.organizationPicker))) return sessionGone(reply, open);
      const memberships = await registry.organizations.memberships(picker.userId);
      if (memberships.length === 0) return refuseLogin(registry, reply, open, new AccessDenied('The user is not a member of any organization.'));
      return sendScreen(registry, reply, 200, {
        screen: 'organization-picker',
        client: open.client,
        transaction: open.transaction,
        action: screenUrl('organization-picker', open.transaction),
        organizations: memberships.map(shown),
        user: await signedInUser(registry, picker.userId),
      });
    });

    app.post(
      '/u/organization-picker',
      { attachValidation: true, schema: { tags, summary: 'Choose the organization', querystring: Type.Partial(StateQuery), body: PickerForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'organization-picker');
        if (!open) return reply;
        const picker = open.transaction.organizationPicker;
        const session = await signedInSession(registry, request, open.transaction.organizationPicker);
        if (!picker || !session) return sessionGone(reply, open);
        const chosen = (await registry.organizations.memberships(picker.userId)).find((organization) => organization.id === request.body.organization);
        if (!chosen) return noStoreRedirect(reply, screenUrl('organization-picker', open.transaction));
        // Only one answer counts: a second post (another tab, a replay) finds the transaction ended.
        if (!(await registry.transactions.complete(open.handle))) {
          return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login was already completed. Go back to the application.', open.client);
        }
        clearTransactionCookie(registry, reply, open.transaction.publicId);
        const authorization = { ...open.transaction.request, organization: chosen.id, organizationName: chosen.name };
        // The organization chosen, the consent (if any) is asked next, then the application is answered.
        return sendAuthorizationStep(registry, reply, await completeAuthorization(authorization, open.client, session, deps, undefined, requestOrigin(request)));
      },
    );
  };
}
