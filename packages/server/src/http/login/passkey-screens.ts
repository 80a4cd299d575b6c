import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LoginTransaction, PasskeyEnrollmentWait } from '../../oauth/authorize/transaction.js';
import { PASSKEY_ENROLLMENT_DECLINED } from '../../oauth/passkey-enrollment.js';
import type { Registry } from '../../registry.js';
import { passkeySettingsOf } from '../../services/connection-options/passkeys.js';
import { usersService } from '../../services/users.js';
import { sendErrorPage, sendScreen } from './pages.js';
import type { Tree } from './render/model.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { screenUrl } from './screens.js';
import { signupFlow } from './signup-screens.js';
import { databaseConnection, finishLogin, openScreenPost, openTransaction, type OpenTransaction } from './transaction-context.js';
import { credentialOf } from './webauthn-form.js';

/** What passkey-enrollment posts, as our page and the SDK's PasskeyEnrollment send it. */
const PasskeyForm = ScreenForm({
  // The SDK posts no action to create the passkey; our page reports a failed ceremony as `showError::<JSON>`.
  action: Type.Optional(Type.String({ maxLength: 2048 })),
  passkey: Type.Optional(Type.String({ maxLength: 16_384 })),
  dontShowAgain: Type.Optional(Type.String({ maxLength: 8 })),
});

type Waiting = OpenTransaction & { transaction: LoginTransaction & { passkeyEnrollment: PasskeyEnrollmentWait } };

const tags = ['hosted pages'];

/**
 * passkey-enrollment (prompt `passkeys`): a passkey created for a signup (the account is created with it, without a
 * password) or offered after a password login (progressive enrollment; the login goes on whatever the answer). Each
 * showing makes a new challenge, kept in the transaction for one answer.
 */
