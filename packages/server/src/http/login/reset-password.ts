import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CachedClient } from '../../services/config-cache.js';
import type { Registry } from '../../registry.js';
import { EMAIL_SHAPE } from '../../services/password-policy.js';
import { sendPasswordResetLink } from '../../services/password-reset.js';
import { sendErrorPage, sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { connectionOptions, passwordPolicyView, passwordProblem } from './password-feedback.js';
import { databaseConnection, noDatabaseConnection, openScreenPost, openTransaction, type OpenTransaction } from './transaction-context.js';
import { resetRequestUrl, screenUrl } from './screens.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import type { ConnectionData } from '../../services/connections.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originFields } from '../../services/events/event.js';
import { userView } from '../../services/users.js';
import { requestOrigin } from '../request-origin.js';
import { applicationLink } from './application-link.js';

const RequestForm = ScreenForm({ email: Type.Optional(Type.String({ maxLength: 320 })), username: Type.Optional(Type.String({ maxLength: 320 })) });
const ConnectionParams = Type.Object({ connection: Type.String({ minLength: 1, maxLength: 128 }) });
const TicketQuery = Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 128, description: 'The password-change ticket.' }) });
/** The new password as the platform's SDK posts it (`password-reset`, `re-enter-password`, `state`). */
const ResetForm = ScreenForm({
  ticket: Type.Optional(Type.String({ maxLength: 128 })),
  'password-reset': Type.Optional(Type.String({ maxLength: 1024 })),
  're-enter-password': Type.Optional(Type.String({ maxLength: 1024 })),
});

/**
 * Password reset: the request page (`/u/reset-password/request`, from the login page) issues a ticket and hands
 * the link to the notifier; the reset page (`/u/reset-password?ticket=`) sets the new password. The request
 * page answers the same whether or not the address has an account, so it tells nobody who is registered.
 */
