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
