/** The Management API's shapes, as far as the console reads them. */
export type AppType = 'spa' | 'regular_web' | 'native' | 'non_interactive';

export interface Client {
  client_id: string;
  name: string;
  app_type?: AppType;
  client_secret?: string;
  callbacks?: string[];
  web_origins?: string[];
  allowed_logout_urls?: string[];
  grant_types?: string[];
  token_endpoint_auth_method?: string;
  jwt_configuration?: { alg?: string; lifetime_in_seconds?: number };
  refresh_token?: RefreshTokenSettings;
  organization_usage?: 'deny' | 'allow' | 'require';
  organization_require_behavior?: 'no_prompt' | 'pre_login_prompt' | 'post_login_prompt';
  addons?: { samlp?: Record<string, unknown> };
}

export interface RefreshTokenSettings {
  rotation_type: 'rotating' | 'non-rotating';
  expiration_type: 'expiring' | 'non-expiring';
  leeway: number;
  token_lifetime: number;
  infinite_token_lifetime: boolean;
  idle_token_lifetime: number;
  infinite_idle_token_lifetime: boolean;
}

export interface User {
  user_id: string;
  email?: string;
  name?: string;
  nickname?: string;
  picture?: string;
  blocked?: boolean;
  email_verified?: boolean;
  last_login?: string;
  logins_count?: number;
  created_at?: string;
  identities?: { connection: string; provider: string; user_id: string }[];
  user_metadata?: Record<string, unknown>;
  app_metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** One page of a list with `include_totals=true`. */
export type ListPage<Key extends string, T> = { start: number; limit: number; total: number } & Record<Key, T[]>;

export const APP_TYPES: { value: AppType; label: string; hint: string }[] = [
  { value: 'spa', label: 'Single-page application', hint: 'JavaScript in the browser (React, Vue, plain pages): authorization code with PKCE, no secret.' },
  { value: 'regular_web', label: 'Regular web application', hint: 'A server renders the pages and keeps a client secret (Express, Rails, ASP.NET).' },
  { value: 'native', label: 'Native application', hint: 'Mobile or desktop apps: authorization code with PKCE through the system browser.' },
  { value: 'non_interactive', label: 'Machine to machine', hint: 'A service calling an API with its own credentials (client credentials grant).' },
];

export const GRANT_TYPES: { value: string; label: string }[] = [
  { value: 'authorization_code', label: 'Authorization code' },
  { value: 'implicit', label: 'Implicit' },
  { value: 'refresh_token', label: 'Refresh token' },
  { value: 'client_credentials', label: 'Client credentials' },
  { value: 'password', label: 'Password' },
  { value: 'http://auth0.com/oauth/grant-type/password-realm', label: 'Password realm' },
  { value: 'http://auth0.com/oauth/grant-type/passwordless/otp', label: 'Passwordless one-time code' },
  { value: 'http://auth0.com/oauth/grant-type/mfa-otp', label: 'MFA one-time password' },
];
