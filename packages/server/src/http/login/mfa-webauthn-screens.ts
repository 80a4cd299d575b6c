import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccessDenied } from '../../oauth/errors.js';
import { MFA_MAX_FAILURES, mfaProtectionKey } from '../../oauth/mfa/mfa-api.js';
import type { Registry } from '../../registry.js';
import type { WebAuthnKind } from '../../services/mfa/webauthn.js';
import { amrOf } from '../../services/mfa/webauthn-policy.js';
import type { Tree } from './render/model.js';
import { credentialOf } from './webauthn-form.js';
import { StateQuery } from './screen-forms.js';
import { MFA_ENTRY_PATH, MFA_SCREEN_PATHS, type MfaScreen } from './screens.js';
import { refuseLogin } from './transaction-context.js';
import { factorLocked, factorProved, factorsOf, readPending, type MfaTransaction } from './mfa-flow.js';
import { MfaForm, openMfaPage, openMfaPost, pickAnother, saveMfa, showMfaScreen, type MfaFormBody } from './mfa-screen-kit.js';

type WebAuthnScreen = Extract<MfaScreen, `mfa-webauthn-${string}`>;

/** Each WebAuthn screen: the kind of credential, and whether it enrolls one or proves one. */
const SCREENS: Record<WebAuthnScreen, { kind: 'webauthn-roaming' | 'webauthn-platform'; enroll: boolean }> = {
  'mfa-webauthn-roaming-enrollment': { kind: 'webauthn-roaming', enroll: true },
  'mfa-webauthn-platform-enrollment': { kind: 'webauthn-platform', enroll: true },
  'mfa-webauthn-roaming-challenge': { kind: 'webauthn-roaming', enroll: false },
  'mfa-webauthn-platform-challenge': { kind: 'webauthn-platform', enroll: false },
};

/** A platform challenge is answered by this device's credential: an MFA one or a passkey. */
const accepted = (kind: WebAuthnKind): WebAuthnKind[] => (kind === 'webauthn-platform' ? ['webauthn-platform', 'passkey'] : [kind]);

/**
 * The WebAuthn MFA screens (prompt `mfa-webauthn`): a security key (roaming) or this device's authenticator
 * (platform) enrolled as the first factor, or proved as the second. Each showing makes a new challenge, kept in the
 * transaction and good for one answer. A credential that does not verify counts like a wrong code.
 */
