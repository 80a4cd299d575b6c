import { CURRENT_USER_SCOPES } from '../services/management-scopes.js';
import type { ResourceServerData } from '../services/resource-servers.js';

/** The OpenID Connect scopes Latchkey understands; other scopes are an API's. */
export const OIDC_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'offline_access']);

/** The distinct scopes of a space-separated list, in order. */
export function splitScope(scope: string | undefined): string[] {
  const scopes: string[] = [];
  if (!scope) return scopes;
  // A loop over a handful of words: a Set and a spread per call showed up in the refresh path's profile (bench/).
  for (const word of scope.split(' ')) if (word !== '' && !scopes.includes(word)) scopes.push(word);
  return scopes;
}

/**
 * What a user's token grants: the OIDC scopes requested, plus the requested scopes the API defines. Unknown
 * scopes are dropped rather than refused, as the platform does.
 */
export function grantedUserScopes(requested: readonly string[], api: ResourceServerData | undefined): string[] {
  const defined = new Set(api?.scopes.map((scope) => scope.value) ?? []);
  return requested.filter((scope) => OIDC_SCOPES.has(scope) || defined.has(scope));
}

/**
 * A user's token for the Management API acts for that user alone: of its scopes only the `current_user` ones,
 * and only those a client grant gives the application (no grant: none). An administrator scope such as
 * `read:users` is never issued to a user, whatever the API defines.
 */
export function grantedCurrentUserScopes(requested: readonly string[], clientGrantScopes: readonly string[] | undefined): string[] {
  const allowed = new Set((clientGrantScopes ?? []).filter((scope) => CURRENT_USER_SCOPES.includes(scope)));
  return requested.filter((scope) => OIDC_SCOPES.has(scope) || allowed.has(scope));
}

/**
 * An API that enforces RBAC policies (`enforce_policies`): of the API's scopes a user's token keeps those the user
 * holds as permissions (directly or through roles); the OIDC scopes stay.
 */
export function withinPermissions(scopes: readonly string[], held: ReadonlySet<string>): string[] {
  return scopes.filter((scope) => OIDC_SCOPES.has(scope) || held.has(scope));
}
