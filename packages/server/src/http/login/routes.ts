import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import type { DatabaseLoginFailure } from '../../services/database-login.js';
import { sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { databaseConnection, finishLogin, formFields, noDatabaseConnection, openForm, openTransaction, type OpenTransaction } from './transaction-context.js';
import { tarpit } from '../plugins/rate-limits.js';

export const StateQuery = Type.Object({ state: Type.String({ minLength: 1, maxLength: 64, description: 'The login transaction.' }) });

const LoginForm = Type.Object(
  {
    state: Type.String({ maxLength: 64 }),
    _csrf: Type.Optional(Type.String({ maxLength: 128 })),
    username: Type.Optional(Type.String({ maxLength: 512 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);

/** What the login page says for each refusal; the rest is the one generic wrong-credentials message. */
const LOGIN_PAGE_ERRORS: Partial<Record<DatabaseLoginFailure, PageErrorCode>> = {
  blocked: 'user-blocked',
  too_many_attempts: 'too-many-attempts',
  ip_throttled: 'suspicious-ip',
  password_leaked: 'password-leaked',
};

/** The hosted login page (`/u/login`): username or e-mail and password against a database connection. */
export function loginRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  function loginScreen(open: OpenTransaction, connection: ConnectionData, extra: Partial<ScreenInput> = {}): ScreenInput {
    return {
      screen: 'login',
      client: open.client,
      transaction: open.transaction,
      action: `/u/login${open.query}`,
      hidden: formFields(registry, open),
      values: { username: open.transaction.lastUsername ?? open.transaction.request.loginHint ?? '' },
      connection: { name: connection.name, requiresUsername: connection.options.requires_username === true },
      links: {
        ...(connection.options.disable_signup === true ? {} : { signup: `/u/signup${open.query}` }),
        resetPassword: `/u/reset-password/request${open.query}`,
      },
      ...extra,
    };
  }

  return async (app) => {
    app.get('/u/login', { schema: { tags: ['hosted pages'], summary: 'Login page', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const connection = await databaseConnection(registry, open);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      return sendScreen(registry, reply, 200, loginScreen(open, connection));
    });

    app.post(
      '/u/login',
      { attachValidation: true, schema: { tags: ['hosted pages'], summary: 'Submit the login form', body: LoginForm } },
      async (request, reply) => {
        const form = request.body;
        const checked = await openForm(registry, request, reply, form);
        if (!checked) return reply;
        const { open, connection } = checked;
        const username = (form.username ?? '').trim();
        if (!username || !form.password) {
          return sendScreen(registry, reply, 400, loginScreen(open, connection, { errorCode: 'missing-fields', values: { username } }));
        }
        const result = await registry.userGrants.databaseLogin.login({ connection: connection.name, clientId: open.client.clientId, username, password: form.password, ip: request.ip });
        if (!result.ok) {
          await registry.transactions.save(open.handle, { ...open.transaction, lastUsername: username });
          // The platform's two wordings: "username" only where the connection has user names.
          const wrong = connection.options.requires_username === true ? 'wrong-credentials' : 'wrong-email-credentials';
          const errorCode = LOGIN_PAGE_ERRORS[result.reason] ?? wrong;
          // Blocked and throttled attempts wait like the Authentication API's 429s (plugins/rate-limits.ts tarpit).
          if (result.reason === 'too_many_attempts' || result.reason === 'ip_throttled') await tarpit();
          return sendScreen(registry, reply, 400, loginScreen(open, connection, { errorCode, values: { username } }));
        }
        return finishLogin(registry, request, reply, open, { path: 'login-page', userId: result.userId, connection: connection.name, amr: ['pwd'], account: result.user });
      },
    );
  };
}
