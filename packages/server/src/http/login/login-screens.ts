import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import type { DatabaseLoginFailure } from '../../services/database-login.js';
import { tarpit } from '../plugins/rate-limits.js';
import { startFederatedLogin } from './federated-login.js';
import { sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { startPasswordless, passwordlessConnection } from './passwordless-screens.js';
import { resetRequestUrl, screenUrl } from './screens.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { screenInPlaceOf } from './entry.js';
import { databaseConnection, finishLogin, noDatabaseConnection, openScreenPost, openTransaction, redirectToScreen, type OpenTransaction } from './transaction-context.js';
import { passkeyLogin, passkeyLoginOffer } from './passkey-login.js';

/** The login screens' fields, as our pages and the platform's SDK post them (the SDK adds capability fields). */
const LoginForm = ScreenForm({
  username: Type.Optional(Type.String({ maxLength: 512 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  /** A federated connection to log in with instead (our buttons, the SDK's `federatedLogin`). */
  connection: Type.Optional(Type.String({ maxLength: 128 })),
  /** login-id: a passkey's assertion as JSON (the SDK's `passkeyLogin` and autofill post it alone). */
  passkey: Type.Optional(Type.String({ maxLength: 16_384 })),
});

/** What the login screens say for each refusal of a password; the rest is the one wrong-credentials message. */
const REFUSALS: Partial<Record<DatabaseLoginFailure, PageErrorCode>> = {
  blocked: 'user-blocked',
  too_many_attempts: 'too-many-attempts',
  ip_throttled: 'ip-blocked',
  password_leaked: 'password-breached',
  unknown_connection: 'invalid-connection',
  connection_not_enabled: 'invalid-connection',
};

/**
 * The login screens: `login` (identifier and password on one page), and identifier first: `login-id`, then
 * `login-password` for a database connection or the one-time-code screen for a passwordless one.
 */
export function loginScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const links = (open: OpenTransaction, connection: ConnectionData | undefined, screen: 'login' | 'login-id' | 'login-password') => ({
    ...(connection && connection.options.disable_signup !== true ? { signup: screenUrl(screen === 'login' ? 'signup' : 'signup-id', open.transaction) } : {}),
    ...(connection ? { reset_password: resetRequestUrl(connection.name, open.transaction) } : {}),
    ...(screen === 'login-password' ? { edit_identifier: screenUrl('login-id', open.transaction) } : {}),
  });

  const screenOf = (open: OpenTransaction, connection: ConnectionData | undefined, screen: 'login' | 'login-id' | 'login-password', extra: Partial<ScreenInput> = {}): ScreenInput => ({
    screen,
    client: open.client,
    transaction: open.transaction,
    action: screenUrl(screen, open.transaction),
    values: { username: open.transaction.identifier ?? open.transaction.lastUsername ?? open.transaction.request.loginHint ?? '' },
    ...(connection ? { connection } : {}),
    ...(screen === 'login-password' ? { screenData: { username: open.transaction.identifier ?? '' } } : {}),
    links: links(open, connection, screen),
    ...extra,
  });

  /** Checks a password for the transaction's user; answers the login, or the same screen with the refusal. */
  async function passwordLogin(request: FastifyRequest, reply: FastifyReply, open: OpenTransaction, connection: ConnectionData, screen: 'login' | 'login-password', username: string, password: string) {
    const result = await registry.userGrants.databaseLogin.login({ connection: connection.name, clientId: open.client.clientId, username, password, ip: request.ip, userAgent: request.headers['user-agent'] });
    if (result.ok) return finishLogin(registry, request, reply, open, { path: 'login-page', userId: result.userId, connection: connection.name, amr: ['pwd'], account: result.user });
    await registry.transactions.save(open.handle, { ...open.transaction, lastUsername: username });
    // The platform's two wordings: "username" only where the connection has user names.
    const wrong: PageErrorCode = connection.options.requires_username === true ? 'wrong-credentials' : 'wrong-email-credentials';
    // Blocked and throttled attempts wait like the Authentication API's 429s (plugins/rate-limits.ts tarpit).
    if (result.reason === 'too_many_attempts' || result.reason === 'ip_throttled') await tarpit();
    return sendScreen(registry, reply, 400, screenOf(open, connection, screen, { errorCode: REFUSALS[result.reason] ?? wrong, values: { username } }));
  }

  /** The login goes on at the federated connection posted; a connection the screen does not offer re-renders it. */
  const federated = (reply: FastifyReply, open: OpenTransaction, connection: ConnectionData | undefined, screen: 'login' | 'login-id' | 'login-password', name: string) =>
    startFederatedLogin(registry, reply, open, name, (errorCode) => sendScreen(registry, reply, 400, screenOf(open, connection, screen, { errorCode })));

  return async (app) => {
    const tags = ['hosted pages'];

    app.get('/u/login', { schema: { tags, summary: 'Login screen (identifier and password)', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      // Identifier first, this page is not shown: links to it (reset password's "back to login") land on login-id.
      const inPlace = await screenInPlaceOf(registry, 'login', open.transaction);
      if (inPlace) return redirectToScreen(reply, inPlace, open.transaction);
      const connection = await databaseConnection(registry, open);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      return sendScreen(registry, reply, 200, screenOf(open, connection, 'login'));
    });

    app.post('/u/login', { attachValidation: true, schema: { tags, summary: 'Submit the login screen', querystring: Type.Partial(StateQuery), body: LoginForm } }, async (request, reply) => {
      const open = await openScreenPost(registry, request, reply, 'login');
      if (!open) return reply;
      const connection = await databaseConnection(registry, open);
      if (request.body.connection) return federated(reply, open, connection, 'login', request.body.connection);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      const username = (request.body.username ?? '').trim();
      const password = request.body.password ?? '';
      if (!username || !password) {
        const missing = !username ? (connection.options.requires_username === true ? 'no-username' : 'no-email') : 'no-password';
        return sendScreen(registry, reply, 400, screenOf(open, connection, 'login', { errorCode: missing, errorField: !username ? 'username' : 'password', values: { username } }));
      }
      return passwordLogin(request, reply, open, connection, 'login', username, password);
    });

    app.get('/u/login/identifier', { schema: { tags, summary: 'Login screen, identifier first', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const connection = await databaseConnection(registry, open);
      return sendScreen(registry, reply, 200, screenOf(open, connection, 'login-id', await passkeyLoginOffer(registry, open, connection)));
    });

    app.post(
      '/u/login/identifier',
      { attachValidation: true, schema: { tags, summary: 'Submit the identifier', querystring: Type.Partial(StateQuery), body: LoginForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'login-id');
        if (!open) return reply;
        const connection = await databaseConnection(registry, open);
        if (request.body.connection) return federated(reply, open, connection, 'login-id', request.body.connection);
        const again = async (open: OpenTransaction, extra: Partial<ScreenInput>) =>
          sendScreen(registry, reply, 400, screenOf(open, connection, 'login-id', { ...extra, ...(await passkeyLoginOffer(registry, open, connection)) }));
        if (request.body.passkey !== undefined) return passkeyLogin(registry, request, reply, open, connection, request.body.passkey, (current, errorCode) => again(current, { errorCode }));
        const username = (request.body.username ?? '').trim();
        if (!username) return again(open, { errorCode: connection?.options.requires_username === true ? 'no-username' : 'no-email', errorField: 'username' });
        // A database connection asks for the password; without one, a passwordless connection sends a code.
        if (connection) {
          await registry.transactions.save(open.handle, { ...open.transaction, identifier: username });
          return reply.header('cache-control', 'no-store').redirect(screenUrl('login-password', open.transaction), 302);
        }
        const passwordless = await passwordlessConnection(registry, open);
        if (!passwordless) return noDatabaseConnection(registry, reply, open.client);
        return startPasswordless(registry, reply, open, passwordless, username, (errorCode) =>
          sendScreen(registry, reply, 400, screenOf(open, undefined, 'login-id', { errorCode, errorField: 'username', values: { username } })),
        );
      },
    );

    app.get('/u/login/password', { schema: { tags, summary: 'Login screen, password after the identifier', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      if (open.transaction.identifier === undefined) return reply.header('cache-control', 'no-store').redirect(screenUrl('login-id', open.transaction), 302);
      const connection = await databaseConnection(registry, open);
      if (!connection) return noDatabaseConnection(registry, reply, open.client);
      return sendScreen(registry, reply, 200, screenOf(open, connection, 'login-password'));
    });

    app.post(
      '/u/login/password',
      { attachValidation: true, schema: { tags, summary: 'Submit the password', querystring: Type.Partial(StateQuery), body: LoginForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'login-password');
        if (!open) return reply;
        const connection = await databaseConnection(registry, open);
        if (request.body.connection) return federated(reply, open, connection, 'login-password', request.body.connection);
        if (!connection) return noDatabaseConnection(registry, reply, open.client);
        // The identifier is the one the transaction took on login-id; a posted `username` (the SDK echoes it) is not trusted.
        const username = open.transaction.identifier ?? '';
        const password = request.body.password ?? '';
        if (!password) return sendScreen(registry, reply, 400, screenOf(open, connection, 'login-password', { errorCode: 'no-password', errorField: 'password' }));
        return passwordLogin(request, reply, open, connection, 'login-password', username, password);
      },
    );
  };
}
