import { randomId } from '../crypto/random.js';

export type AppType = 'spa' | 'native' | 'regular_web' | 'non_interactive';
export type TokenEndpointAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A client as stored (everything but its id and secret hash), with the platform's field names. */
export interface ClientData {
  name: string;
  description?: string;
  logo_uri?: string;
  app_type: AppType;
  callbacks: string[];
  allowed_logout_urls: string[];
  web_origins: string[];
  allowed_origins: string[];
  grant_types: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  jwt_configuration: { alg: 'RS256' | 'HS256'; lifetime_in_seconds: number };
  cross_origin_authentication: boolean;
  is_first_party: boolean;
  oidc_conformant: boolean;
  sso_disabled: boolean;
  client_metadata: Record<string, string>;
  [extra: string]: unknown;
}

export const PUBLIC_APP_TYPES: ReadonlySet<AppType> = new Set(['spa', 'native']);

export function defaultGrantTypes(appType: AppType): string[] {
  switch (appType) {
    case 'non_interactive':
      return ['client_credentials'];
    case 'spa':
    case 'native':
      return ['implicit', 'authorization_code', 'refresh_token'];
    case 'regular_web':
      return ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'];
  }
}

/** Fills the platform's defaults for fields a create request left out. */
export function newClientData(input: Partial<ClientData> & { name: string }): ClientData {
  const appType = input.app_type ?? 'regular_web';
  return {
    ...input,
    name: input.name,
    app_type: appType,
    callbacks: input.callbacks ?? [],
    allowed_logout_urls: input.allowed_logout_urls ?? [],
    web_origins: input.web_origins ?? [],
    allowed_origins: input.allowed_origins ?? [],
    grant_types: input.grant_types ?? defaultGrantTypes(appType),
    token_endpoint_auth_method: input.token_endpoint_auth_method ?? (PUBLIC_APP_TYPES.has(appType) ? 'none' : 'client_secret_post'),
    jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 36000, ...(input.jwt_configuration ?? {}) },
    cross_origin_authentication: input.cross_origin_authentication ?? false,
    is_first_party: input.is_first_party ?? true,
    oidc_conformant: input.oidc_conformant ?? true,
    sso_disabled: input.sso_disabled ?? false,
    client_metadata: input.client_metadata ?? {},
  };
}

export function newClientId(): string {
  return randomId(32);
}

export function isConfidential(data: Pick<ClientData, 'token_endpoint_auth_method'>): boolean {
  return data.token_endpoint_auth_method !== 'none';
}
