/** The Management API's shapes of the APIs area (resource servers, client grants) and of connections, as the console reads them. */
export interface Permission {
  value: string;
  description?: string;
}

export type TokenDialect = 'access_token' | 'access_token_authz' | 'rfc9068_profile' | 'rfc9068_profile_authz';

export interface ResourceServer {
  id: string;
  name: string;
  identifier: string;
  scopes: Permission[];
  signing_alg: string;
  token_lifetime: number;
  allow_offline_access: boolean;
  skip_consent_for_verifiable_first_party_clients: boolean;
  enforce_policies: boolean;
  token_dialect: TokenDialect;
  is_system: boolean;
}

export interface ClientGrant {
  id: string;
  client_id: string;
  audience: string;
  scope: string[];
}

export interface Connection {
  id: string;
  name: string;
  strategy: string;
  display_name?: string;
  enabled_clients: string[];
}

export const TOKEN_DIALECTS: { value: TokenDialect; label: string; hint: string }[] = [
  { value: 'access_token', label: 'Access token', hint: 'The granted permissions in the scope claim only.' },
  { value: 'access_token_authz', label: 'Access token with permissions', hint: 'Also a permissions claim listing what the user holds (with RBAC on).' },
  { value: 'rfc9068_profile', label: 'RFC 9068 profile', hint: 'The JWT profile for access tokens (typ at+jwt, a client_id claim).' },
  { value: 'rfc9068_profile_authz', label: 'RFC 9068 profile with permissions', hint: 'The RFC 9068 profile plus the permissions claim (with RBAC on).' },
];

/** The signing algorithms an API may choose here: RS256 only, verified with the tenant's published keys. */
export const SIGNING_ALGORITHMS = [{ value: 'RS256', label: 'RS256 (RSA signature with SHA-256, verified with the published keys)' }];
