/**
 * The error codes of the hosted pages' forms, as data: the page shows the language catalogue's message for the
 * code (render/texts.ts, one message per code here) and gives an advanced screen the code as
 * `transaction.errors[0].code`. The routes take only these keys (ScreenInput in pages.ts), and docs/errors.md
 * shows this table (http/errors-doc.ts renders it; a test compares). The error page (`screen: 'error'`) carries an
 * Authentication API code instead (oauth/error-codes.ts).
 */
export interface PageErrorEntry {
  /** The screens that report it. */
  readonly screens: readonly string[];
  /** When it is reported (Markdown, one table cell). */
  readonly when: string;
}

export const PAGE_ERRORS = {
  'wrong-credentials': { screens: ['login', 'login-password'], when: 'wrong username or password, on a connection that requires a username' },
  'wrong-email-credentials': { screens: ['login', 'login-password'], when: 'wrong e-mail address or password' },
  'user-blocked': { screens: ['login', 'login-password', 'login-passwordless-email-code', 'login-passwordless-sms-otp'], when: 'the user is blocked' },
  'too-many-attempts': { screens: ['login', 'login-password'], when: 'brute-force protection blocked this account from this address (a Latchkey code)' },
  'ip-blocked': { screens: ['login', 'login-password'], when: 'suspicious-IP throttling: many failures across accounts from this address' },
  'password-breached': {
    screens: ['login', 'login-password', 'signup', 'signup-password'],
    when: 'breached-password detection: the password is known from a data breach (at login the user must reset it; a new password is refused)',
  },
  'password-breached-reset': { screens: ['reset-password'], when: 'breached-password detection blocks and the new password is known from a data breach' },
  'invalid-connection': {
    screens: ['login', 'login-id', 'login-password', 'login-passwordless-email-code', 'login-passwordless-sms-otp', 'signup', 'signup-id', 'signup-password'],
    when: 'the connection is gone or not enabled for the application, or a posted federated connection is not one the screen offers',
  },
  'no-email': { screens: ['login', 'login-id', 'signup', 'signup-id', 'reset-password-request'], when: 'the e-mail address is empty' },
  'no-username': { screens: ['login', 'login-id', 'signup', 'signup-id'], when: 'the username is empty' },
  'no-password': { screens: ['login', 'login-password', 'signup', 'signup-password'], when: 'the password is empty' },
  'no-password-reset': { screens: ['reset-password'], when: 'the new password is empty' },
  'invalid-email-format': { screens: ['login-id', 'signup', 'signup-id', 'reset-password-request'], when: 'the e-mail address is not one' },
  'invalid-username': { screens: ['signup', 'signup-id'], when: 'the username has characters other than letters, digits and `_.+-`, or more than 128' },
  'invalid-phone-number': { screens: ['login-id'], when: 'a passwordless SMS connection was given something that is not a phone number in international format' },
  'signup-disabled': { screens: ['login-id', 'login-passwordless-email-code', 'login-passwordless-sms-otp'], when: 'the passwordless connection has no account for the address and signup is off (a Latchkey code)' },
  'no-code': {
    screens: ['login-passwordless-email-code', 'login-passwordless-sms-otp', 'mfa-otp-challenge', 'mfa-sms-challenge', 'mfa-email-challenge', 'mfa-recovery-code-challenge'],
    when: 'the one-time code is empty (a Latchkey code)',
  },
  'invalid-verification-code': { screens: ['login-passwordless-email-code', 'login-passwordless-sms-otp'], when: 'the one-time code is wrong' },
  'invalid-expired-code': { screens: ['login-passwordless-email-code', 'login-passwordless-sms-otp'], when: 'the one-time code is spent, expired or was tried too often: the user asks for a new one' },
  'ip-signup-blocked': { screens: ['signup', 'signup-password'], when: 'suspicious-IP throttling: too many signups from this address' },
  'email-in-use': { screens: ['signup', 'signup-password'], when: 'the e-mail address or username is taken (worded so as not to confirm that an account exists)' },
  'custom-script-error-code': {
    screens: ['signup', 'signup-password'],
    when: "a pre-user-registration Action denied the signup (`api.access.deny(reason, userMessage)`): the page shows the action's `userMessage`, or this text without one",
  },
  'password-too-weak': { screens: ['signup', 'signup-password', 'reset-password'], when: "the new password breaks the connection's policy; the rules are listed under the message" },
  'password-too-common': { screens: ['signup', 'signup-password', 'reset-password'], when: '`password_dictionary` is on and the password is too common' },
  'password-contains-user-information': {
    screens: ['signup', 'signup-password', 'reset-password'],
    when: "`password_no_personal_info` is on and the password contains the user's name, username or e-mail",
  },
  'password-mismatch': { screens: ['reset-password'], when: 'the password and its confirmation differ' },
  'invalid-organization': { screens: ['organization-selection'], when: 'no organization has the name entered' },
  'auth0-users-expired-ticket': { screens: ['reset-password-error'], when: 'the reset link is unknown, expired or was used already' },
  'invalid-code': {
    screens: ['mfa-otp-enrollment-qr', 'mfa-otp-enrollment-code', 'mfa-otp-challenge', 'mfa-sms-challenge', 'mfa-email-challenge', 'mfa-recovery-code-challenge'],
    when: 'the second factor\'s code is wrong, spent or expired (the fifth wrong code of a login sends the application `access_denied`)',
  },
  'mfa-locked': {
    screens: ['mfa-otp-challenge', 'mfa-sms-challenge', 'mfa-email-challenge', 'mfa-recovery-code-challenge', 'mfa-webauthn-roaming-challenge', 'mfa-webauthn-platform-challenge'],
    when: 'brute-force protection blocked the user\'s second factor from this address (a Latchkey code)',
  },
  'invalid-phone': { screens: ['mfa-sms-enrollment'], when: 'the phone number is not in international format (E.164)' },
  'send-failed': { screens: ['mfa-sms-enrollment'], when: 'the SMS provider could not send the code' },
  'no-confirmation': { screens: ['mfa-recovery-code-enrollment', 'mfa-recovery-code-challenge-new-code'], when: 'the box saying that the recovery code was recorded is not ticked' },
  'passkey-not-allowed': { screens: ['login-id'], when: 'a passkey was posted to a connection that does not enable passkeys' },
  'passkey-authentication-failed': {
    screens: ['login-id'],
    when: "the passkey did not verify: no challenge was shown, the assertion is malformed or wrong, replayed, not a passkey, or not of a user of the connection",
  },
  'webauthn-failed': {
    screens: ['mfa-webauthn-roaming-enrollment', 'mfa-webauthn-roaming-challenge', 'mfa-webauthn-platform-enrollment', 'mfa-webauthn-platform-challenge', 'passkey-enrollment'],
    when: 'the browser gave no credential (cancelled, timed out) or it did not verify (wrong key, replayed, another account\'s)',
  },
} as const satisfies Record<string, PageErrorEntry>;

export type PageErrorCode = keyof typeof PAGE_ERRORS;
