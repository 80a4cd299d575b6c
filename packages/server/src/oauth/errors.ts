import type { OAuthErrorCode } from './error-codes.js';

/**
 * OAuth errors, one class per wire code. The HTTP layer turns any of them into `{error, error_description}`
 * with the status here; anything else becomes `server_error` with the cause only in the log. The code is a key
 * of the catalogue (error-codes.ts), so an uncatalogued code does not compile.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Fields the platform answers beside `error` and `error_description` (e.g. `mfa_token`). */
    readonly extra: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', description, 400);
  }
}

export class InvalidClient extends OAuthError {
  constructor(description: string, challengeBasic: boolean) {
    super('invalid_client', description, 401, challengeBasic ? { 'www-authenticate': 'Basic realm="latchkey"' } : {});
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', description, 400);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super('unauthorized_client', description, 400);
  }
}

export class AccessDenied extends OAuthError {
  constructor(description: string) {
    super('access_denied', description, 403);
  }
}

/** An Action failed during a sign-in: the description names the action and its error (never its stack). */
export class ActionFailed extends OAuthError {
  constructor(description: string) {
    super('server_error', description, 500);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super('invalid_scope', description, 400);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super('unsupported_grant_type', description, 400);
  }
}

/** The platform answers wrong credentials on the password grants with 403 rather than 400. */
export class WrongCredentials extends OAuthError {
  constructor() {
    super('invalid_grant', 'Wrong email or password.', 403);
  }
}

export class BlockedUser extends OAuthError {
  constructor() {
    super('unauthorized', 'user is blocked', 401);
  }
}

/** Spec, Errors 5: consecutive failed logins blocked this account from this address. */
export class AccountBlockedAttempts extends OAuthError {
  constructor() {
    super('too_many_attempts', "Your account has been blocked after multiple consecutive login attempts. We've sent you an email with instructions on how to unblock it.", 429);
  }
}

/** Spec, Errors 5: many failures across accounts from this address. */
export class SuspiciousIp extends OAuthError {
  constructor() {
    super('too_many_attempts', 'We have detected suspicious login behavior and further attempts will be blocked. Please contact the administrator.', 429);
  }
}

/** Spec, Errors 5: the password is known from a data breach; the user must reset it. */
export class PasswordLeaked extends OAuthError {
  constructor() {
    super('password_leaked', "This login attempt has been blocked because the password you're using was previously disclosed through a data breach (not in this application). Reset your password to log in.", 401);
  }
}

/** Authorization-endpoint errors that only travel back to the redirect URI. */
export class UnsupportedResponseType extends OAuthError {
  constructor(description: string) {
    super('unsupported_response_type', description, 400);
  }
}

export class LoginRequired extends OAuthError {
  constructor(description = 'Login required') {
    super('login_required', description, 400);
  }
}

export class ConsentRequired extends OAuthError {
  constructor(description = 'Consent required') {
    super('consent_required', description, 400);
  }
}

export class UnsupportedTokenType extends OAuthError {
  constructor(description: string) {
    super('unsupported_token_type', description, 400);
  }
}

/** The platform's answer to a password (or one-time code) login that needs a second factor: go on with `mfa_token`. */
export class MfaRequired extends OAuthError {
  constructor(mfaToken: string) {
    super('mfa_required', 'Multifactor authentication required', 403, {}, { mfa_token: mfaToken });
  }
}

/** An `mfa_token` past its ten minutes. */
export class ExpiredMfaToken extends OAuthError {
  constructor() {
    super('expired_token', 'mfa_token is expired', 401);
  }
}

/** An `mfa_token` that is not one of ours, was used up, or was issued to another application. */
export class MalformedMfaToken extends OAuthError {
  constructor() {
    super('invalid_grant', 'Malformed mfa_token', 403);
  }
}

/** A challenge the user has no authenticator for (`/mfa/challenge`), or no authenticator at all. */
export class UnsupportedChallengeType extends OAuthError {
  constructor(description: string) {
    super('unsupported_challenge_type', description, 400);
  }
}

/** Too many wrong second-factor codes for one mfa_token. */
export class TooManyMfaAttempts extends OAuthError {
  constructor() {
    super('too_many_attempts', 'Too many failed attempts: log in again.', 429);
  }
}

/** A wrong second-factor code at the MFA grants: `invalid_grant` with 403, as the platform answers it. */
export class WrongMfaCode extends OAuthError {
  constructor(description: 'Invalid otp_code.' | 'Invalid binding_code.' | 'Invalid oob_code.' | 'Invalid recovery_code.') {
    super('invalid_grant', description, 403);
  }
}
