import type { DatabaseLogin } from '../services/database-login.js';
import { ServiceError } from '../services/errors.js';
import { originFields, type NewLogEvent, type RequestOrigin } from '../services/events/event.js';
import type { EventRecorder } from '../services/events/recorder.js';
import type { Passwordless } from '../services/passwordless.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { AccountBlockedAttempts, OAuthError, PasswordLeaked, SuspiciousIp } from './errors.js';
import { recordedAlready, wasRecorded } from './grants/recorded-refusals.js';
import type { LoginTickets } from './login-tickets.js';

export const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
export const PASSWORDLESS_OTP = 'http://auth0.com/oauth/grant-type/passwordless/otp';

/**
 * The fields each credential type takes, all of them required and nothing else (the platform's wording). A Map:
 * a `credential_type` such as `constructor` must not find an object's inherited members.
 */
const FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  [PASSWORD_REALM, ['client_id', 'credential_type', 'username', 'password', 'realm']],
  [PASSWORDLESS_OTP, ['client_id', 'credential_type', 'username', 'otp', 'realm']],
]);

/** The `/co/authenticate` errors of the spec's table, as `{error, error_description}` with their statuses. */
export class CrossOriginError extends OAuthError {}

/**
 * The spec's answer to a bad body, naming the fields of the credential type given; without a known type, the
 * spec's own list (Errors 5).
 */
export function invalidBody(credentialType: unknown): CrossOriginError {
  const fields = (typeof credentialType === 'string' ? FIELDS.get(credentialType) : undefined) ?? FIELDS.get(PASSWORDLESS_OTP) ?? [];
  return new CrossOriginError('invalid_request', `Invalid request body. All and only of ${fields.join(', ')} are required.`, 400);
}

/** The spec's generic authentication error (Errors 5): a refusal its table has no row of its own for. */
const GENERIC_REFUSAL = () => new CrossOriginError('access_denied', 'The login could not be completed.', 403);

export interface CrossOriginDeps {
  config: OAuthConfig;
  databaseLogin: DatabaseLogin;
  passwordless: Passwordless;
  loginTickets: LoginTickets;
  /** The tenant log: `scoa` for a ticket issued, `fcoa` for a refusal. */
  events: Pick<EventRecorder, 'record'>;
}

type Ticket = { login_ticket: string; co_verifier: string; co_id: string };

/** Who signed in, as the ticket carries them. */
interface Authenticated {
  userId: string;
  connection: string;
  amr: string[];
}

/** What is known of an attempt so far: the facts its `fcoa` names if it is refused (never the password or code). */
interface Attempt {
  clientId?: string;
  credentialType?: string;
  userName?: string;
  connection?: string;
}

/**
 * The `fcoa` of a refusal, unless the credential check logged it where it was decided; answers the error for the
 * caller to throw. The HTTP layer calls it too, for the bodies it refuses before the protocol core sees them.
 */
export function refuseCrossOrigin(error: OAuthError, attempt: Attempt, origin: RequestOrigin, events: Pick<EventRecorder, 'record'>): OAuthError {
  if (wasRecorded(error)) return error;
  const event: NewLogEvent = {
    type: 'fcoa',
    description: error.description,
    ...originFields(origin),
    details: attempt.credentialType !== undefined ? { error: error.error, credential_type: attempt.credentialType } : { error: error.error },
  };
  if (attempt.clientId !== undefined) event.client_id = attempt.clientId;
  if (attempt.userName !== undefined) event.user_name = attempt.userName;
  if (attempt.connection !== undefined) event.connection = attempt.connection;
  events.record(event);
  return error;
}

/** The facts of a body that name its client, as a refused attempt records them. */
export function attemptOf(body: Record<string, unknown>): Attempt {
  return typeof body.client_id === 'string' && body.client_id !== '' ? { clientId: body.client_id } : {};
}

/**
 * `POST /co/authenticate`: checks credentials typed into an application's own page and answers a login ticket
 * for `/authorize`, with the verifier that binds it to this browser. Order of checks: body shape, application
 * (cross-origin login on), credential type, realm, credentials. Every outcome is logged: `scoa` when a ticket is
 * issued (the ticket's redemption at `/authorize` is the login, `s`), `fcoa` for a refusal.
 */
export async function crossOriginAuthenticate(body: Record<string, unknown>, origin: RequestOrigin, deps: CrossOriginDeps): Promise<Ticket> {
  const attempt = attemptOf(body);
  try {
    const { ticket, user, clientId } = await authenticate(body, origin, deps, attempt);
    deps.events.record({
      type: 'scoa',
      client_id: clientId,
      user_id: user.userId,
      connection: user.connection,
      ...(attempt.userName !== undefined ? { user_name: attempt.userName } : {}),
      ...originFields(origin),
      details: { credential_type: attempt.credentialType, amr: user.amr },
    });
    return ticket;
  } catch (error) {
    if (error instanceof OAuthError) throw refuseCrossOrigin(error, attempt, origin, deps.events);
    throw error;
  }
}

