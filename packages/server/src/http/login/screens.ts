import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import { PROMPT_OF_SCREEN } from '../../services/rendering/texts/index.js';

/**
 * The hosted multi-factor screens, each at `/u/<its name>` as the platform serves them (http/login/mfa-screens.ts).
 * A transaction waiting for a second factor reaches these and nothing else.
 */
export const MFA_SCREEN_PATHS = {
  'mfa-begin-enroll-options': '/u/mfa-begin-enroll-options',
  'mfa-login-options': '/u/mfa-login-options',
  'mfa-otp-enrollment-qr': '/u/mfa-otp-enrollment-qr',
  'mfa-otp-enrollment-code': '/u/mfa-otp-enrollment-code',
  'mfa-otp-challenge': '/u/mfa-otp-challenge',
  'mfa-sms-enrollment': '/u/mfa-sms-enrollment',
  'mfa-sms-challenge': '/u/mfa-sms-challenge',
  'mfa-email-challenge': '/u/mfa-email-challenge',
  'mfa-recovery-code-enrollment': '/u/mfa-recovery-code-enrollment',
  'mfa-recovery-code-challenge': '/u/mfa-recovery-code-challenge',
  'mfa-recovery-code-challenge-new-code': '/u/mfa-recovery-code-challenge-new-code',
  'mfa-webauthn-roaming-enrollment': '/u/mfa-webauthn-roaming-enrollment',
  'mfa-webauthn-roaming-challenge': '/u/mfa-webauthn-roaming-challenge',
  'mfa-webauthn-platform-enrollment': '/u/mfa-webauthn-platform-enrollment',
  'mfa-webauthn-platform-challenge': '/u/mfa-webauthn-platform-challenge',
} as const;

export type MfaScreen = keyof typeof MFA_SCREEN_PATHS;

export const isMfaScreen = (screen: string): screen is MfaScreen => Object.hasOwn(MFA_SCREEN_PATHS, screen);

/** Where a transaction waiting for a second factor goes first: the screen that fits the user's factors. */
export const MFA_ENTRY_PATH = '/u/mfa';

/**
 * The hosted login's screens, named and addressed as the platform names them (its prompt/screen model), so that a
 * tenant bundle written with the platform's Advanced Customizations SDK finds the screen it expects. Each screen
 * that takes input renders at its path (GET) and takes its form at the same path (POST), with `?state=`.
 */
export const TRANSACTION_SCREEN_PATHS = {
  login: '/u/login',
  'login-id': '/u/login/identifier',
  'login-password': '/u/login/password',
  'login-passwordless-email-code': '/u/login/passwordless-email-challenge',
  'login-passwordless-sms-otp': '/u/login/passwordless-sms-challenge',
  signup: '/u/signup',
  'signup-id': '/u/signup/identifier',
  'signup-password': '/u/signup/password',
  consent: '/u/consent',
  'organization-selection': '/u/organization-selection',
  'organization-picker': '/u/organization-picker',
  'accept-invitation': '/u/accept-invitation',
  ...MFA_SCREEN_PATHS,
  /** A passkey to create: a signup with a passkey, or offered after a password login (http/login/passkey-screens.ts). */
  'passkey-enrollment': '/u/passkey-enrollment',
} as const;

export type TransactionScreen = keyof typeof TRANSACTION_SCREEN_PATHS;

/** Every screen Latchkey renders: the transaction's screens, the reset-password and logout screens, and the error page. */
export type HostedScreen =
  | TransactionScreen
  | 'reset-password-request'
  | 'reset-password-email'
  | 'reset-password'
  | 'reset-password-success'
  | 'reset-password-error'
  | 'email-verification-result'
  | 'logout'
  | 'logout-complete'
  | 'logout-aborted'
  | 'error';

/** The platform's prompt of each screen (rendering configurations and custom text are per prompt and screen). */
export const PROMPT_OF: Readonly<Record<HostedScreen, string>> = PROMPT_OF_SCREEN;

/** A screen's URL within a transaction. */
export const screenUrl = (screen: TransactionScreen, transaction: Pick<LoginTransaction, 'publicId'>) =>
  `${TRANSACTION_SCREEN_PATHS[screen]}?state=${encodeURIComponent(transaction.publicId)}`;

/** The password-reset request screen of a connection, within a transaction. */
export const resetRequestUrl = (connection: string, transaction: Pick<LoginTransaction, 'publicId'>) =>
  `/u/reset-password/request/${encodeURIComponent(connection)}?state=${encodeURIComponent(transaction.publicId)}`;

/**
 * Where a transaction starts: identifier first (`login-id`, then a password or a code) when the tenant's prompt
 * settings ask for it or when only a passwordless connection can log the user in; otherwise the page with both
 * fields. `screen_hint=signup` starts at the signup screens.
 */
export function firstScreen(transaction: LoginTransaction, identifierFirst: boolean): TransactionScreen {
  if (transaction.request.screenHint === 'signup') return identifierFirst ? 'signup-id' : 'signup';
  return identifierFirst ? 'login-id' : 'login';
}

/**
 * Whether the transaction has reached a screen, so that its form may be posted: a password or a code is asked only
 * after the identifier it is for. A post to a screen the transaction has not reached (a stale tab, a forged post)
 * is sent back to the start.
 */
export function screenReached(screen: TransactionScreen | 'reset-password-request', transaction: LoginTransaction): boolean {
  // A transaction waiting for a second factor, consent or the user's organization has a signed-in user: it takes
  // that screen's answer and nothing else.
  if (transaction.mfa !== undefined || isMfaScreen(screen)) return isMfaScreen(screen) && transaction.mfa !== undefined;
  // A login offered a passkey after its password waits for that answer alone; a signup with a passkey may go back.
  if (transaction.passkeyEnrollment?.purpose === 'progressive' || screen === 'passkey-enrollment') return screen === 'passkey-enrollment' && transaction.passkeyEnrollment !== undefined;
  if (transaction.consent !== undefined || screen === 'consent') return screen === 'consent' && transaction.consent !== undefined;
  if (transaction.organizationPicker !== undefined || screen === 'organization-picker') return screen === 'organization-picker' && transaction.organizationPicker !== undefined;
  switch (screen) {
    case 'login-password':
      return transaction.identifier !== undefined;
    case 'login-passwordless-email-code':
      return transaction.passwordless?.strategy === 'email';
    case 'login-passwordless-sms-otp':
      return transaction.passwordless?.strategy === 'sms';
    case 'signup-password':
      return transaction.signupIdentifiers !== undefined;
    default:
      return true;
  }
}

/** The user names a database connection accepts here, as the texts that state the rule fill it in. */
export const USERNAME_SHAPE = /^[A-Za-z0-9_.+-]{1,128}$/;
export const USERNAME_RULE = { min: '1', max: '128', characters: '_ . + -' } as const;
