import type { UserData } from '../services/users.js';
import { splitScope } from './scopes.js';

export interface UserinfoClaims {
  sub: string;
  nickname?: string;
  name?: string;
  picture?: string;
  given_name?: string;
  family_name?: string;
  updated_at?: string;
  email?: string;
  email_verified?: boolean;
}

/** The user-info answer: `sub` always, profile and e-mail claims as the token's scopes allow (OIDC Core 5.3). */
export function userinfoClaims(userId: string, user: UserData & { updated_at: string }, scope: string | readonly string[] | undefined): UserinfoClaims {
  const scopes = typeof scope === 'object' ? scope : splitScope(scope);
  const claims: UserinfoClaims = { sub: userId };
  if (scopes.includes('profile')) {
    for (const key of ['nickname', 'name', 'picture', 'given_name', 'family_name'] as const) {
      if (user[key] !== undefined) claims[key] = user[key];
    }
    claims.updated_at = user.updated_at;
  }
  if (scopes.includes('email') && user.email !== undefined) {
    claims.email = user.email;
    claims.email_verified = user.email_verified;
  }
  return claims;
}
