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
  'wrong-credentials': { screens: ['login'], when: 'wrong username or password, on a connection that requires a username' },
  'wrong-email-credentials': { screens: ['login'], when: 'wrong e-mail address or password' },
  'user-blocked': { screens: ['login'], when: 'the user is blocked' },
  'too-many-attempts': { screens: ['login'], when: 'brute-force protection blocked this account from this address' },
  'suspicious-ip': { screens: ['login'], when: 'suspicious-IP throttling: many failures across accounts from this address' },
  'password-leaked': { screens: ['login'], when: 'breached-password detection: the password is known from a data breach; the user must reset it' },
  'suspicious-signups': { screens: ['signup'], when: 'suspicious-IP throttling: too many signups from this address' },
  'user-exists': { screens: ['signup'], when: 'the e-mail address or username is taken (worded so as not to confirm that an account exists)' },
  'missing-fields': { screens: ['login', 'signup', 'reset-password-request'], when: 'a field is empty or not valid' },
  'password-too-weak': { screens: ['signup', 'reset-password'], when: 'the new password breaks the connection\'s policy; the rules are listed under the message' },
  'password-too-common': { screens: ['signup', 'reset-password'], when: '`password_dictionary` is on and the password is too common' },
  'password-personal-info': { screens: ['signup', 'reset-password'], when: '`password_no_personal_info` is on and the password contains the user\'s name, username or e-mail' },
  'password-breached': { screens: ['signup', 'reset-password'], when: 'breached-password detection blocks and the new password is known from a data breach' },
  'passwords-differ': { screens: ['reset-password'], when: 'the password and its confirmation differ' },
  'invalid-ticket': { screens: ['reset-password-error'], when: 'the reset link is unknown, expired or was used already' },
} as const satisfies Record<string, PageErrorEntry>;

export type PageErrorCode = keyof typeof PAGE_ERRORS;
