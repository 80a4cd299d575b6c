/**
 * What post-login Actions change in the tokens of a sign-in: custom claims and scopes. A browser sign-in keeps them
 * with its authorization code (authorize/issue.ts) until the code is exchanged; the token endpoint's sign-ins apply
 * them at once; a refresh runs the actions again, so a refresh token keeps none.
 */
export interface TokenChanges {
  idToken?: Record<string, unknown>;
  accessToken?: Record<string, unknown>;
  addScopes?: string[];
  removeScopes?: string[];
}

/**
 * Claims an action may not set, as the platform lists them (its "restricted claims"): a collision does not fail the
 * login, the claim is left out of the token. The standard claims of the token itself (iss, sub, aud, …) are among
 * them.
 */
export const RESTRICTED_CLAIMS: ReadonlySet<string> = new Set([
  'acr', 'act', 'active', 'amr', 'at_hash', 'ath', 'attest', 'aud', 'auth_time', 'authorization_details', 'azp', 'c_hash',
  'client_id', 'cnf', 'cty', 'dest', 'entitlements', 'events', 'exp', 'groups', 'gty', 'htm', 'htu', 'iat', 'internalService',
  'iss', 'jcard', 'jku', 'jti', 'jwe', 'jwk', 'kid', 'may_act', 'mky', 'nbf', 'nonce', 'object_id', 'org_id', 'org_name', 'orig',
  'origid', 'permissions', 'roles', 'rph', 's_hash', 'sid', 'sip_callid', 'sip_cseq_num', 'sip_date', 'sip_from_tag',
  'sip_via_branch', 'sub', 'sub_jwk', 'toe', 'txn', 'typ', 'uuid', 'vot', 'vtm', 'x5t#S256', 'scope',
]);

/** The platform's bound on all custom claims of a token together (100 KB of JSON). */
export const MAX_CUSTOM_CLAIMS_BYTES = 100 * 1024;

/** Adds `claims` to `target` without touching a restricted or already present (standard) claim. */
export function addCustomClaims(target: Record<string, unknown>, claims: Record<string, unknown> | undefined): void {
  if (!claims) return;
  for (const [name, value] of Object.entries(claims)) {
    if (RESTRICTED_CLAIMS.has(name) || Object.hasOwn(target, name)) continue;
    target[name] = value;
  }
}

/** The scopes granted after an action's `addScope` / `removeScope` calls, in order, without duplicates. */
export function changedScopes(scopes: readonly string[], changes: TokenChanges | undefined): string[] {
  if (!changes || (!changes.addScopes?.length && !changes.removeScopes?.length)) return [...scopes];
  const removed = new Set(changes.removeScopes ?? []);
  const result = scopes.filter((scope) => !removed.has(scope));
  for (const scope of changes.addScopes ?? []) if (!result.includes(scope)) result.push(scope);
  return result;
}
