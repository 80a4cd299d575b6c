import type { FastifyReply, FastifyRequest } from 'fastify';
import { completeAuthorization } from '../../oauth/authorize/flow.js';
import { AccessDenied, OAuthError, TooManyMfaAttempts } from '../../oauth/errors.js';
import type { BrowserMfa } from '../../oauth/mfa/browser-mfa.js';
import { mfaProtectionKey } from '../../oauth/mfa/mfa-api.js';
import type { ReadMfaToken } from '../../oauth/mfa/mfa-tokens.js';
import type { Registry } from '../../registry.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import { requestOrigin } from '../request-origin.js';
import { sendAuthorizationStep } from './authorization-step.js';
import { clearTransactionCookie, cookieOptions } from './cookies.js';
import { sendErrorPage } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { screenUrl, type MfaScreen } from './screens.js';
import { authorizeDeps, finishLogin, refuseLogin, signedInSession, type OpenTransaction } from './transaction-context.js';

/** A transaction on the MFA screens: its `mfa` is set (screenReached lets no other transaction post to them). */
export type MfaTransaction = OpenTransaction & { transaction: { mfa: BrowserMfa } };

/** The factors the hosted screens enroll and challenge, by the platform's names. */
export type HostedFactor = 'otp' | 'sms' | 'email' | 'webauthn-roaming' | 'webauthn-platform';
const HOSTED_FACTORS: readonly HostedFactor[] = ['otp', 'sms', 'email', 'webauthn-roaming', 'webauthn-platform'];

/** The challenge screen of each factor; passkeys answer the WebAuthn challenges of their kind. */
export const CHALLENGE_SCREEN: Record<HostedFactor | 'recovery-code', MfaScreen> = {
  otp: 'mfa-otp-challenge',
  sms: 'mfa-sms-challenge',
  email: 'mfa-email-challenge',
  'webauthn-roaming': 'mfa-webauthn-roaming-challenge',
  'webauthn-platform': 'mfa-webauthn-platform-challenge',
  'recovery-code': 'mfa-recovery-code-challenge',
};

export const ENROLLMENT_SCREEN: Record<HostedFactor, MfaScreen> = {
  otp: 'mfa-otp-enrollment-qr',
  sms: 'mfa-sms-enrollment',
  email: 'mfa-email-challenge',
  'webauthn-roaming': 'mfa-webauthn-roaming-enrollment',
  'webauthn-platform': 'mfa-webauthn-platform-enrollment',
};

/** The factor an authenticator answers as (a passkey is a platform or roaming WebAuthn credential to the screens). */
export function factorOf(record: AuthenticatorRecord): HostedFactor | 'recovery-code' {
  if (record.type === 'passkey') return 'webauthn-platform';
  return record.type;
}

export interface UserFactors {
  /** The user's confirmed authenticators of enabled factors (no recovery code), most recently used first. */
  confirmed: AuthenticatorRecord[];
  /** Whether the user holds a recovery code and the factor is enabled. */
  recovery: boolean;
  /** The factors the tenant enabled that the user may enroll here. */
  enrollable: HostedFactor[];
}

export async function factorsOf(registry: Registry, userId: string): Promise<UserFactors> {
  const settings = registry.mfa.settings;
  const enabled = new Set<string>();
  for (const factor of [...HOSTED_FACTORS, 'recovery-code'] as const) if (await settings.enabled(factor)) enabled.add(factor);
  const records = await registry.mfa.authenticators.listOf(userId);
  const confirmed = records
    .filter((record) => record.status === 'confirmed' && record.type !== 'recovery-code' && enabled.has(factorOf(record)))
    .sort((a, b) => (b.lastAuthAt ?? b.enrolledAt ?? '').localeCompare(a.lastAuthAt ?? a.enrolledAt ?? ''));
  const recovery = enabled.has('recovery-code') && records.some((record) => record.type === 'recovery-code' && record.status === 'confirmed');
  const user = (await registry.storage.users.get(registry.tenantId, userId))?.data;
  // The e-mail factor sends to the account's own address; an account without one cannot use it.
  const enrollable = HOSTED_FACTORS.filter((factor) => enabled.has(factor) && (factor !== 'email' || Boolean(user?.email)));
  return { confirmed, recovery, enrollable };
}

/** The factor names `user.enrolled_factors` carries (the SDK's options screens read them). */
export const enrolledFactorNames = (factors: UserFactors): string[] => [...new Set([...factors.confirmed.map(factorOf), ...(factors.recovery ? ['recovery-code'] : [])])];

/** The pending sign-in behind the screens; undefined (the error page sent) once it expired or was given up on. */
export async function readPending(registry: Registry, reply: FastifyReply, open: MfaTransaction): Promise<ReadMfaToken | undefined> {
  try {
    return await registry.userGrants.mfa.tokens.readStored(open.transaction.mfa.tokenId, open.client.clientId);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    await sendErrorPage(registry, reply, 400, 'invalid_request', 'This login has expired or too many wrong codes were given. Go back to the application and start again.', open.client);
    return undefined;
  }
}

