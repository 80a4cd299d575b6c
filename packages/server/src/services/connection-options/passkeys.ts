import type { ConnectionData } from '../../storage/records.js';

/** How the login screen offers a passkey: a button, the browser's autofill (conditional UI), or both. */
export type PasskeyChallengeUi = 'both' | 'autofill' | 'button';
const CHALLENGE_UIS: readonly string[] = ['both', 'autofill', 'button'];

/** A database connection's passkey settings, as its options (`authentication_methods`, `passkey_options`) say. */
export interface PasskeySettings {
  /** Users log in and sign up with a passkey (`authentication_methods.passkey.enabled`). */
  enabled: boolean;
  /** Users log in and sign up with a password (`authentication_methods.password.enabled`, on unless turned off). */
  passwordEnabled: boolean;
  challengeUi: PasskeyChallengeUi;
  /** After a password login, a user without a passkey is offered to create one. */
  progressiveEnrollment: boolean;
  /** Stored and answered; Latchkey has no cross-device sign-in to follow with a local enrollment. */
  localEnrollment: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The methods `authentication_methods` may name, and the fields each takes besides `enabled` (the platform's schema). */
const METHODS: Record<string, Record<string, readonly string[]>> = {
  password: { api_behavior: ['required', 'optional'], signup_behavior: ['allow', 'block'] },
  passkey: {},
  email_otp: {},
  phone_otp: {},
};
const PASSKEY_FLAGS = ['progressive_enrollment_enabled', 'local_enrollment_enabled'];

/**
 * What is wrong with a database connection's `authentication_methods` and `passkey_options` (both optional, `null`
 * as absent): each must have the platform's shape, unknown keys included, so that a typo is refused rather than
 * stored and silently ignored.
 */
export function passkeyOptionProblems(options: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const methods = options.authentication_methods;
  if (methods !== undefined && methods !== null) {
    if (!isObject(methods)) problems.push('authentication_methods must be an object');
    else {
      for (const [name, method] of Object.entries(methods)) {
        const fields = METHODS[name];
        if (!fields) {
          problems.push(`authentication_methods.${name} is not an authentication method (${Object.keys(METHODS).join(', ')})`);
          continue;
        }
        if (!isObject(method)) {
          problems.push(`authentication_methods.${name} must be an object`);
          continue;
        }
        for (const [key, value] of Object.entries(method)) {
          const allowed = fields[key];
          if (key === 'enabled') {
            if (typeof value !== 'boolean') problems.push(`authentication_methods.${name}.enabled must be a boolean`);
          } else if (!allowed) problems.push(`authentication_methods.${name}.${key} is not a known property`);
          else if (typeof value !== 'string' || !allowed.includes(value)) problems.push(`authentication_methods.${name}.${key} must be one of ${allowed.join(', ')}`);
        }
      }
    }
  }
  const passkey = options.passkey_options;
  if (passkey !== undefined && passkey !== null) {
    if (!isObject(passkey)) problems.push('passkey_options must be an object');
    else {
      for (const [key, value] of Object.entries(passkey)) {
        if (key === 'challenge_ui') {
          if (typeof value !== 'string' || !CHALLENGE_UIS.includes(value)) problems.push(`passkey_options.challenge_ui must be one of ${CHALLENGE_UIS.join(', ')}`);
        } else if (PASSKEY_FLAGS.includes(key)) {
          if (typeof value !== 'boolean') problems.push(`passkey_options.${key} must be a boolean`);
        } else problems.push(`passkey_options.${key} is not a known property`);
      }
    }
  }
  return problems;
}

/** The passkey settings of a connection; any connection but a database one has passkeys off. */
export function passkeySettingsOf(connection: Pick<ConnectionData, 'strategy' | 'options'>): PasskeySettings {
  const { options } = connection;
  const methods = isObject(options.authentication_methods) ? options.authentication_methods : {};
  const method = (name: string) => (isObject(methods[name]) ? methods[name] : {});
  const passkey = isObject(options.passkey_options) ? options.passkey_options : {};
  const challengeUi = typeof passkey.challenge_ui === 'string' && CHALLENGE_UIS.includes(passkey.challenge_ui) ? (passkey.challenge_ui as PasskeyChallengeUi) : 'both';
  return {
    enabled: connection.strategy === 'auth0' && method('passkey').enabled === true,
    passwordEnabled: method('password').enabled !== false,
    challengeUi,
    progressiveEnrollment: passkey.progressive_enrollment_enabled === true,
    localEnrollment: passkey.local_enrollment_enabled === true,
  };
}
