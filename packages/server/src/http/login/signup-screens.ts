import { mergeMetadata, type Metadata } from '../../services/metadata.js';
import { Type } from '@sinclair/typebox';
import { sendSignupVerification } from './email-verification.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import { ServiceError } from '../../services/errors.js';
import { EMAIL_SHAPE } from '../../services/password-policy.js';
import { newDatabaseUserId, usersService } from '../../services/users.js';
import { passkeySettingsOf } from '../../services/connection-options/passkeys.js';
import { amrOf } from '../../services/mfa/webauthn-policy.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import { passkeyAmr } from './passkey-login.js';
import { startFederatedLogin } from './federated-login.js';
import { sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { passwordPolicyView, passwordProblem } from './password-feedback.js';
import { screenUrl, USERNAME_SHAPE } from './screens.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { screenInPlaceOf } from './entry.js';
import { databaseConnection, finishLogin, noDatabaseConnection, openScreenPost, openTransaction, redirectToScreen, type OpenTransaction } from './transaction-context.js';
import { originFields } from '../../services/events/event.js';
import { requestOrigin } from '../request-origin.js';

const SignupForm = ScreenForm({
  email: Type.Optional(Type.String({ maxLength: 320 })),
  username: Type.Optional(Type.String({ maxLength: 128 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  /** A federated connection to sign up with instead (our buttons, the SDK's `federatedSignup`). */
  connection: Type.Optional(Type.String({ maxLength: 128 })),
});

type SignupScreen = 'signup' | 'signup-id' | 'signup-password';

/** What a new account is created with: a password, or a passkey verified for it (passkey-enrollment). */
export type SignupCredential = { password: string } | { passkey: AuthenticatorRecord };

/**
 * The signup's screens and the creation of the account, shared by the signup screens and passkey-enrollment (a
 * signup with a passkey ends there).
 */
export function signupFlow(registry: Registry) {
  const users = usersService({ storage: registry.storage, tenantId: registry.tenantId, now: registry.now });

  function screenOf(open: OpenTransaction, connection: ConnectionData, screen: SignupScreen, extra: Partial<ScreenInput> = {}): ScreenInput {
    const identifiers = open.transaction.signupIdentifiers;
    return {
      screen,
      client: open.client,
      transaction: open.transaction,
      action: screenUrl(screen, open.transaction),
      values: { email: identifiers?.email ?? open.transaction.request.loginHint ?? '', ...(identifiers?.username ? { username: identifiers.username } : {}) },
      connection,
      ...(screen !== 'signup-id' ? { passwordPolicy: passwordPolicyView(connection.options) } : {}),
      ...(screen === 'signup-password' ? { screenData: { email: identifiers?.email ?? '', ...(identifiers?.username ? { username: identifiers.username } : {}) } } : {}),
      links: {
        login: screenUrl(screen === 'signup' ? 'login' : 'login-id', open.transaction),
        ...(screen === 'signup-password' ? { edit_identifier: screenUrl('signup-id', open.transaction) } : {}),
      },
      ...extra,
    };
  }

  /** The identifiers of a signup form, or the error code of the first one missing or malformed. */
  function identifiersOf(connection: ConnectionData, form: { email?: string | undefined; username?: string | undefined }) {
    const requiresUsername = connection.options.requires_username === true;
    const email = (form.email ?? '').trim();
    const username = (form.username ?? '').trim();
    if (!email) return { refused: 'no-email' as const, field: 'email' };
    if (!EMAIL_SHAPE.test(email)) return { refused: 'invalid-email-format' as const, field: 'email' };
    if (requiresUsername && !username) return { refused: 'no-username' as const, field: 'username' };
    if (requiresUsername && !USERNAME_SHAPE.test(username)) return { refused: 'invalid-username' as const, field: 'username' };
    return { email, ...(requiresUsername ? { username } : {}) };
  }

  /** The same screen again, with what was typed and the first identifier that is missing or malformed. */
  function refuseIdentifiers(
    reply: FastifyReply,
    open: OpenTransaction,
    connection: ConnectionData,
    screen: 'signup' | 'signup-id',
    refusal: { refused: PageErrorCode; field: string },
    form: { email?: string | undefined; username?: string | undefined },
  ) {
    const values = { email: (form.email ?? '').trim(), username: (form.username ?? '').trim() };
    return sendScreen(registry, reply, 400, screenOf(open, connection, screen, { errorCode: refusal.refused, errorField: refusal.field, values }));
  }

  /** Creates the user with a checked password (or the passkey) and logs them in; a refusal re-renders `screen`. */
  async function createAndLogIn(
    request: FastifyRequest,
    reply: FastifyReply,
    open: OpenTransaction,
    connection: ConnectionData,
    screen: SignupScreen,
    identifiers: { email: string; username?: string },
    credential: SignupCredential,
  ) {
    const again = (errorCode: PageErrorCode, errorField?: string, action?: { reason: string; userMessage: string | undefined; details: Record<string, unknown> }) => {
      // The tenant log's signup failure (the address throttled is `limit_mu`); never the password. An action's
      // refusal keeps its execution and console output, as post-login's do.
      const event = {
        client_id: open.client.clientId,
        connection: connection.name,
        user_name: identifiers.email,
        description: action?.reason ?? errorCode,
        ...originFields(requestOrigin(request)),
        ...(action ? { details: action.details } : {}),
      };
      registry.events.record({ ...event, type: errorCode === 'ip-signup-blocked' ? 'limit_mu' : 'fs' });
      const shown = { errorCode, values: { ...identifiers }, ...(errorField ? { errorField } : {}), ...(action?.userMessage ? { errorDescription: action.userMessage } : {}) };
      return sendScreen(registry, reply, 400, screenOf(open, connection, screen, shown));
    };
    if ('password' in credential) {
      if (!credential.password) return again('no-password', 'password');
      const problem = await passwordProblem(registry, connection.name, credential.password, identifiers);
      if (problem) return again(problem.errorCode, 'password');
    }
    if (!(await registry.loginProtection.signupAllowed(request.ip))) return again('ip-signup-blocked');
    const context = { connection, client: open.client, origin: requestOrigin(request) };
    const actions = await registry.actionTriggers.lifecycle.preUserRegistration({ ...identifiers }, context);
    if (!actions.ok) return again('custom-script-error-code', undefined, actions);
    let created;
    try {
      const metadata = {
        ...(actions.userMetadata ? { user_metadata: mergeMetadata({}, actions.userMetadata as Metadata) } : {}),
        ...(actions.appMetadata ? { app_metadata: mergeMetadata({}, actions.appMetadata as Metadata) } : {}),
      };
      created =
        'password' in credential
          ? await users.create({ connection: connection.name, ...identifiers, password: credential.password, ...metadata }, { ip: request.ip })
          : await users.create({ connection: connection.name, ...identifiers, ...metadata }, { ip: request.ip, passkeyUserId: credential.passkey.userId });
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'conflict') return again('email-in-use', 'email');
      throw error;
    }
    registry.actionTriggers.lifecycle.postUserRegistration(created, context);
    await sendSignupVerification(registry, request, {
      userId: created.user_id,
      email: created.email,
      emailVerified: created.email_verified,
      connection: connection.name,
      clientId: open.client.clientId,
      clientName: open.client.data.name,
    });
    let amr = ['pwd'];
    if ('passkey' in credential) {
      const enrolled = await registry.mfa.webauthn.enroll(credential.passkey, { client_id: open.client.clientId, ip: request.ip });
      // The account was created just now with the id the credential is bound to: no one else can hold it.
      if (!enrolled.ok) throw new Error(`The new account's passkey was not enrolled: ${enrolled.reason}`);
      amr = passkeyAmr(amrOf(credential.passkey), credential.passkey.data.userVerified === true);
    }
    return finishLogin(registry, request, reply, open, { path: 'signup-page', userId: created.user_id, connection: connection.name, amr, account: { blocked: created.blocked } });
  }

  /** The database connection a signup screen creates users in; undefined once the answer is sent. */
  async function signupConnection(open: OpenTransaction, reply: FastifyReply): Promise<ConnectionData | undefined> {
    const connection = await databaseConnection(registry, open);
    if (!connection) {
      await noDatabaseConnection(registry, reply, open.client);
      return undefined;
    }
    if (connection.options.disable_signup === true) {
      await reply.header('cache-control', 'no-store').redirect(screenUrl('login', open.transaction), 302);
      return undefined;
    }
    return connection;
  }

  return { screenOf, identifiersOf, refuseIdentifiers, createAndLogIn, signupConnection };
}

/**
 * The signup screens: `signup` (identifiers and password on one page), or `signup-id` then `signup-password` (or
 * passkey-enrollment when the connection enables passkeys). The new user is created in the database connection and
 * logged in at once (that is their first login).
 */
export function signupScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const { screenOf, identifiersOf, refuseIdentifiers, createAndLogIn, signupConnection } = signupFlow(registry);

  /**
   * The signup goes on at the federated connection posted (the provider's account is the new user, created at its
   * first login); a connection the screen does not offer re-renders it.
   */
  const federated = (reply: FastifyReply, open: OpenTransaction, connection: ConnectionData, screen: SignupScreen, name: string) =>
    startFederatedLogin(registry, reply, open, name, (errorCode) => sendScreen(registry, reply, 400, screenOf(open, connection, screen, { errorCode })));

  return async (app) => {
    const tags = ['hosted pages'];
    const paths = { signup: '/u/signup', 'signup-id': '/u/signup/identifier', 'signup-password': '/u/signup/password' } as const;

    for (const screen of ['signup', 'signup-id', 'signup-password'] as const) {
      app.get(paths[screen], { schema: { tags, summary: `Signup screen (${screen})`, querystring: StateQuery } }, async (request, reply) => {
        const open = await openTransaction(registry, request, reply, request.query.state);
        if (!open) return reply;
        const inPlace = await screenInPlaceOf(registry, screen, open.transaction);
        if (inPlace) return redirectToScreen(reply, inPlace, open.transaction);
        const connection = await signupConnection(open, reply);
        if (!connection) return reply;
        if (screen === 'signup-password' && !open.transaction.signupIdentifiers) return reply.header('cache-control', 'no-store').redirect(screenUrl('signup-id', open.transaction), 302);
        return sendScreen(registry, reply, 200, screenOf(open, connection, screen));
      });
    }

    app.post(paths.signup, { attachValidation: true, schema: { tags, summary: 'Submit the signup screen', querystring: Type.Partial(StateQuery), body: SignupForm } }, async (request, reply) => {
      const open = await openScreenPost(registry, request, reply, 'signup');
      if (!open) return reply;
      const connection = await signupConnection(open, reply);
      if (!connection) return reply;
      if (request.body.connection) return federated(reply, open, connection, 'signup', request.body.connection);
      const identifiers = identifiersOf(connection, request.body);
      if (identifiers.refused !== undefined) return refuseIdentifiers(reply, open, connection, 'signup', identifiers, request.body);
      return createAndLogIn(request, reply, open, connection, 'signup', identifiers, { password: request.body.password ?? '' });
    });

    app.post(paths['signup-id'], { attachValidation: true, schema: { tags, summary: 'Submit the signup identifiers', querystring: Type.Partial(StateQuery), body: SignupForm } }, async (request, reply) => {
      const open = await openScreenPost(registry, request, reply, 'signup-id');
      if (!open) return reply;
      const connection = await signupConnection(open, reply);
      if (!connection) return reply;
      if (request.body.connection) return federated(reply, open, connection, 'signup-id', request.body.connection);
      const identifiers = identifiersOf(connection, request.body);
      if (identifiers.refused !== undefined) return refuseIdentifiers(reply, open, connection, 'signup-id', identifiers, request.body);
      // With passkeys, the account is created with one (passkey-enrollment); a password stays possible from there.
      if (passkeySettingsOf(connection).enabled) {
        await registry.transactions.save(open.handle, { ...open.transaction, signupIdentifiers: identifiers, passkeyEnrollment: { purpose: 'signup', userId: newDatabaseUserId() } });
        return reply.header('cache-control', 'no-store').redirect(screenUrl('passkey-enrollment', open.transaction), 302);
      }
      await registry.transactions.save(open.handle, { ...open.transaction, signupIdentifiers: identifiers });
      return reply.header('cache-control', 'no-store').redirect(screenUrl('signup-password', open.transaction), 302);
    });

    app.post(paths['signup-password'], { attachValidation: true, schema: { tags, summary: 'Submit the signup password', querystring: Type.Partial(StateQuery), body: SignupForm } }, async (request, reply) => {
      const open = await openScreenPost(registry, request, reply, 'signup-password');
      if (!open) return reply;
      const connection = await signupConnection(open, reply);
      if (!connection) return reply;
      if (request.body.connection) return federated(reply, open, connection, 'signup-password', request.body.connection);
      // The identifiers are the ones the transaction took on signup-id; posted copies (the SDK echoes them) are not used.
      const identifiers = open.transaction.signupIdentifiers ?? { email: '' };
      return createAndLogIn(request, reply, open, connection, 'signup-password', identifiers, { password: request.body.password ?? '' });
    });
  };
}
