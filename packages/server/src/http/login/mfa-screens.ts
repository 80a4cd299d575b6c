import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AccessDenied, InvalidRequest } from '../../oauth/errors.js';
import { maskedEmail, maskedPhone } from '../../oauth/mfa/mfa-api.js';
import type { BrowserMfa } from '../../oauth/mfa/browser-mfa.js';
import type { Registry } from '../../registry.js';
import { storedId } from '../../services/mfa/authenticators.js';
import { totpUri } from '../../services/mfa/totp.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import type { Tree } from './render/model.js';
import { sendErrorPage } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { StateQuery } from './screen-forms.js';
import { MFA_ENTRY_PATH, MFA_SCREEN_PATHS, type MfaScreen } from './screens.js';
import { refuseLogin } from './transaction-context.js';
import {
  CHALLENGE_SCREEN,
  continueSignIn,
  ENROLLMENT_SCREEN,
  enrolledFactorNames,
  factorLocked,
  factorProved,
  factorsOf,
  firstScreen,
  readPending,
  toScreen,
  wrongCode,
  type HostedFactor,
  type MfaTransaction,
} from './mfa-flow.js';
import { MfaForm, openMfaPage, openMfaPost, pickAnother, saveMfa, showMfaScreen, type MfaFormBody, type MfaScreenView } from './mfa-screen-kit.js';

const tags = ['hosted pages'];
const E164 = /^\+[1-9]\d{6,14}$/;

/** A code-screen post's origin for the log and brute-force protection. */
const originOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

/** The most recently used confirmed authenticator of a factor, or the one being enrolled. */
async function authenticatorFor(registry: Registry, mfa: BrowserMfa, type: 'sms' | 'email'): Promise<AuthenticatorRecord | undefined> {
  if (mfa.enrolling?.type === type) {
    const record = await registry.mfa.authenticators.find(mfa.userId, mfa.enrolling.authenticatorId);
    if (record?.status === 'pending') return record;
  }
  return (await factorsOf(registry, mfa.userId)).confirmed.find((record) => record.type === type);
}

/**
 * The hosted multi-factor screens (prompts `mfa`, `mfa-otp`, `mfa-sms`, `mfa-email`, `mfa-recovery-code`; the
 * WebAuthn ones in mfa-webauthn-screens.ts). A login transaction reaches them when its sign-in needs a second
 * factor; they take nothing but that factor. Wrong codes count on the pending sign-in (five end it) and toward
 * brute-force protection of the user's factor; each code is good once.
 */