export function resetPasswordRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const tags = ['hosted pages'];
  /** The rules of the new password: the policy of the ticket user's connection. */
  const policyOf = async (userId: string) => {
    const user = await registry.storage.users.get(registry.tenantId, userId);
    if (!user) return {};
    const options = await connectionOptions(registry, user.columns.connection);
    return { passwordPolicy: passwordPolicyView(options), connection: { name: user.columns.connection, strategy: 'auth0' as const, options } };
  };
  const requestScreen = (open: OpenTransaction, connection: ConnectionData, email: string): ScreenInput => ({
    screen: 'reset-password-request',
    client: open.client,
    transaction: open.transaction,
    action: resetRequestUrl(connection.name, open.transaction),
    values: { email },
    connection,
    links: { login: screenUrl('login', open.transaction) },
  });
  /** The database connection a reset is requested for: the one in the URL, enabled for the transaction's application. */
  const requestConnection = async (open: OpenTransaction, name: string) =>
    (await registry.userGrants.databaseLogin.connectionsFor(open.client.clientId)).find((connection) => connection.name === name);

  /** The e-mail with the link, and the screen that says it went (the same whether or not the address has an account). */
  async function sendLink(request: FastifyRequest, reply: FastifyReply, open: OpenTransaction, connection: ConnectionData, email: string) {
    await sendPasswordResetLink(
      { storage: registry.storage, tenantId: registry.tenantId, resets: registry.passwordResets, notifier: registry.notifier, events: registry.events },
      { connection: connection.name, email, clientId: open.client.clientId, clientName: open.client.data.name, origin: requestOrigin(request) },
    );
    await registry.transactions.save(open.handle, { ...open.transaction, lastUsername: email });
    return sendScreen(registry, reply, 200, {
      screen: 'reset-password-email',
      client: open.client,
      transaction: open.transaction,
      action: resetRequestUrl(connection.name, open.transaction),
      values: { email },
      screenData: { email },
      connection,
      links: { login: screenUrl('login', open.transaction) },
    });
  }

  /** The reset screen of a ticket: its `state` is derived from the ticket, so only a page that had the ticket can post. */
  const resetScreen = async (ticket: string, found: { user_id: string }, client: CachedClient | undefined, extra: Partial<ScreenInput> = {}): Promise<ScreenInput> => ({
    screen: 'reset-password',
    client,
    action: `/u/reset-password?ticket=${encodeURIComponent(ticket)}`,
    state: registry.passwordResets.csrfToken(ticket),
    ...(await policyOf(found.user_id)),
    ...extra,
  });
  const ticketError = (reply: FastifyReply, client: CachedClient | undefined) =>
    sendScreen(registry, reply, 400, { screen: 'reset-password-error', client, errorCode: 'auth0-users-expired-ticket' });

  return async (app) => {
    // The address of earlier versions (no connection in the path) leads to the transaction's database connection.
    app.get('/u/reset-password/request', { schema: { tags, summary: 'Password reset request screen (earlier address)', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const connection = await databaseConnection(registry, open);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      return reply.header('cache-control', 'no-store').redirect(resetRequestUrl(connection.name, open.transaction), 302);
    });

    app.get(
      '/u/reset-password/request/:connection',
      { schema: { tags, summary: 'Password reset request screen', params: ConnectionParams, querystring: StateQuery } },
      async (request, reply) => {
        const open = await openTransaction(registry, request, reply, request.query.state);
        if (!open) return reply;
        const connection = await requestConnection(open, request.params.connection);
        if (!connection) return noDatabaseConnection(registry, reply, open.client);
        return sendScreen(registry, reply, 200, requestScreen(open, connection, open.transaction.lastUsername ?? open.transaction.identifier ?? ''));
      },
    );

    app.post(
      '/u/reset-password/request/:connection',
      { attachValidation: true, schema: { tags, summary: 'Request a password reset e-mail', params: ConnectionParams, querystring: Type.Partial(StateQuery), body: RequestForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'reset-password-request');
        if (!open) return reply;
        const connection = await requestConnection(open, request.params.connection);
        if (!connection) return noDatabaseConnection(registry, reply, open.client);
        const { action } = request.body;
        if (action === 'back-to-login') return reply.header('cache-control', 'no-store').redirect(screenUrl('login', open.transaction), 302);
        // `resend-email-action` (on reset-password-email) sends the link again to the address the request took.
        const typed = action === 'resend-email-action' ? (open.transaction.lastUsername ?? '') : (request.body.email ?? request.body.username ?? '');
        const email = typed.trim().toLowerCase();
        if (!email) return sendScreen(registry, reply, 400, { ...requestScreen(open, connection, email), errorCode: 'no-email', errorField: 'email' });
        if (!EMAIL_SHAPE.test(email)) return sendScreen(registry, reply, 400, { ...requestScreen(open, connection, email), errorCode: 'invalid-email-format', errorField: 'email' });
        return sendLink(request, reply, open, connection, email);
      },
    );

    app.get('/u/reset-password', { attachValidation: true, schema: { tags, summary: 'Password reset screen', querystring: TicketQuery } }, async (request, reply) => {
      const ticket = request.validationError ? undefined : request.query.ticket;
      const found = ticket ? await registry.passwordResets.find(ticket) : undefined;
      const client = found?.client_id ? await registry.oauthConfig.client(found.client_id) : undefined;
      if (!ticket || !found) return ticketError(reply, client);
      return sendScreen(registry, reply, 200, await resetScreen(ticket, found, client));
    });

    app.post(
      '/u/reset-password',
      { attachValidation: true, schema: { tags, summary: 'Set a new password', querystring: Type.Partial(TicketQuery), body: ResetForm } },
      async (request, reply) => {
        if (request.validationError) return ticketError(reply, undefined);
        const body = request.body;
        // The SDK posts to the page's own URL (`?ticket=`); our page also carries it in the form.
        const ticket = request.query.ticket ?? body.ticket ?? '';
        const found = ticket ? await registry.passwordResets.find(ticket) : undefined;
        const client = found?.client_id ? await registry.oauthConfig.client(found.client_id) : undefined;
        if (!found) return ticketError(reply, client);
        const origin = request.headers.origin;
        if (!registry.passwordResets.csrfValid(ticket, body.state) || (origin !== undefined && origin !== new URL(registry.issuer).origin)) {
          return sendErrorPage(registry, reply, 403, 'invalid_request', 'The form could not be verified. Open the link from the e-mail again.', client);
        }
        const again = async (errorCode: PageErrorCode, errorField: string) =>
          sendScreen(registry, reply, 400, await resetScreen(ticket, found, client, { errorCode, errorField }));
        const password = body['password-reset'] ?? '';
        if (!password) return again('no-password-reset', 'password-reset');
        if (password !== body['re-enter-password']) return again('password-mismatch', 're-enter-password');
        const user = await registry.storage.users.get(registry.tenantId, found.user_id);
        if (!user) return ticketError(reply, client);
        const problem = await passwordProblem(registry, user.columns.connection, password, {
          email: user.data.email ?? undefined,
          username: user.data.username ?? undefined,
          name: user.data.name ?? undefined,
          given_name: user.data.given_name ?? undefined,
          family_name: user.data.family_name ?? undefined,
          nickname: user.data.nickname ?? undefined,
        });
        // The platform words a breached new password on this screen under its own key.
        const logged = { user_id: found.user_id, connection: user.columns.connection, ...(found.client_id ? { client_id: found.client_id } : {}), ...originFields(requestOrigin(request)) };
        if (problem) {
          registry.events.record({ type: 'fcp', description: problem.errorCode, ...logged });
          return again(problem.errorCode === 'password-breached' ? 'password-breached-reset' : problem.errorCode, 'password-reset');
        }
        const redeemed = await registry.passwordResets.redeem(ticket, password);
        if (!redeemed) return ticketError(reply, client);
        registry.events.record({ type: 'scp', ...logged });
        registry.actionTriggers.lifecycle.postChangePassword(userView(user), { connection: { name: user.columns.connection, strategy: 'auth0' }, client, origin: requestOrigin(request) });
        const application = applicationLink(redeemed.result_url, client);
        return sendScreen(registry, reply, 200, { screen: 'reset-password-success', client, links: application ? { application } : {} });
      },
    );
  };
}
