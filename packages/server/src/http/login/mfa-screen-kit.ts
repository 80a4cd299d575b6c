import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BrowserMfa } from '../../oauth/mfa/browser-mfa.js';
import type { Registry } from '../../registry.js';
import type { Tree } from './render/model.js';
import { sendErrorPage, sendScreen } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { ScreenForm } from './screen-forms.js';
import { screenUrl, type MfaScreen } from './screens.js';
import { openScreenPost, openTransaction } from './transaction-context.js';
import { enrolledFactorNames, factorsOf, toScreen, type MfaTransaction } from './mfa-flow.js';

/**
 * What every hosted MFA screen shares: the form they post, opening their transaction, rendering them with the user's
 * factors, and "try another method" (mfa-screens.ts and mfa-webauthn-screens.ts build on it).
 */

/** What the MFA screens post, as our pages and the platform's SDK send it (field names of the SDK's screen classes). */
export const MfaForm = ScreenForm({
  // The SDK reports a failed WebAuthn ceremony as `showError::<the error as JSON>`.
  action: Type.Optional(Type.String({ maxLength: 2048 })),
  code: Type.Optional(Type.String({ maxLength: 64 })),
  phone: Type.Optional(Type.String({ maxLength: 32 })),
  rememberBrowser: Type.Optional(Type.String({ maxLength: 8 })),
  saved: Type.Optional(Type.String({ maxLength: 8 })),
  // A WebAuthn credential, as JSON (the SDK: `response` on the MFA screens, `passkey` on passkey-enrollment).
  response: Type.Optional(Type.String({ maxLength: 16_384 })),
  passkey: Type.Optional(Type.String({ maxLength: 16_384 })),
});
export type MfaFormBody = (typeof MfaForm)['static'];


/** What a screen shows besides its texts. */
export interface MfaScreenView {
  data?: Tree;
  errorCode?: PageErrorCode;
  factors?: string[];
  textValues?: Record<string, string>;
}

/** Renders an MFA screen of the transaction: its data in `screen.data`, the user's factors in `user.enrolled_factors`. */
export async function showMfaScreen(registry: Registry, reply: FastifyReply, open: MfaTransaction, screen: MfaScreen, view: MfaScreenView = {}, status = view.errorCode ? 400 : 200) {
  const { mfa } = open.transaction;
  const factors = await factorsOf(registry, mfa.userId);
  const enrolled = enrolledFactorNames(factors);
  const account = (await registry.storage.users.get(registry.tenantId, mfa.userId))?.data;
  // Another method exists: another enrolled factor (or the recovery code) to challenge, another factor to enroll.
  const canPickAnother = factors.confirmed.length > 0 ? enrolled.length > 1 : factors.enrollable.length > 1;
  return sendScreen(registry, reply, status, {
    screen,
    client: open.client,
    transaction: open.transaction,
    action: screenUrl(screen, open.transaction),
    mfa: { data: view.data ?? {}, ...(view.factors ? { factors: view.factors } : {}), canPickAnother },
    user: { id: mfa.userId, ...(account?.email ? { email: account.email } : {}), ...(account?.username ? { username: account.username } : {}), enrolled_factors: enrolled },
    ...(view.errorCode ? { errorCode: view.errorCode } : {}),
    ...(view.textValues ? { textValues: view.textValues } : {}),
  });
}

/** The transaction of an MFA screen's page; undefined once the error page was sent. */
export async function openMfaPage(registry: Registry, request: FastifyRequest, reply: FastifyReply, state: string): Promise<MfaTransaction | undefined> {
  const open = await openTransaction(registry, request, reply, state);
  if (!open) return undefined;
  if (!open.transaction.mfa) {
    await sendErrorPage(registry, reply, 400, 'invalid_request', 'This login asks for no second factor.', open.client);
    return undefined;
  }
  return open as MfaTransaction;
}

/** The transaction of an MFA screen's post (the checks of every screen's post: openScreenPost). */
export async function openMfaPost(registry: Registry, request: FastifyRequest, reply: FastifyReply, screen: MfaScreen): Promise<MfaTransaction | undefined> {
  return (await openScreenPost(registry, request, reply, screen)) as MfaTransaction | undefined;
}

export const saveMfa = (registry: Registry, open: MfaTransaction, mfa: BrowserMfa) => registry.transactions.save(open.handle, { ...open.transaction, mfa });

/** "Try another method": the factors the user has, or, while enrolling the first, the ones they may enroll. */
export async function pickAnother(registry: Registry, reply: FastifyReply, open: MfaTransaction) {
  const factors = await factorsOf(registry, open.transaction.mfa.userId);
  return toScreen(reply, factors.confirmed.length > 0 || factors.recovery ? 'mfa-login-options' : 'mfa-begin-enroll-options', open);
}
