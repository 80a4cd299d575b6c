/**
 * The texts of the hosted pages, one catalogue per language. English is built in; a language is added by adding
 * a catalogue with the same keys (the type makes a missing text a compile error).
 */
export interface ScreenTexts {
  title: string;
  description: string;
  buttonText?: string;
}

export interface Catalogue {
  screens: Record<
    'login' | 'signup' | 'reset-password-request' | 'reset-password-email' | 'reset-password' | 'reset-password-success' | 'reset-password-error' | 'error',
    ScreenTexts
  >;
  fields: { username: string; email: string; usernameOrEmail: string; password: string; passwordConfirmation: string };
  links: { signup: string; login: string; resetPassword: string; backToLogin: string; backToApplication: string; continue: string };
  /** The list of a new password's rules: its heading, and the rules that are not about strength. */
  passwordRules: { heading: string; dictionary: string; personalInfo: string };
  /** Messages for the error codes the pages report; anything else shows `genericError`. */
  errors: Record<string, string>;
  genericError: string;
  errorCodeLabel: string;
}

const en: Catalogue = {
  screens: {
    login: { title: 'Log in', description: 'Log in to continue to {application}.', buttonText: 'Continue' },
    signup: { title: 'Create your account', description: 'Sign up to continue to {application}.', buttonText: 'Continue' },
    'reset-password-request': {
      title: 'Forgot your password?',
      description: 'Enter your e-mail address and we will send you a link to reset your password.',
      buttonText: 'Continue',
    },
    'reset-password-email': {
      title: 'Check your e-mail',
      description: 'If an account exists for {email}, we have sent it a link to reset the password.',
    },
    'reset-password': { title: 'Change your password', description: 'Enter a new password.', buttonText: 'Reset password' },
    'reset-password-success': { title: 'Password changed', description: 'Your password has been changed. You can now log in with it.' },
    'reset-password-error': { title: 'This link cannot be used', description: 'The link has expired or was already used. Ask for a new one.' },
    error: { title: 'Something went wrong', description: 'The application sent a request that cannot be completed.' },
  },
  fields: {
    username: 'Username',
    email: 'E-mail address',
    usernameOrEmail: 'Username or e-mail address',
    password: 'Password',
    passwordConfirmation: 'Confirm the new password',
  },
  links: {
    signup: "Don't have an account? Sign up",
    login: 'Already have an account? Log in',
    resetPassword: 'Forgot your password?',
    backToLogin: 'Back to log in',
    backToApplication: 'Back to {application}',
    continue: 'Continue',
  },
  passwordRules: {
    heading: 'Your password must follow these rules:',
    dictionary: 'Not a commonly used password',
    personalInfo: 'Not based on your name, user name or e-mail address',
  },
  errors: {
    'wrong-credentials': 'Wrong username or password.',
    'wrong-email-credentials': 'Wrong e-mail address or password.',
    'user-blocked': 'This account is blocked. Contact the administrator of the application.',
    'too-many-attempts': 'Your account has been blocked after multiple consecutive login attempts. We have sent you an e-mail with instructions on how to unblock it.',
    'suspicious-signups': 'We have detected suspicious signup behavior and further attempts will be blocked. Please contact the administrator.',
    'suspicious-ip': 'We have detected suspicious login behavior and further attempts will be blocked. Please contact the administrator.',
    'password-leaked': 'This password was disclosed in a data breach (not in this application). Reset your password to log in: use "Forgot your password?" below.',
    'missing-fields': 'Fill in every field with a valid value.',
    'password-too-weak': 'The password is too weak. It must follow these rules:',
    'password-too-common': 'This password is too common: choose another one.',
    'password-breached': 'This password was disclosed in a data breach (not in this application): choose another one.',
    'password-personal-info': 'The password must not contain your name, user name or e-mail address.',
    'user-exists': 'Something went wrong: try another address or log in instead.',
    'passwords-differ': 'The passwords do not match.',
    'invalid-ticket': 'The link has expired or was already used.',
  },
  genericError: 'The request could not be completed.',
  errorCodeLabel: 'Error code',
};

export const CATALOGUES: Readonly<Record<string, Catalogue>> = { en };

/** The catalogue of a locale, English when the locale has none. */
export function catalogueFor(locale: string): Catalogue {
  return CATALOGUES[locale] ?? en;
}

/** Fills `{name}` placeholders; the values are plain text and are escaped where the text is written. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{([a-z]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
