import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedClient } from '../client-auth.js';
import type { OAuthConfig } from '../config-cache.js';
import type { TokenIssuer } from '../tokens.js';

/** What a grant sees: its declared parameters (others are dropped), the authenticated client, and services. */
export interface GrantContext {
  params: Readonly<Record<string, string | undefined>>;
  client: AuthenticatedClient;
  tenantId: string;
  storage: Storage;
  /** Cached clients, APIs and client grants. */
  config: OAuthConfig;
  tokens: TokenIssuer;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  id_token?: string;
  refresh_token?: string;
}

export interface Grant {
  readonly grantType: string;
  /** Request parameters the grant reads, besides `grant_type` and client authentication. */
  readonly parameters: readonly string[];
  handle(context: GrantContext): Promise<TokenResponse>;
}
