import type { CachedClient, OAuthConfig } from './config-cache.js';
import type { Storage } from '../storage/storage.js';
import type { AttackProtectionSettings } from './attack-protection-settings.js';
import type { BreachedPasswords } from './breached-passwords.js';
import type { LoginProtection } from './login-protection.js';
import type { ConnectionData } from './connections.js';
import { ServiceError } from './errors.js';
import { originFields, type NewLogEvent, type RequestOrigin } from './events/event.js';
import { mergeMetadata, type Metadata } from './metadata.js';
import { checkPassword, EMAIL_SHAPE, passwordRulesOf, type RuleReport } from './password-policy.js';
import { usersService, type UserView } from './users.js';
import type { UserLifecycleActions } from './actions/user-lifecycle-actions.js';

/** The profile fields a public signup may set, besides e-mail, password and user name. */
export const SIGNUP_PROFILE_FIELDS = ['given_name', 'family_name', 'name', 'nickname', 'picture'] as const;

export interface SignupInput {
  clientId: string;
  connection: string;
  email: string;
  password: string;
  username?: string | undefined;
  profile: Partial<Record<(typeof SIGNUP_PROFILE_FIELDS)[number], string>>;
  userMetadata?: Metadata | undefined;
}

export type SignupFailure =
  | { kind: 'unknown_client' }
  | { kind: 'unknown_connection' }
  | { kind: 'signup_disabled' }
  | { kind: 'invalid_signup'; description: string }
  | { kind: 'weak_password'; rules: RuleReport[]; policy: string }
  | { kind: 'common_password' }
  | { kind: 'password_leaked' }
  | { kind: 'too_many_signups' }
  | { kind: 'personal_password' }
  | { kind: 'user_exists' }
  | { kind: 'username_exists' }
  /** A pre-user-registration Action denied the signup (or failed): `userMessage` is for the user, `reason` for the log. */
  | { kind: 'extensibility_error'; reason: string; userMessage: string | undefined; details: Record<string, unknown> };

export type SignupResult = { ok: true; user: UserView } | { ok: false; failure: SignupFailure };

/**
 * The tenant log's event of a signup: `ss` with the new user, `limit_mu` when the address is throttled, `fs` with
 * the reason otherwise (never the password).
 */
export function signupEvent(result: SignupResult, input: { clientId: string; connection: string; email: string; origin: RequestOrigin }): NewLogEvent {
  const base = { client_id: input.clientId, connection: input.connection, user_name: input.email.trim().toLowerCase(), ...originFields(input.origin) };
  if (result.ok) return { ...base, type: 'ss', user_id: result.user.user_id };
  const { failure } = result;
  const description = failure.kind === 'invalid_signup' ? failure.description : failure.kind === 'extensibility_error' ? failure.reason : failure.kind;
  const actions = failure.kind === 'extensibility_error' ? failure.details : {};
  return { ...base, type: failure.kind === 'too_many_signups' ? 'limit_mu' : 'fs', description, details: { error: failure.kind, ...actions } };
}

export type ConnectionLookup = { ok: true; connection: ConnectionData; client: CachedClient } | { ok: false; failure: { kind: 'unknown_client' } | { kind: 'unknown_connection' } };

export interface DatabaseSignupDeps {
  storage: Storage;
  config: OAuthConfig;
  tenantId: string;
  breached: BreachedPasswords;
  attackProtection: AttackProtectionSettings;
  protection: LoginProtection;
  now: () => Date;
  /** The tenant's pre- and post-user-registration Actions. */
  lifecycle: UserLifecycleActions;
}

/** User names as the platform allows them on database connections. */
const USERNAME_SHAPE = /^[A-Za-z0-9_.+@-]{1,128}$/;

/**
 * Public signup to a database connection (`POST /dbconnections/signup`) and the lookups the other
 * `/dbconnections` calls share: the application must exist and the connection be a database connection
 * enabled for it. Every check runs before the user is written, so a refused signup leaves nothing behind.
 */
