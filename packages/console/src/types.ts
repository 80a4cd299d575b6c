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
  identities?: Identity[];
  user_metadata?: Record<string, unknown>;
  app_metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Identity {
  connection: string;
  provider: string;
  user_id: string;
  isSocial?: boolean;
  profileData?: Record<string, unknown>;
}

/** One page of a list with `include_totals=true`. */
export type ListPage<Key extends string, T> = { start: number; limit: number; total: number } & Record<Key, T[]>;

/** One page of a list paged by checkpoint (`from`/`take`): `next` while more follow. */
export type CheckpointPage<Key extends string, T> = { next?: string } & Record<Key, T[]>;

export interface Connection {
  id: string;
  name: string;
  strategy: string;
}

export interface Role {
  id: string;
  name: string;
  description?: string;
}

export interface ResourceServer {
  id: string;
  name: string;
  identifier: string;
  scopes?: { value: string; description?: string }[];
}

export interface UserPermission {
  permission_name: string;
  resource_server_identifier: string;
  resource_server_name: string;
  description?: string;
  sources: { source_id: string; source_name: string; source_type: 'DIRECT' | 'ROLE' }[];
}

export interface Organization {
  id: string;
  name: string;
  display_name?: string;
}

export interface AuthenticationMethod {
  id: string;
  type: string;
  confirmed?: boolean;
  name?: string;
  phone_number?: string;
  email?: string;
  created_at: string;
  last_auth_at?: string;
}

export interface LoginSession {
  id: string;
  created_at: string;
  authenticated_at: string;
  idle_expires_at: string;
  expires_at: string;
  last_interacted_at: string;
  device: { initial_ip?: string; initial_user_agent?: string };
  clients: { client_id: string }[];
  authentication: { methods: { name: string }[] };
}

export interface RefreshToken {
  id: string;
  created_at: string;
  idle_expires_at: string;
  client_id: string;
  session_id: string | null;
  resource_servers: { audience: string; scopes: string }[];
  last_exchanged_at?: string;
}

export interface LogEvent {
  log_id: string;
  date: string;
  type: string;
  description?: string;
  client_name?: string;
  client_id?: string;
  ip?: string;
}

export interface Job {
  id: string;
  type: 'users_import' | 'users_export' | 'verification_email';
  status: string;
  created_at: string;
  connection?: string;
  format?: 'json' | 'csv';
  summary?: { inserted: number; updated: number; failed: number; total: number };
  location?: string;
}

/** A record a users import refused, with why. */
export interface JobError {
  user: unknown;
  errors: { code: string; message: string; path: string }[];
}

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
