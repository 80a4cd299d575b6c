import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CachedClient } from '../../services/config-cache.js';
import type { Registry } from '../../registry.js';
import { EMAIL_SHAPE } from '../../services/password-policy.js';
import { sendPasswordResetLink } from '../../services/password-reset.js';
import { sendErrorPage, sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { connectionOptions, passwordPolicyView, passwordProblem } from './password-feedback.js';
import { StateQuery } from './routes.js';
import { formFields, openForm, openTransaction, type OpenTransaction } from './transaction-context.js';

const RequestForm = Type.Object(
  { state: Type.String({ maxLength: 64 }), _csrf: Type.Optional(Type.String({ maxLength: 128 })), email: Type.Optional(Type.String({ maxLength: 320 })) },
  { additionalProperties: true },
);
const TicketQuery = Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 128, description: 'The password-change ticket.' }) });
const ResetForm = Type.Object(
  {
    ticket: Type.String({ maxLength: 128 }),
    _csrf: Type.Optional(Type.String({ maxLength: 128 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    'password-confirmation': Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);

/**
 * Where "Back to the application" leads once the password is changed: the ticket's `result_url`, else the site
 * of the application's first web callback (a callback itself would need a fresh authorization request).
 */
function applicationLink(resultUrl: string | null, client: CachedClient | undefined): string | undefined {
  if (resultUrl) return resultUrl;
  const callback = client?.data.callbacks.find((url) => /^https?:\/\/[^*]+$/.test(url) && URL.canParse(url));
  return callback ? `${new URL(callback).origin}/` : undefined;
}

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
    return user ? { passwordPolicy: passwordPolicyView(await connectionOptions(registry, user.columns.connection)) } : {};
  };
  const requestScreen = (open: OpenTransaction, email: string): ScreenInput => ({
    screen: 'reset-password-request',
    client: open.client,
    transaction: open.transaction,
    action: `/u/reset-password/request${open.query}`,
    hidden: formFields(registry, open),
    values: { email },
    links: { login: `/u/login${open.query}` },
  });
  return async (app) => {
    app.get('/u/reset-password/request', { schema: { tags, summary: 'Password reset request page', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      return sendScreen(registry, reply, 200, requestScreen(open, open.transaction.lastUsername ?? ''));
    });

    app.post(
      '/u/reset-password/request',
      { attachValidation: true, schema: { tags, summary: 'Request a password reset e-mail', body: RequestForm } },
      async (request, reply) => {
        const checked = await openForm(registry, request, reply, request.body);
        if (!checked) return reply;
        const { open, connection } = checked;
        const email = (request.body.email ?? '').trim().toLowerCase();
        if (!EMAIL_SHAPE.test(email)) {
          return sendScreen(registry, reply, 400, { ...requestScreen(open, email), errorCode: 'missing-fields' });
        }
        await sendPasswordResetLink(
          { storage: registry.storage, tenantId: registry.tenantId, resets: registry.passwordResets, notifier: registry.notifier },
          { connection: connection.name, email, clientId: open.client.clientId, clientName: open.client.data.name },
        );
        return sendScreen(registry, reply, 200, {
          screen: 'reset-password-email',
          client: open.client,
          transaction: open.transaction,
          values: { email },
          links: { login: `/u/login${open.query}` },
        });
      },
    );

    app.get('/u/reset-password', { attachValidation: true, schema: { tags, summary: 'Password reset page', querystring: TicketQuery } }, async (request, reply) => {
      const ticket = request.validationError ? undefined : request.query.ticket;
      const found = ticket ? await registry.passwordResets.find(ticket) : undefined;
      const client = found?.client_id ? await registry.oauthConfig.client(found.client_id) : undefined;
      if (!ticket || !found) return sendScreen(registry, reply, 400, { screen: 'reset-password-error', client, errorCode: 'invalid-ticket' });
      return sendScreen(registry, reply, 200, {
        screen: 'reset-password',
        client,
        action: '/u/reset-password',
        hidden: { ticket, _csrf: registry.passwordResets.csrfToken(ticket) },
        ...(await policyOf(found.user_id)),
      });
    });

    app.post('/u/reset-password', { attachValidation: true, schema: { tags, summary: 'Set a new password', body: ResetForm } }, async (request, reply) => {
      if (request.validationError) return sendScreen(registry, reply, 400, { screen: 'reset-password-error', client: undefined, errorCode: 'invalid-ticket' });
      const { ticket, _csrf: csrf, password } = request.body;
      const found = await registry.passwordResets.find(ticket);
      const client = found?.client_id ? await registry.oauthConfig.client(found.client_id) : undefined;
      if (!found) return sendScreen(registry, reply, 400, { screen: 'reset-password-error', client, errorCode: 'invalid-ticket' });
      if (!registry.passwordResets.csrfValid(ticket, csrf)) {
        return sendErrorPage(registry, reply, 403, 'invalid_request', 'The form could not be verified. Open the link from the e-mail again.', client);
      }
      const again = async (errorCode: PageErrorCode, errorDescription?: string) =>
        sendScreen(registry, reply, 400, {
          screen: 'reset-password',
          client,
          action: '/u/reset-password',
          hidden: { ticket, _csrf: csrf ?? '' },
          errorCode,
          ...(errorDescription ? { errorDescription } : {}),
          ...(await policyOf(found.user_id)),
        });
      if (!password || password !== request.body['password-confirmation']) return again('passwords-differ');
      const user = await registry.storage.users.get(registry.tenantId, found.user_id);
      if (!user) return sendScreen(registry, reply, 400, { screen: 'reset-password-error', client, errorCode: 'invalid-ticket' });
      const problem = await passwordProblem(registry, user.columns.connection, password, {
        email: user.data.email ?? undefined,
        username: user.data.username ?? undefined,
        name: user.data.name ?? undefined,
        given_name: user.data.given_name ?? undefined,
        family_name: user.data.family_name ?? undefined,
        nickname: user.data.nickname ?? undefined,
      });
      if (problem) return again(problem.errorCode, problem.errorDescription);
      const redeemed = await registry.passwordResets.redeem(ticket, password);
      if (!redeemed) return sendScreen(registry, reply, 400, { screen: 'reset-password-error', client, errorCode: 'invalid-ticket' });
      const application = applicationLink(redeemed.result_url, client);
      return sendScreen(registry, reply, 200, { screen: 'reset-password-success', client, links: application ? { application } : {} });
    });
  };
}
