/**
 * The error codes of the Authentication API (`{error, error_description}`, and `error` at a redirect URI), as
 * data: the error classes take only these keys (oauth/errors.ts), the surface answers only these
 * (http/oauth/surface.ts), and docs/errors.md shows this table (http/errors-doc.ts renders it; a test compares).
 * A code is added here first, with when it is answered, or the code raising it does not compile.
 */
export interface OAuthErrorEntry {
  /** The HTTP statuses it is answered with; `redirect`: it travels back to the redirect URI of `/authorize`. */
  readonly statuses: readonly (number | 'redirect')[];
  /** When it is answered (Markdown, one table cell). */
  readonly when: string;
}

export const OAUTH_ERRORS = {
  invalid_request: {
    statuses: [400, 401, 413, 415],
    when:
      'a required parameter is missing or malformed, or two client authentication methods are used at once, or `/userinfo` gets its access token both in the header and in the query; 401 with a bare `WWW-Authenticate: Bearer` challenge when `/userinfo` gets no token at all; 413 for a body over 256 KiB, 415 for a body that is neither JSON nor a form',
  },
  invalid_client: {
    statuses: [401],
    when: 'unknown client, wrong secret, or a client assertion or forwarded certificate that does not verify, is replayed or is not trusted (with `WWW-Authenticate: Basic` when Basic was used)',
  },
  invalid_grant: {
    statuses: [400, 403],
    when:
      '`Malformed mfa_token` (403: unknown, used, or issued to another application), `Invalid otp_code.`, `Invalid binding_code.`, `Invalid recovery_code.` (403, the MFA grants); the grant presented (code, refresh token) is invalid, expired, for another client or was used already (a replayed code or refresh token also revokes its whole grant); 403 `Wrong email or password.` on the password grants, and 403 for a wrong one-time code at `/oauth/token` and `/passwordless/verify` (see `access_denied`)',
  },
  unauthorized: { statuses: [401], when: '`user is blocked` (password grants)' },
  invalid_token: {
    statuses: [401],
    when: '`/userinfo`: the bearer token is malformed, expired, forged, not for `/userinfo`, or of a revoked grant (with `WWW-Authenticate: Bearer … error="invalid_token"`)',
  },
  unsupported_token_type: { statuses: [400], when: '`/oauth/revoke` with a `token_type_hint` other than `refresh_token`' },
  unsupported_response_type: { statuses: ['redirect'], when: '`/authorize`: an unknown `response_type`' },
  login_required: {
    statuses: ['redirect'],
    when: '`/authorize` with `prompt=none` and no session that can answer; `Multifactor authentication required` when the SSO session has no second factor and the login needs one (the MFA policy, `acr_values`, or a post-login Action calling `api.multifactor.enable`)',
  },
  consent_required: { statuses: ['redirect'], when: '`/authorize` with `prompt=none` for a third-party application' },
  unauthorized_client: {
    statuses: [400, 401],
    when: 'the client may not use this grant type (e.g. a public client asking for `client_credentials`); 401 `Cross origin login not allowed.` at `/co/authenticate`',
  },
  access_denied: {
    statuses: [403, 'redirect'],
    when:
      'no audience, an unknown API (`Service not found: <audience>`), or no client grant for the API; an upstream identity provider or SAML response that refused or could not be checked (at the redirect URI); passwordless: `/passwordless/start` or a first login on a connection with `disable_signup`, a wrong one-time code at `/co/authenticate` or in a magic link (`Wrong email or verification code.` / `Wrong phone number or verification code.`), or after three wrong guesses `You\'ve reached the maximum number of attempts. Please try to login again.` (`/oauth/token` and `/passwordless/verify` answer these two as `invalid_grant` 403)',
  },
  mfa_required: {
    statuses: [403],
    when: 'password and password-realm grants (and the passwordless one-time code grant) when a second factor is required (the MFA policy `all-applications`, `acr_values` asking for `http://schemas.openid.net/pape/policies/2007/06/multi-factor`, or a post-login Action calling `api.multifactor.enable`): `Multifactor authentication required`, with an `mfa_token` (10 minutes, bound to the application and the user) for `/mfa/*` and the MFA grants',
  },
  expired_token: { statuses: [401], when: '`mfa_token is expired` (`/mfa/*` and the MFA grants, past the token\'s 10 minutes)' },
  unsupported_challenge_type: {
    statuses: [400],
    when: '`/mfa/challenge`: `User is not enrolled.` (no confirmed authenticator: associate one first), or no authenticator of the asked type',
  },
  invalid_scope: { statuses: [400], when: 'none of the requested scopes is granted to the client' },
  unsupported_grant_type: { statuses: [400], when: 'the grant type is unknown' },
  unsupported_credential_type: { statuses: [400], when: '`/co/authenticate`: a `credential_type` other than password-realm or passwordless OTP' },
  blocked_user: { statuses: [403], when: '`/co/authenticate`: the user is blocked' },
  'bad.connection': { statuses: [400], when: '`/passwordless/start`: no passwordless connection of that name is enabled for the application' },
  'bad.email': { statuses: [400], when: '`/passwordless/start`: the address is not an e-mail address' },
  'bad.phone_number': { statuses: [400], when: '`/passwordless/start`: the number is not an E.164 phone number' },
  too_many_requests: {
    statuses: [429],
    when: 'the endpoint\'s rate limit for this address (`LATCHKEY_AUTH_RATE_LIMIT`, `LATCHKEY_AUTH_RATE_LIMITS`) is spent: `Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.`, with `Retry-After`',
  },
  too_many_attempts: {
    statuses: [429],
    when:
      'five wrong second-factor codes for one `mfa_token` (the token is spent: log in again; the wrong codes count toward brute-force protection too); password logins (`/co/authenticate`, password grants): `max_attempts` consecutive failures blocked this account from this address (brute-force protection; lifted by the e-mailed link, `DELETE /api/v2/user-blocks/...` or after 24 hours), or many failures across accounts throttle this address (suspicious-IP throttling)',
  },
  password_leaked: {
    statuses: [401],
    when: 'password logins with breached-password detection on: the password is known from a data breach; the user must reset it',
  },
  not_found: { statuses: [404], when: 'no such endpoint' },
  temporarily_unavailable: {
    statuses: [503],
    when:
      'the database is unreachable, restarting, or (SQLite) locked past the busy timeout; with `Retry-After`. Hosted pages and other browser navigations (`Accept: text/html`) get an HTML page with the same status instead; the same request succeeds once the outage is over',
  },
  server_error: {
    statuses: [500, 'redirect'],
    when: "an unexpected failure (the cause is only in the server log); or an Action failed during a login (it threw, ran out of time or memory): the description names the action, the tenant log has its error and console output",
  },
} as const satisfies Record<string, OAuthErrorEntry>;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

/** The Authentication API's error body. */
export function oauthErrorBody(error: OAuthErrorCode, description: string): { error: OAuthErrorCode; error_description: string } {
  return { error, error_description: description };
}