export function passkeyScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const signup = signupFlow(registry);
  const users = usersService({ storage: registry.storage, tenantId: registry.tenantId, now: registry.now });
  const save = (open: Waiting, passkeyEnrollment: PasskeyEnrollmentWait) => registry.transactions.save(open.handle, { ...open.transaction, passkeyEnrollment });

  /** The account the passkey is for, as the authenticator shows it. */
  async function accountOf(open: Waiting): Promise<{ id: string; name: string; displayName?: string | undefined }> {
    const wait = open.transaction.passkeyEnrollment;
    if (wait.purpose === 'signup') return { id: wait.userId, name: open.transaction.signupIdentifiers?.email ?? wait.userId };
    const account = (await registry.storage.users.get(registry.tenantId, wait.userId))?.data;
    const name = account?.email ?? account?.username ?? wait.userId;
    return { id: wait.userId, name, displayName: account?.name ?? name };
  }

  async function show(reply: FastifyReply, open: Waiting, errorCode?: 'webauthn-failed') {
    const wait = open.transaction.passkeyEnrollment;
    const account = await accountOf(open);
    const ceremony = await registry.mfa.webauthn.registrationOptions(account, 'passkey');
    await save(open, { ...wait, challenge: ceremony.challenge });
    // A signup may go back to its identifiers or to login (`screen.links` of the SDK's screen class).
    const links = wait.purpose === 'signup' ? { login: screenUrl('login-id', open.transaction), back: screenUrl('signup-id', open.transaction) } : {};
    return sendScreen(registry, reply, errorCode ? 400 : 200, {
      screen: 'passkey-enrollment',
      client: open.client,
      transaction: open.transaction,
      action: screenUrl('passkey-enrollment', open.transaction),
      links,
      mfa: { data: { passkey: { public_key: ceremony.options as unknown as Tree } } },
      ...(wait.purpose === 'progressive' ? { user: { id: account.id, ...(account.name !== account.id ? { email: account.name } : {}) } } : {}),
      ...(errorCode ? { errorCode } : {}),
    });
  }

  /** The login offered a passkey goes on where it stopped, and is not offered one again. */
  async function resume(request: FastifyRequest, reply: FastifyReply, open: Waiting) {
    const wait = open.transaction.passkeyEnrollment;
    if (wait.purpose !== 'progressive') throw new Error('only a login resumes');
    const { passkeyEnrollment: _answered, ...transaction } = open.transaction;
    await registry.transactions.save(open.handle, transaction);
    const signedIn = { path: wait.path, userId: wait.userId, connection: wait.connection, amr: wait.amr, passkeyEnrollmentSettled: true };
    return finishLogin(registry, request, reply, { ...open, transaction }, signedIn);
  }

  /** "Continue without a passkey": a signup goes on with a password (if the connection takes one); a login goes on. */
  async function abort(request: FastifyRequest & { body: (typeof PasskeyForm)['static'] }, reply: FastifyReply, open: Waiting) {
    const wait = open.transaction.passkeyEnrollment;
    if (wait.purpose === 'progressive') {
      if (request.body.dontShowAgain === 'on') await users.update(wait.userId, { app_metadata: { [PASSKEY_ENROLLMENT_DECLINED]: true } });
      return resume(request, reply, open);
    }
    const connection = await databaseConnection(registry, open);
    if (connection && !passkeySettingsOf(connection).passwordEnabled) return show(reply, open);
    const { passkeyEnrollment: _left, ...transaction } = open.transaction;
    await registry.transactions.save(open.handle, transaction);
    return reply.header('cache-control', 'no-store').redirect(screenUrl('signup-password', open.transaction), 303);
  }

  async function answer(request: FastifyRequest & { body: (typeof PasskeyForm)['static'] }, reply: FastifyReply) {
    const open = (await openScreenPost(registry, request, reply, 'passkey-enrollment')) as Waiting | undefined;
    if (!open) return reply;
    const action = request.body.action ?? '';
    if (action === 'abort-passkey-enrollment') return abort(request, reply, open);
    // The browser gave no credential (cancelled, timed out, no authenticator): the same screen, with a new challenge.
    if (action.startsWith('showError::')) return show(reply, open, 'webauthn-failed');
    const wait = open.transaction.passkeyEnrollment;
    // The challenge answers once, whatever the outcome.
    const { challenge: expected, ...rest } = wait;
    await save(open, rest);
    const current: Waiting = { ...open, transaction: { ...open.transaction, passkeyEnrollment: rest } };
    const credential = credentialOf(request.body.passkey);
    if (!expected || !credential) return show(reply, current, 'webauthn-failed');
    const origin = { client_id: open.client.clientId, ip: request.ip };
    const checked = await registry.mfa.webauthn.checkRegistration({ userId: wait.userId, kind: 'passkey', expectedChallenge: expected, response: credential as never, origin });
    if (!checked.ok) {
      request.log.info({ reason: checked.reason }, 'Passkey refused');
      return show(reply, current, 'webauthn-failed');
    }
    if (wait.purpose === 'progressive') {
      const enrolled = await registry.mfa.webauthn.enroll(checked.record, origin);
      if (!enrolled.ok) return show(reply, current, 'webauthn-failed');
      return resume(request, reply, current);
    }
    // A signup: the account is created now, with this passkey and no password.
    const connection = await signup.signupConnection(current, reply);
    if (!connection) return reply;
    const identifiers = open.transaction.signupIdentifiers;
    if (!identifiers) return reply.header('cache-control', 'no-store').redirect(screenUrl('signup-id', open.transaction), 303);
    const { passkeyEnrollment: _done, ...transaction } = current.transaction;
    await registry.transactions.save(open.handle, transaction);
    return signup.createAndLogIn(request, reply, { ...open, transaction }, connection, 'signup-id', identifiers, { passkey: checked.record });
  }

  return async (app) => {
    app.get('/u/passkey-enrollment', { schema: { tags, summary: 'Create a passkey (signup, or offered after a password login)', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      if (!open.transaction.passkeyEnrollment) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login offers no passkey to create.', open.client);
      return show(reply, open as Waiting);
    });
    app.post('/u/passkey-enrollment', { attachValidation: true, schema: { tags, summary: 'The new passkey (passkey=<JSON>), or action=abort-passkey-enrollment', querystring: Type.Partial(StateQuery), body: PasskeyForm } }, (request, reply) =>
      answer(request, reply),
    );
  };
}