export function mfaScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const api = () => registry.userGrants.mfa.api;

  async function codeScreenPost(request: FastifyRequest & { body: MfaFormBody }, reply: FastifyReply, screen: MfaScreen, check: (open: MfaTransaction) => Promise<FastifyReply>, rerenderData: (open: MfaTransaction) => Promise<MfaScreenView>) {
    const open = await openMfaPost(registry, request, reply, screen);
    if (!open) return reply;
    if (request.body.action === 'pick-authenticator') return pickAnother(registry, reply, open);
    const rerender = async (errorCode: PageErrorCode) => showMfaScreen(registry, reply, open, screen, { ...(await rerenderData(open)), errorCode });
    if (!(request.body.code ?? '').trim()) return rerender('no-code');
    if (await factorLocked(registry, request, open)) return rerender('mfa-locked');
    try {
      return await check(open);
    } catch (error) {
      return wrongCode(registry, reply, open, error, rerender);
    }
  }

  return async (app) => {
    app.get(MFA_ENTRY_PATH, { schema: { tags, summary: 'Where a login that needs a second factor starts', querystring: StateQuery } }, async (request, reply) => {
      const open = await openMfaPage(registry, request, reply, request.query.state);
      if (!open) return reply;
      const { mfa } = open.transaction;
      if (mfa.proved) return continueSignIn(registry, request, reply, open);
      // A browser the user asked to remember (30 days, not invalidated since) skips the factor.
      if (await registry.mfa.rememberedBrowsers.remembers(mfa.userId, request.cookies)) {
        const read = await readPending(registry, reply, open);
        if (!read) return reply;
        await registry.userGrants.mfa.tokens.spend(read);
        return continueSignIn(registry, request, reply, { ...open, transaction: { ...open.transaction, mfa: { ...mfa, proved: [] } } });
      }
      const screen = await firstScreen(registry, open);
      if (!screen) return refuseLogin(registry, reply, open, new AccessDenied('A second factor is required, but no factor this user can use is enabled.'));
      return toScreen(reply, screen, open);
    });

    // mfa-begin-enroll-options and mfa-login-options: the factor is posted as `action`.
    for (const screen of ['mfa-begin-enroll-options', 'mfa-login-options'] as const) {
      const enrolling = screen === 'mfa-begin-enroll-options';
      const choices = async (open: MfaTransaction) => {
        const factors = await factorsOf(registry, open.transaction.mfa.userId);
        return enrolling ? (factors.confirmed.length > 0 ? [] : factors.enrollable) : enrolledFactorNames(factors);
      };
      app.get(MFA_SCREEN_PATHS[screen], { schema: { tags, summary: enrolling ? 'Choose a second factor to enroll' : 'Choose another second factor', querystring: StateQuery } }, async (request, reply) => {
        const open = await openMfaPage(registry, request, reply, request.query.state);
        if (!open) return reply;
        const factors = await choices(open);
        if (factors.length === 0) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        return showMfaScreen(registry, reply, open, screen, { factors, data: enrolling ? { factors } : { enrolled_factors: factors } });
      });
      app.post(MFA_SCREEN_PATHS[screen], { attachValidation: true, schema: { tags, summary: 'Post the chosen factor (action=<factor>)', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) => {
        const open = await openMfaPost(registry, request, reply, screen);
        if (!open) return reply;
        const action = request.body.action ?? '';
        if (action === 'back-action') return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        const factors = await choices(open);
        if (!factors.includes(action)) return showMfaScreen(registry, reply, open, screen, { factors, data: enrolling ? { factors } : { enrolled_factors: factors } });
        const factor = action as HostedFactor | 'recovery-code';
        return toScreen(reply, enrolling && factor !== 'recovery-code' ? ENROLLMENT_SCREEN[factor] : CHALLENGE_SCREEN[factor], open);
      });
    }

    // mfa-otp-enrollment-qr / -code: an authenticator app, pending until its first code.
    const pendingOtp = async (request: FastifyRequest, reply: FastifyReply, open: MfaTransaction): Promise<{ secret: string; label: string } | undefined> => {
      const { mfa } = open.transaction;
      const label = (await registry.storage.users.get(registry.tenantId, mfa.userId))?.data.email ?? mfa.userId;
      if (mfa.enrolling?.type === 'otp') {
        const record = await registry.mfa.authenticators.find(mfa.userId, mfa.enrolling.authenticatorId);
        const secret = record && registry.mfa.authenticators.enrollmentSecret(record);
        if (secret) return { secret, label };
      }
      const read = await readPending(registry, reply, open);
      if (!read) return undefined;
      const enrolled = await api().associate(read, { authenticator_types: ['otp'] }, originOf(request));
      if (enrolled.authenticator_type !== 'otp') return undefined;
      await saveMfa(registry, open, { ...mfa, enrolling: { authenticatorId: storedId(enrolled.id), type: 'otp' } });
      return { secret: enrolled.secret, label };
    };
    const otpData = async (screen: MfaScreen, secret: { secret: string; label: string }): Promise<Tree> =>
      screen === 'mfa-otp-enrollment-qr'
        ? { qr_code: await QRCode.toDataURL(totpUri(secret.secret, new URL(registry.issuer).hostname, secret.label), { margin: 1, width: 200 }) }
        : { text_code: secret.secret };
    for (const screen of ['mfa-otp-enrollment-qr', 'mfa-otp-enrollment-code'] as const) {
      const path = MFA_SCREEN_PATHS[screen];
      const enrollmentClosed = async (open: MfaTransaction) => (await factorsOf(registry, open.transaction.mfa.userId)).confirmed.length > 0 || !(await registry.mfa.settings.enabled('otp'));
      app.get(path, { schema: { tags, summary: 'Enroll an authenticator app', querystring: StateQuery } }, async (request, reply) => {
        const open = await openMfaPage(registry, request, reply, request.query.state);
        if (!open) return reply;
        if (await enrollmentClosed(open)) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        const secret = await pendingOtp(request, reply, open);
        if (!secret) return reply;
        return showMfaScreen(registry, reply, open, screen, { data: await otpData(screen, secret) });
      });
      app.post(path, { attachValidation: true, schema: { tags, summary: 'The first code of the authenticator app (or action=toggle-view)', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) => {
        if (request.body.action === 'toggle-view') {
          const open = await openMfaPost(registry, request, reply, screen);
          return open ? toScreen(reply, screen === 'mfa-otp-enrollment-qr' ? 'mfa-otp-enrollment-code' : 'mfa-otp-enrollment-qr', open) : reply;
        }
        return codeScreenPost(
          request,
          reply,
          screen,
          async (open) => {
            if (await enrollmentClosed(open)) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
            const read = await readPending(registry, reply, open);
            if (!read) return reply;
            const record = await api().checkOtp(read, (request.body.code ?? '').trim(), originOf(request));
            await registry.mfa.authenticators.confirm(record, { client_id: open.client.clientId, ip: request.ip });
            return factorProved(registry, request, reply, open, { amr: ['otp'], enrolled: true, remember: false });
          },
          async (open) => {
            const secret = await pendingOtp(request, reply, open);
            return secret ? { data: await otpData(screen, secret) } : {};
          },
        );
      });
    }

    // mfa-otp-challenge
    app.get('/u/mfa-otp-challenge', { schema: { tags, summary: 'Second factor: a code of the authenticator app', querystring: StateQuery } }, async (request, reply) => {
      const open = await openMfaPage(registry, request, reply, request.query.state);
      if (!open) return reply;
      return showMfaScreen(registry, reply, open, 'mfa-otp-challenge', { data: { show_remember_device: true } });
    });
    app.post('/u/mfa-otp-challenge', { attachValidation: true, schema: { tags, summary: 'Answer the authenticator-app challenge', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) =>
      codeScreenPost(
        request,
        reply,
        'mfa-otp-challenge',
        async (open) => {
          const read = await readPending(registry, reply, open);
          if (!read) return reply;
          const record = await api().checkOtp(read, (request.body.code ?? '').trim(), originOf(request));
          if (record.status !== 'confirmed') throw new InvalidRequest('An authenticator still being enrolled does not answer a challenge.');
          return factorProved(registry, request, reply, open, { amr: ['otp'], enrolled: false, remember: request.body.rememberBrowser === 'true' });
        },
        async () => ({ data: { show_remember_device: true } }),
      ),
    );

    // mfa-sms-enrollment: the phone number, then the code sent to it on mfa-sms-challenge.
    app.get('/u/mfa-sms-enrollment', { schema: { tags, summary: 'Enroll a phone for SMS codes', querystring: StateQuery } }, async (request, reply) => {
      const open = await openMfaPage(registry, request, reply, request.query.state);
      if (!open) return reply;
      return showMfaScreen(registry, reply, open, 'mfa-sms-enrollment');
    });
    app.post('/u/mfa-sms-enrollment', { attachValidation: true, schema: { tags, summary: 'The phone number to enroll', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) => {
      const open = await openMfaPost(registry, request, reply, 'mfa-sms-enrollment');
      if (!open) return reply;
      if (request.body.action === 'pick-authenticator') return pickAnother(registry, reply, open);
      const phone = (request.body.phone ?? '').replace(/[\s()-]/g, '');
      if (!E164.test(phone)) return showMfaScreen(registry, reply, open, 'mfa-sms-enrollment', { errorCode: 'invalid-phone' });
      const read = await readPending(registry, reply, open);
      if (!read) return reply;
      try {
        const enrolled = await api().associate(read, { authenticator_types: ['oob'], oob_channels: ['sms'], phone_number: phone }, originOf(request));
        if (enrolled.authenticator_type !== 'oob') throw new InvalidRequest('Not an out-of-band authenticator.');
        const authenticatorId = storedId(enrolled.id);
        await saveMfa(registry, open, { ...open.transaction.mfa, enrolling: { authenticatorId, type: 'sms' }, sent: { oobId: api().oobId(enrolled.oob_code), authenticatorId } });
      } catch (error) {
        // Enrolled already (a confirmed factor), the factor disabled meanwhile: start over; a provider failure: say so.
        if (error instanceof AccessDenied) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        request.log.warn({ err: error }, 'SMS enrollment code not sent');
        return showMfaScreen(registry, reply, open, 'mfa-sms-enrollment', { errorCode: 'send-failed' });
      }
      return toScreen(reply, 'mfa-sms-challenge', open);
    });

    // mfa-sms-challenge and mfa-email-challenge: a code sent when the screen is first shown, again on resend-code.
    for (const [screen, type] of [['mfa-sms-challenge', 'sms'], ['mfa-email-challenge', 'email']] as const) {
      const path = MFA_SCREEN_PATHS[screen];
      const view = (record: AuthenticatorRecord): MfaScreenView =>
        type === 'sms'
          ? { data: { phone_number: maskedPhone(record.phoneNumber), show_remember_device: true }, textValues: { phoneNumber: maskedPhone(record.phoneNumber) } }
          : { data: { email: maskedEmail(record.email), show_remember_device: true }, textValues: { email: maskedEmail(record.email) } };

      /** Sends a code to the factor (a confirmed one by a challenge, one being enrolled by enrolling it again). */
      const send = async (request: FastifyRequest, reply: FastifyReply, open: MfaTransaction, record: AuthenticatorRecord | undefined): Promise<AuthenticatorRecord | undefined> => {
        const read = await readPending(registry, reply, open);
        if (!read) return undefined;
        const { mfa } = open.transaction;
        if (record?.status === 'confirmed') {
          const challenge = await api().challenge(read, { challenge_type: 'oob', authenticator_id: record.id, oob_channel: type }, originOf(request));
          if (challenge.challenge_type !== 'oob') return undefined;
          await saveMfa(registry, open, { ...mfa, sent: { oobId: api().oobId(challenge.oob_code), authenticatorId: record.id } });
          return record;
        }
        const target = type === 'sms' ? { phone_number: record?.phoneNumber ?? undefined } : { email: record?.email ?? (await registry.storage.users.get(registry.tenantId, mfa.userId))?.data.email };
        const enrolled = await api().associate(read, { authenticator_types: ['oob'], oob_channels: [type], ...target }, originOf(request));
        if (enrolled.authenticator_type !== 'oob') return undefined;
        const authenticatorId = storedId(enrolled.id);
        await saveMfa(registry, open, { ...mfa, enrolling: { authenticatorId, type }, sent: { oobId: api().oobId(enrolled.oob_code), authenticatorId } });
        return registry.mfa.authenticators.find(mfa.userId, authenticatorId);
      };

      app.get(path, { schema: { tags, summary: `Second factor: a code sent by ${type === 'sms' ? 'SMS' : 'e-mail'}`, querystring: StateQuery } }, async (request, reply) => {
        const open = await openMfaPage(registry, request, reply, request.query.state);
        if (!open) return reply;
        let record = await authenticatorFor(registry, open.transaction.mfa, type);
        if (!record && type === 'sms') return toScreen(reply, 'mfa-sms-enrollment', open);
        const factors = await factorsOf(registry, open.transaction.mfa.userId);
        if (!record && !factors.enrollable.includes('email')) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        if (!record || open.transaction.mfa.sent?.authenticatorId !== record.id) {
          record = await send(request, reply, open, record);
          if (!record) return reply.sent ? reply : sendErrorPage(registry, reply, 400, 'invalid_request', 'The code could not be sent.', open.client);
        }
        return showMfaScreen(registry, reply, open, screen, view(record));
      });

      app.post(path, { attachValidation: true, schema: { tags, summary: 'Answer the code (or action=resend-code)', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) => {
        if (request.body.action === 'resend-code') {
          const open = await openMfaPost(registry, request, reply, screen);
          if (!open) return reply;
          await send(request, reply, open, await authenticatorFor(registry, open.transaction.mfa, type));
          return reply.sent ? reply : toScreen(reply, screen, open);
        }
        return codeScreenPost(
          request,
          reply,
          screen,
          async (open) => {
            const read = await readPending(registry, reply, open);
            if (!read) return reply;
            const sent = open.transaction.mfa.sent;
            if (!sent) return toScreen(reply, screen, open);
            const record = await api().checkOobStored(read, sent.oobId, (request.body.code ?? '').trim(), originOf(request));
            const enrolled = record.status === 'pending';
            if (enrolled) await registry.mfa.authenticators.confirm(record, { client_id: open.client.clientId, ip: request.ip });
            return factorProved(registry, request, reply, open, { amr: [type === 'sms' ? 'sms' : 'otp'], enrolled, remember: request.body.rememberBrowser === 'true' });
          },
          async (open) => {
            const record = await authenticatorFor(registry, open.transaction.mfa, type);
            return record ? view(record) : {};
          },
        );
      });
    }

    // mfa-recovery-code-challenge: the code the user recorded; the next one is shown on -new-code.
    app.get('/u/mfa-recovery-code-challenge', { schema: { tags, summary: 'Second factor: the recovery code', querystring: StateQuery } }, async (request, reply) => {
      const open = await openMfaPage(registry, request, reply, request.query.state);
      if (!open) return reply;
      return showMfaScreen(registry, reply, open, 'mfa-recovery-code-challenge');
    });
    app.post('/u/mfa-recovery-code-challenge', { attachValidation: true, schema: { tags, summary: 'Answer with the recovery code', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) =>
      codeScreenPost(
        request,
        reply,
        'mfa-recovery-code-challenge',
        async (open) => {
          const read = await readPending(registry, reply, open);
          if (!read) return reply;
          // Spent, and a next code made (it is shown, made afresh, on the next screen: nothing in the clear is kept).
          await api().useRecoveryCode(read, (request.body.code ?? '').trim(), originOf(request));
          return factorProved(registry, request, reply, open, { amr: [], enrolled: false, remember: false, then: 'mfa-recovery-code-challenge-new-code' });
        },
        async () => ({}),
      ),
    );

    // mfa-recovery-code-enrollment and -challenge-new-code: a new code, shown once, then the sign-in goes on.
    for (const screen of ['mfa-recovery-code-enrollment', 'mfa-recovery-code-challenge-new-code'] as const) {
      const path = MFA_SCREEN_PATHS[screen];
      const showNewCode = async (request: FastifyRequest, reply: FastifyReply, open: MfaTransaction, errorCode?: PageErrorCode) => {
        // Each showing makes the code anew (replacing the one before): only the code last shown works.
        const { code } = await registry.mfa.authenticators.newRecoveryCode(open.transaction.mfa.userId, 'confirmed', { client_id: open.client.clientId, ip: request.ip });
        return showMfaScreen(registry, reply, open, screen, { data: { text_code: code }, ...(errorCode ? { errorCode } : {}) });
      };
      app.get(path, { schema: { tags, summary: 'A recovery code to record', querystring: StateQuery } }, async (request, reply) => {
        const open = await openMfaPage(registry, request, reply, request.query.state);
        if (!open) return reply;
        if (!open.transaction.mfa.proved) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        return showNewCode(request, reply, open);
      });
      app.post(path, { attachValidation: true, schema: { tags, summary: 'The recovery code is recorded (saved=on)', querystring: Type.Partial(StateQuery), body: MfaForm } }, async (request, reply) => {
        const open = await openMfaPost(registry, request, reply, screen);
        if (!open) return reply;
        if (!open.transaction.mfa.proved) return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 303);
        if (request.body.saved !== 'on') return showNewCode(request, reply, open, 'no-confirmation');
        return continueSignIn(registry, request, reply, open);
      });
    }
  };
}