/** Brute-force protection of second factors (with the user's address): a locked factor takes no more guesses. */
export async function factorLocked(registry: Registry, request: FastifyRequest, open: MfaTransaction): Promise<boolean> {
  const gate = await registry.userGrants.mfa.protection.gate({ identifier: mfaProtectionKey(open.transaction.mfa.userId), ip: request.ip });
  return gate !== undefined;
}

/**
 * What a wrong code answers: the page's error code, or, after the fifth wrong code of this sign-in (the pending
 * sign-in is then spent), the application gets `access_denied`. Other errors are not a wrong code.
 */
export async function wrongCode(registry: Registry, reply: FastifyReply, open: MfaTransaction, error: unknown, rerender: (errorCode: PageErrorCode) => Promise<FastifyReply>): Promise<FastifyReply> {
  if (error instanceof TooManyMfaAttempts) return refuseLogin(registry, reply, open, new AccessDenied('Too many failed attempts at the second factor.'));
  if (error instanceof OAuthError) return rerender('invalid-code');
  throw error;
}

/** Where the screens start: the factor the user used last, else enrollment (one factor straight, several to choose). */
export async function firstScreen(registry: Registry, open: MfaTransaction): Promise<MfaScreen | undefined> {
  const factors = await factorsOf(registry, open.transaction.mfa.userId);
  const last = factors.confirmed[0];
  if (last) return CHALLENGE_SCREEN[factorOf(last)];
  if (factors.recovery) return CHALLENGE_SCREEN['recovery-code'];
  const [only, ...others] = factors.enrollable;
  if (!only) return undefined;
  return others.length === 0 ? ENROLLMENT_SCREEN[only] : 'mfa-begin-enroll-options';
}

/** Sends the browser to an MFA screen of its transaction. */
export const toScreen = (reply: FastifyReply, screen: MfaScreen, open: OpenTransaction) => reply.header('cache-control', 'no-store').redirect(screenUrl(screen, open.transaction), 303);

/**
 * The second factor is proved (`amr` of the factor): the pending sign-in is spent, the factor's brute-force count
 * cleared, `gd_auth_succeed` logged. A factor enrolled just now is followed by a recovery code to record (when the
 * tenant enables them), a recovery code used by the next one (`then`); otherwise the sign-in goes on.
 */
export async function factorProved(
  registry: Registry,
  request: FastifyRequest,
  reply: FastifyReply,
  open: MfaTransaction,
  proved: { amr: string[]; enrolled: boolean; remember: boolean; then?: MfaScreen },
): Promise<FastifyReply> {
  const { mfa } = open.transaction;
  const read = await readPending(registry, reply, open);
  if (!read) return reply;
  if (!(await registry.userGrants.mfa.tokens.spend(read))) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login was already completed. Go back to the application.', open.client);
  await registry.userGrants.mfa.protection.succeeded({ identifier: mfaProtectionKey(mfa.userId), ip: request.ip });
  registry.userGrants.events.record({ type: 'gd_auth_succeed', user_id: mfa.userId, client_id: open.client.clientId, ip: request.ip });
  const next: BrowserMfa = { ...mfa, proved: proved.amr, remember: proved.remember };
  const then = proved.then ?? (proved.enrolled && (await registry.mfa.settings.enabled('recovery-code')) ? 'mfa-recovery-code-enrollment' : undefined);
  if (then) {
    await registry.transactions.save(open.handle, { ...open.transaction, mfa: next });
    return toScreen(reply, then, open);
  }
  return continueSignIn(registry, request, reply, { ...open, transaction: { ...open.transaction, mfa: next } });
}

/**
 * The second factor is behind the user: the browser is remembered if they asked, and the sign-in resumes where it
 * stopped. One that stopped at the multi-factor stage runs its stages again with the factor in `amr` (finishLogin:
 * the session and code, or the SAML answer); a signed-in user's session gets the factor and the application its
 * answer (the post-login Actions that asked for it are not run again).
 */
export async function continueSignIn(registry: Registry, request: FastifyRequest, reply: FastifyReply, open: MfaTransaction): Promise<FastifyReply> {
  const { mfa } = open.transaction;
  const amr = [...new Set([...mfa.amr, 'mfa', ...(mfa.proved ?? [])])];
  if (mfa.remember) {
    const mark = registry.mfa.rememberedBrowsers.mark(mfa.userId);
    reply.setCookie(mark.name, mark.value, cookieOptions(registry, false, mark.maxAgeSeconds));
  }
  if (mfa.sid === undefined) return finishLogin(registry, request, reply, open, { path: mfa.path, userId: mfa.userId, connection: mfa.connection, amr });
  const session = await signedInSession(registry, request, { userId: mfa.userId, sid: mfa.sid });
  if (!session) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login belongs to a session that has ended. Go back to the application and start again.', open.client);
  if (!(await registry.transactions.complete(open.handle))) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login was already completed. Go back to the application.', open.client);
  clearTransactionCookie(registry, reply, open.transaction.publicId);
  await registry.sessions.addMethods(session, amr);
  const settled = { origin: requestOrigin(request), amr, ...(mfa.actions ? { actionsRan: mfa.actions } : {}) };
  return sendAuthorizationStep(registry, reply, await completeAuthorization(open.transaction.request, open.client, session, authorizeDeps(registry), settled));
}