/** The checks in order; fills in `attempt` as its facts become known. */
async function authenticate(body: Record<string, unknown>, origin: RequestOrigin, deps: CrossOriginDeps, attempt: Attempt): Promise<{ ticket: Ticket; user: Authenticated; clientId: string }> {
  const credentialType = typeof body.credential_type === 'string' ? body.credential_type : undefined;
  const expected = credentialType === undefined ? undefined : FIELDS.get(credentialType);
  const strings = Object.values(body).every((value) => typeof value === 'string');
  if (!strings || typeof body.client_id !== 'string' || !body.client_id || credentialType === undefined) throw invalidBody(credentialType);
  const client = await deps.config.client(body.client_id);
  if (!client || !client.data.cross_origin_authentication) {
    throw new CrossOriginError('unauthorized_client', 'Cross origin login not allowed.', 401);
  }
  if (!expected) throw new CrossOriginError('unsupported_credential_type', 'Unknown credential type parameter.', 400);
  attempt.credentialType = credentialType;
  const names = Object.keys(body);
  if (names.length !== expected.length || !expected.every((name) => typeof body[name] === 'string' && body[name] !== '')) throw invalidBody(credentialType);
  attempt.userName = String(body.username).trim();
  attempt.connection = String(body.realm);
  try {
    const user = await checkCredentials(credentialType, body, client.clientId, origin, deps, attempt);
    const issued = await deps.loginTickets.issue({ clientId: client.clientId, ...user });
    return { ticket: { login_ticket: issued.loginTicket, co_verifier: issued.coVerifier, co_id: issued.coId }, user, clientId: client.clientId };
  } catch (error) {
    // A service turning the login down for a reason of its own (say, a connection deleted on another node while
    // this one still has it cached) is still a refusal: the generic 403, never a 500.
    if (error instanceof ServiceError) throw GENERIC_REFUSAL();
    throw error;
  }
}

/** Checks the credentials of a well-formed body for an application that may log in this way; answers who they are. */
async function checkCredentials(
  credentialType: string,
  body: Record<string, unknown>,
  clientId: string,
  origin: RequestOrigin,
  deps: CrossOriginDeps,
  attempt: Attempt,
): Promise<Authenticated> {
  const realm = String(body.realm);
  const unknownRealm = () => {
    // A realm that names nothing is not logged as a connection.
    delete attempt.connection;
    return new CrossOriginError('invalid_request', 'Unknown realm', 400);
  };
  if (credentialType === PASSWORDLESS_OTP) {
    const checked = await deps.passwordless.check({ clientId: clientId, connection: realm, address: String(body.username), code: String(body.otp), spend: true, ip: origin.ip });
    if (!checked.ok) {
      switch (checked.failure) {
        case 'unknown_connection':
          throw unknownRealm();
        case 'blocked':
          throw new CrossOriginError('blocked_user', 'user is blocked', 403);
        case 'too_many_tries':
          throw new CrossOriginError('access_denied', "You've reached the maximum number of attempts. Please try to login again.", 403);
        case 'signup_disabled':
          throw new CrossOriginError('access_denied', 'Public signup is disabled for this connection.', 403);
        case 'wrong_code':
          throw new CrossOriginError('access_denied', `Wrong ${String(body.username).trim().startsWith('+') ? 'phone number' : 'email'} or verification code.`, 403);
      }
    }
    return { userId: checked.userId ?? '', connection: checked.connection.name, amr: ['otp'] };
  }
  const result = await deps.databaseLogin.login({ connection: realm, clientId: clientId, username: String(body.username), password: String(body.password), ...origin, failedAs: 'fcoa' });
  if (!result.ok) {
    // The credential check logged every refusal but an unknown realm (`fcoa`, or the protections' own codes).
    switch (result.reason) {
      case 'unknown_connection':
      case 'connection_not_enabled':
        throw unknownRealm();
      case 'blocked':
        throw recordedAlready(new CrossOriginError('blocked_user', 'user is blocked', 403));
      case 'wrong_credentials':
        throw recordedAlready(new CrossOriginError('access_denied', 'Wrong email or password.', 403));
      case 'too_many_attempts':
        throw recordedAlready(new AccountBlockedAttempts());
      case 'ip_throttled':
        throw recordedAlready(new SuspiciousIp());
      case 'password_leaked':
        throw recordedAlready(new PasswordLeaked());
    }
  }
  return { userId: result.userId, connection: result.connection, amr: ['pwd'] };
}
