import type { DatabaseLoginResult } from '../../services/database-login.js';
import { randomId } from '../../crypto/random.js';
import { originFields } from '../../services/events/event.js';
import { AccountBlockedAttempts, MfaRequired, BlockedUser, InvalidRequest, PasswordLeaked, SuspiciousIp, UnauthorizedClient, WrongCredentials } from '../errors.js';
import { splitScope } from '../scopes.js';
import { oauthRefusal, type SignInAttempt } from '../sign-in-pipeline.js';
import type { Grant, GrantContext } from './grant.js';
import { recordedAlready } from './recorded-refusals.js';

export const PASSWORD_REALM_GRANT = 'http://auth0.com/oauth/grant-type/password-realm';

function failure(result: Exclude<DatabaseLoginResult, { ok: true }>): Error {
  switch (result.reason) {
    case 'unknown_connection':
      return new InvalidRequest('Unknown realm: no database connection of that name.');
    case 'connection_not_enabled':
      return new UnauthorizedClient('The connection is not enabled for this client.');
    // The credential check logged these refusals itself.
    case 'blocked':
      return recordedAlready(new BlockedUser());
    case 'wrong_credentials':
      return recordedAlready(new WrongCredentials());
    case 'too_many_attempts':
      return recordedAlready(new AccountBlockedAttempts());
    case 'ip_throttled':
      return recordedAlready(new SuspiciousIp());
    case 'password_leaked':
      return recordedAlready(new PasswordLeaked());
  }
}

/** Both password grants: check the client may use it, log the user in against `realm`, issue tokens. */
async function passwordLogin(grantType: typeof PASSWORD_REALM_GRANT | 'password', realm: string | undefined, { params, client, users, ip, userAgent, origin }: GrantContext) {
  if (!client.data.grant_types.includes(grantType)) throw new UnauthorizedClient(`Grant type '${grantType}' not allowed for the client.`);
  if (!params.username) throw new InvalidRequest('Missing required parameter: username');
  if (!params.password) throw new InvalidRequest('Missing required parameter: password');
  if (!realm) throw new InvalidRequest('Missing required parameter: realm');
  const result = await users.databaseLogin.login({ connection: realm, clientId: client.clientId, username: params.username, password: params.password, ip, userAgent });
  if (!result.ok) throw failure(result);
  const path = grantType === 'password' ? 'password-grant' : 'password-realm-grant';
  return freshLoginTokens({ params, client, users, origin }, { path, userId: result.userId, connection: result.connection, amr: ['pwd'], account: result.user });
}

/**
 * Tokens of a login that just happened at the token endpoint (password or one-time code): the sign-in stages,
 * then a new grant.
 */
export function freshLoginTokens(
  { params, client, users, origin }: Pick<GrantContext, 'params' | 'client' | 'users' | 'origin'>,
  signedIn: Omit<SignInAttempt, 'clientId' | 'refuse' | 'origin'>,
) {
  const attempt: SignInAttempt = {
    ...signedIn,
    clientId: client.clientId,
    origin,
    audience: params.audience,
    scope: params.scope,
    acrValues: params.acr_values,
    // A second factor is required: the sign-in waits for it under an mfa_token (the platform's `mfa_required`).
    refuse: async (refusal) => {
      if (refusal.reason !== 'mfa-required') return oauthRefusal()(refusal);
      const token = await users.mfa.tokens.issue({
        clientId: client.clientId,
        userId: signedIn.userId,
        path: signedIn.path,
        connection: signedIn.connection ?? null,
        amr: [...signedIn.amr],
        scope: params.scope ?? null,
        audience: params.audience ?? null,
        identifier: params.username ?? signedIn.userId,
      });
      users.events.record({ type: 'mfar', user_id: signedIn.userId, client_id: client.clientId, ...originFields(origin), details: { reasons: attempt.decisions?.multiFactor?.reasons ?? ['action'] } });
      // Logged as `mfar` just above, not as a failed exchange.
      return recordedAlready(new MfaRequired(token));
    },
  };
  return users.signIn.run(attempt, () => users.userTokens.tokenResponse({
    clientId: client.clientId,
    client: client.data,
    userId: signedIn.userId,
    scopes: splitScope(params.scope),
    audience: params.audience,
    authTime: Math.floor(users.now().getTime() / 1000),
    grantId: randomId(32),
    certificateThumbprint: client.certificateThumbprint,
    idTokenSecret: client.secret,
    actionChanges: attempt.decisions?.tokenChanges,
  }));
}

/** The platform's extension grant: resource-owner password against a named database connection (`realm`). */
export const passwordRealmGrant: Grant = {
  grantType: PASSWORD_REALM_GRANT,
  parameters: ['username', 'password', 'realm', 'scope', 'audience', 'acr_values'],
  events: { failed: 'fepft' },
  handle: (context) => passwordLogin(PASSWORD_REALM_GRANT, context.params.realm, context),
};

/**
 * RFC 6749 4.3. Without a realm the platform logs users in against the tenant's default directory
 * (`default_directory` in the tenant settings). When none is set, a client with exactly one enabled database
 * connection uses that one (a convenience of ours); otherwise the client must say which (password-realm grant).
 */
export const passwordGrant: Grant = {
  grantType: 'password',
  parameters: ['username', 'password', 'scope', 'audience', 'acr_values'],
  events: { failed: 'fepft' },
  async handle(context) {
    if (!context.client.data.grant_types.includes('password')) throw new UnauthorizedClient(`Grant type 'password' not allowed for the client.`);
    const defaultDirectory = (await context.config.tenantDocument())?.settings.default_directory;
    if (defaultDirectory) {
      if ((await context.users.databaseLogin.findConnection(defaultDirectory, context.client.clientId)) === 'unknown_connection') {
        throw new InvalidRequest(`The tenant's default directory '${defaultDirectory}' is not a database connection.`);
      }
      return passwordLogin('password', defaultDirectory, context);
    }
    const connections = await context.users.databaseLogin.connectionsFor(context.client.clientId);
    if (connections.length > 1) {
      throw new InvalidRequest('Several database connections are enabled for this client and no default directory is set: set default_directory in the tenant settings, or use the password-realm grant and name one.');
    }
    const only = connections[0];
    if (!only) throw new InvalidRequest('No database connection is enabled for this client and no default directory is set.');
    return passwordLogin('password', only.name, context);
  },
};
