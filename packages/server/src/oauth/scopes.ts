import type { ResourceServerData } from '../services/resource-servers.js';

/** The OpenID Connect scopes Latchkey understands; other scopes are an API's. */
export const OIDC_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'offline_access']);

export function splitScope(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(Boolean))];
}

/**
 * What a user's token grants: the OIDC scopes requested, plus the requested scopes the API defines. Unknown
 * scopes are dropped rather than refused, as the platform does.
 */
export function grantedUserScopes(requested: readonly string[], api: ResourceServerData | undefined): string[] {
  const defined = new Set(api?.scopes.map((scope) => scope.value) ?? []);
  return requested.filter((scope) => OIDC_SCOPES.has(scope) || defined.has(scope));
}