export function databaseSignup(deps: DatabaseSignupDeps) {
  const users = usersService({ storage: deps.storage, tenantId: deps.tenantId, now: deps.now });

  async function connectionFor(clientId: string, name: string): Promise<ConnectionLookup> {
    const client = await deps.config.client(clientId);
    if (!client) return { ok: false, failure: { kind: 'unknown_client' } };
    const connection = (await deps.config.databaseConnections()).find((candidate) => candidate.name === name);
    if (!connection || !connection.enabled_clients.includes(clientId)) return { ok: false, failure: { kind: 'unknown_connection' } };
    return { ok: true, connection, client };
  }

  return {
    connectionFor,

    async signup(input: SignupInput & { ip: string; origin?: RequestOrigin }): Promise<SignupResult> {
      const fail = (failure: SignupFailure): SignupResult => ({ ok: false, failure });
      const found = await connectionFor(input.clientId, input.connection);
      if (!found.ok) return fail(found.failure);
      const { connection } = found;
      if (connection.options.disable_signup === true) return fail({ kind: 'signup_disabled' });
      const email = input.email.trim().toLowerCase();
      if (!EMAIL_SHAPE.test(email)) return fail({ kind: 'invalid_signup', description: 'The e-mail address is not valid.' });
      const requiresUsername = connection.options.requires_username === true;
      const username = input.username?.trim();
      if (requiresUsername && !username) return fail({ kind: 'invalid_signup', description: 'Missing username: this connection requires one.' });
      if (requiresUsername && username && !USERNAME_SHAPE.test(username)) {
        return fail({ kind: 'invalid_signup', description: 'The username may hold 1 to 128 letters, digits and _ . + @ - only.' });
      }
      const verdict = checkPassword(input.password, passwordRulesOf(connection.options), { email, username, ...input.profile });
      if (!verdict.ok) {
        if (verdict.failure === 'strength') return fail({ kind: 'weak_password', rules: verdict.rules, policy: verdict.policy });
        return fail({ kind: verdict.failure === 'dictionary' ? 'common_password' : 'personal_password' });
      }
      const detection = await deps.attackProtection.get('breached-password-detection');
      if (detection.enabled && detection.shields.includes('block') && (await deps.breached.isBreached(input.password))) return fail({ kind: 'password_leaked' });
      if (!(await deps.protection.signupAllowed(input.ip))) return fail({ kind: 'too_many_signups' });
      if (requiresUsername && username && (await deps.storage.users.findOne(deps.tenantId, { connection: connection.name, username }))) {
        return fail({ kind: 'username_exists' });
      }
      // Last of the checks: an action that denies, or sets metadata, sees a signup that would otherwise succeed.
      const context = { connection, client: found.client, origin: input.origin };
      const registering = { email, ...(requiresUsername && username ? { username } : {}), ...input.profile, user_metadata: input.userMetadata ?? {} };
      const actions = await deps.lifecycle.preUserRegistration(registering, context);
      if (!actions.ok) return fail({ kind: 'extensibility_error', reason: actions.reason, userMessage: actions.userMessage, details: actions.details });
      const userMetadata = actions.userMetadata ? mergeMetadata(input.userMetadata ?? {}, actions.userMetadata as Metadata) : input.userMetadata;
      try {
        const user = await users.create({
          connection: connection.name,
          email,
          password: input.password,
          ...(requiresUsername && username ? { username } : {}),
          ...input.profile,
          ...(userMetadata ? { user_metadata: userMetadata } : {}),
          ...(actions.appMetadata ? { app_metadata: mergeMetadata({}, actions.appMetadata as Metadata) } : {}),
        });
        deps.lifecycle.postUserRegistration(user, context);
        return { ok: true, user };
      } catch (error) {
        if (error instanceof ServiceError && error.kind === 'conflict') return fail({ kind: 'user_exists' });
        throw error;
      }
    },
  };
}

export type DatabaseSignup = ReturnType<typeof databaseSignup>;