export function webauthnScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const tags = ['hosted pages'];

  async function show(reply: FastifyReply, open: MfaTransaction, screen: WebAuthnScreen, errorCode?: 'webauthn-failed' | 'mfa-locked') {
    const { kind, enroll } = SCREENS[screen];
    const { mfa } = open.transaction;
    let publicKey: Tree;
    let challenge: string;
    if (enroll) {
      const account = (await registry.storage.users.get(registry.tenantId, mfa.userId))?.data;
      const name = account?.email ?? account?.username ?? mfa.userId;
      const ceremony = await registry.mfa.webauthn.registrationOptions({ id: mfa.userId, name, displayName: account?.name ?? name }, kind);
      publicKey = ceremony.options as unknown as Tree;
      challenge = ceremony.challenge;
    } else {
      const ceremony = await registry.mfa.webauthn.authenticationOptions(mfa.userId, accepted(kind));
      publicKey = ceremony.options as unknown as Tree;
      challenge = ceremony.challenge;
    }
    await saveMfa(registry, open, { ...mfa, webauthn: { challenge, kind, enroll } });
    const data: Tree = { passkey: { public_key: publicKey }, webauthnType: kind, ...(enroll ? {} : { show_remember_device: true }) };
    return showMfaScreen(registry, reply, open, screen, { data, ...(errorCode ? { errorCode } : {}) });
  }

  /** A credential that did not verify: logged, counted on the pending sign-in and toward brute-force protection. */
  async function failed(request: FastifyRequest, reply: FastifyReply, open: MfaTransaction, screen: WebAuthnScreen, detail: string) {
    const { mfa } = open.transaction;
    const read = await readPending(registry, reply, open);
    if (!read) return reply;
    registry.userGrants.events.record({ type: 'gd_auth_failed', user_id: mfa.userId, client_id: open.client.clientId, ip: request.ip, description: `WebAuthn: ${detail}` });
    await registry.userGrants.mfa.protection.failed({ identifier: mfaProtectionKey(mfa.userId), ip: request.ip, connection: mfa.connection, user: { id: mfa.userId } });
    if ((await registry.userGrants.mfa.tokens.failed(read)) >= MFA_MAX_FAILURES) {
      await registry.userGrants.mfa.tokens.spend(read);
      return refuseLogin(registry, reply, open, new AccessDenied('Too many failed attempts at the second factor.'));
    }
    return show(reply, { ...open, transaction: (await registry.transactions.find(open.transaction.publicId, open.handle)) as MfaTransaction['transaction'] }, screen, 'webauthn-failed');
  }

  async function answer(request: FastifyRequest & { body: MfaFormBody }, reply: FastifyReply, screen: WebAuthnScreen) {
    const open = await openMfaPost(registry, request, reply, screen);
    if (!open) return reply;
    const { kind, enroll } = SCREENS[screen];
    const { mfa } = open.transaction;
    const action = request.body.action ?? 'default';
    if (action === 'pick-authenticator') return pickAnother(registry, reply, open);
    // The browser gave no credential (cancelled, timed out, no authenticator): the same screen, with a new challenge.
    if (action.startsWith('showError::')) return show(reply, open, screen, 'webauthn-failed');
    if (enroll && (await factorsOf(registry, mfa.userId)).confirmed.length > 0) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
    if (!enroll && (await factorLocked(registry, request, open))) return show(reply, open, screen, 'mfa-locked');
    const expected = mfa.webauthn;
    const credential = credentialOf(request.body.response);
    // The challenge answers once, whatever the outcome.
    const { webauthn: _spent, ...rest } = mfa;
    await saveMfa(registry, open, rest);
    const current = { ...open, transaction: { ...open.transaction, mfa: rest } };
    if (!expected || expected.kind !== kind || expected.enroll !== enroll || !credential) return show(reply, current, screen, 'webauthn-failed');
    const origin = { client_id: open.client.clientId, ip: request.ip };
    if (enroll) {
      const registered = await registry.mfa.webauthn.verifyRegistration({ userId: mfa.userId, kind, expectedChallenge: expected.challenge, response: credential as never, origin });
      if (!registered.ok) {
        request.log.info({ reason: registered.reason }, 'WebAuthn enrollment refused');
        return show(reply, current, screen, 'webauthn-failed');
      }
      return factorProved(registry, request, reply, current, { amr: amrOf(registered.record), enrolled: true, remember: false });
    }
    const proved = await registry.mfa.webauthn.verifyAuthentication({ expectedChallenge: expected.challenge, response: credential as never, userId: mfa.userId, kinds: accepted(kind) });
    if (!proved.ok) return failed(request, reply, current, screen, proved.reason);
    return factorProved(registry, request, reply, current, { amr: proved.amr, enrolled: false, remember: request.body.rememberBrowser === 'true' });
  }

  return async (app) => {
    for (const screen of Object.keys(SCREENS) as WebAuthnScreen[]) {
      const { enroll } = SCREENS[screen];
      app.get(MFA_SCREEN_PATHS[screen], { schema: { tags, summary: enroll ? 'Enroll a WebAuthn authenticator' : 'Second factor: a WebAuthn authenticator', querystring: StateQuery } }, async (request, reply) => {
        const open = await openMfaPage(registry, request, reply, request.query.state);
        if (!open) return reply;
        if (enroll && (await factorsOf(registry, open.transaction.mfa.userId)).confirmed.length > 0) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        return show(reply, open, screen);
      });
      app.post(MFA_SCREEN_PATHS[screen], { attachValidation: true, schema: { tags, summary: 'The credential (response), or another action', querystring: Type.Partial(StateQuery), body: MfaForm } }, (request, reply) =>
        answer(request, reply, screen),
      );
    }
    // The SDK's security-key challenge posts to this path (its state in the body); its "not available" screen to the next.
    app.post('/u/mfa-webauthn-challenge', { attachValidation: true, schema: { tags, summary: 'The security-key challenge, as the SDK posts it', body: MfaForm } }, (request, reply) =>
      answer(request, reply, 'mfa-webauthn-roaming-challenge'),
    );
    app.post('/u/mfa-webauthn-enrollment', { attachValidation: true, schema: { tags, summary: 'Another method than WebAuthn, as the SDK posts it', body: MfaForm } }, (request, reply) =>
      answer(request, reply, 'mfa-webauthn-roaming-enrollment'),
    );
  };
}
