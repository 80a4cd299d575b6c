import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import { ServiceError } from '../../services/errors.js';
import { EMAIL_SHAPE } from '../../services/password-policy.js';
import { usersService } from '../../services/users.js';
import { sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { passwordPolicyView, passwordProblem } from './password-feedback.js';
import { StateQuery } from './routes.js';
import { databaseConnection, finishLogin, formFields, noDatabaseConnection, openForm, openTransaction, type OpenTransaction } from './transaction-context.js';

const SignupForm = Type.Object(
  {
    state: Type.String({ maxLength: 64 }),
    _csrf: Type.Optional(Type.String({ maxLength: 128 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    username: Type.Optional(Type.String({ maxLength: 128 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);

/** The hosted signup page (`/u/signup`): creates a user in the database connection, then logs them in. */
export function signupRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const users = usersService({ storage: registry.storage, tenantId: registry.tenantId, now: registry.now });

  function signupScreen(open: OpenTransaction, connection: ConnectionData, extra: Partial<ScreenInput> = {}): ScreenInput {
    return {
      screen: 'signup',
      client: open.client,
      transaction: open.transaction,
      action: `/u/signup${open.query}`,
      hidden: formFields(registry, open),
      values: { email: open.transaction.request.loginHint ?? '' },
      connection: { name: connection.name, requiresUsername: connection.options.requires_username === true },
      passwordPolicy: passwordPolicyView(connection.options),
      links: { login: `/u/login${open.query}` },
      ...extra,
    };
  }

  return async (app) => {
    app.get('/u/signup', { schema: { tags: ['hosted pages'], summary: 'Signup page', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const connection = await databaseConnection(registry, open);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      if (connection.options.disable_signup === true) return reply.redirect(`/u/login${open.query}`, 302);
      return sendScreen(registry, reply, 200, signupScreen(open, connection));
    });

    app.post(
      '/u/signup',
      { attachValidation: true, schema: { tags: ['hosted pages'], summary: 'Submit the signup form', body: SignupForm } },
      async (request, reply) => {
        const form = request.body;
        const checked = await openForm(registry, request, reply, form);
        if (!checked) return reply;
        const { open, connection } = checked;
        if (connection.options.disable_signup === true) return noDatabaseConnection(registry, reply, open.client);
        const requiresUsername = connection.options.requires_username === true;
        const email = (form.email ?? '').trim();
        const username = (form.username ?? '').trim();
        const values = { email, ...(requiresUsername ? { username } : {}) };
        const again = (errorCode: PageErrorCode, errorDescription?: string) =>
          sendScreen(registry, reply, 400, signupScreen(open, connection, { errorCode, values, ...(errorDescription ? { errorDescription } : {}) }));
        if (!EMAIL_SHAPE.test(email) || !form.password || (requiresUsername && !/^[A-Za-z0-9_.+-]{1,128}$/.test(username))) return again('missing-fields');
        const problem = await passwordProblem(registry, connection.name, form.password, { email, ...(requiresUsername ? { username } : {}) });
        if (problem) return again(problem.errorCode, problem.errorDescription);
        if (!(await registry.loginProtection.signupAllowed(request.ip))) return again('suspicious-signups');
        let userId: string;
        let blocked: boolean | undefined;
        try {
          // The new user is logged in at once: that is their first login.
          const user = await users.create({ connection: connection.name, email, password: form.password, ...(requiresUsername ? { username } : {}) }, { ip: request.ip });
          userId = user.user_id;
          blocked = user.blocked;
        } catch (error) {
          if (error instanceof ServiceError && error.kind === 'conflict') return again('user-exists');
          throw error;
        }
        return finishLogin(registry, request, reply, open, { path: 'signup-page', userId, connection: connection.name, amr: ['pwd'], account: { blocked } });
      },
    );
  };
}
