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

export interface Role {
  id: string;
  name: string;
  description?: string;
}

/** A permission a role grants: one scope of one API. */
export interface Permission {
  resource_server_identifier: string;
  permission_name: string;
  resource_server_name?: string;
  description?: string;
}

export interface ResourceServer {
  id: string;
  name: string;
  identifier: string;
  scopes?: { value: string; description?: string }[];
}

/** A user as the lists of a role's users and of an organization's members give them. */
export interface Holder {
  user_id: string;
  email?: string;
  name?: string;
  roles?: { id: string; name: string }[];
}

export interface Organization {
  id: string;
  name: string;
  display_name?: string;
  branding?: { logo_url?: string; colors?: { primary: string; page_background: string } };
  metadata?: Record<string, string>;
}

export interface Invitation {
  id: string;
  inviter: { name: string };
  invitee: { email: string };
  invitation_url: string;
  client_id: string;
  connection_id?: string;
  roles: string[];
  created_at: string;
  expires_at: string;
}

export interface EnabledConnection {
  connection_id: string;
  assign_membership_on_login: boolean;
  connection: { name: string; strategy: string };
}

/** One page of a list with `include_totals=true`. */
export type ListPage<Key extends string, T> = { start: number; limit: number; total: number } & Record<Key, T[]>;

/** One page of a list paged by checkpoint (`from`/`take`): `next` while more follow. */
export type CheckpointPage<Key extends string, T> = { next?: string } & Record<Key, T[]>;

export interface UserPermission {
  permission_name: string;
  resource_server_identifier: string;
  resource_server_name: string;
  description?: string;
  sources: { source_id: string; source_name: string; source_type: 'DIRECT' | 'ROLE' }[];
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
  idle_expires_at: string | null;
  expires_at?: string;
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

/** A connection as the Management API answers it; `options` hold each strategy's own settings. */
export type Strategy = 'auth0' | 'email' | 'sms' | 'samlp' | 'oidc' | 'oauth2';

export interface Connection {
  id: string;
  name: string;
  strategy: Strategy;
  display_name?: string;
  enabled_clients: string[];
  options: Record<string, unknown>;
  show_as_button: boolean;
  is_domain_connection: boolean;
}

/** `GET /api/v2/branding` (only the fields set). */
export interface Branding {
  colors?: { primary?: string; page_background?: string };
  favicon_url?: string;
  logo_url?: string;
  font?: { url?: string };
}

/** A filter element of a rendering configuration: an entity by id, or by one metadata pair. */
export type FilterElement = { id: string } | { metadata: Record<string, string> };

export interface RenderingFilters {
  match_type?: 'includes_any' | 'excludes_any';
  clients?: FilterElement[];
  organizations?: FilterElement[];
  domains?: FilterElement[];
}

export interface HeadTag {
  tag?: string;
  attributes?: Record<string, string | number | boolean>;
  content?: string;
}

/** One screen's render settings (`/api/v2/prompts/{prompt}/screen/{screen}/rendering`). */
export interface RenderingConfig {
  prompt: string;
  screen: string;
  rendering_mode?: 'advanced' | 'standard';
  context_configuration?: string[] | null;
  default_head_tags_disabled?: boolean | null;
  use_page_template?: boolean | null;
  head_tags?: HeadTag[] | null;
  filters?: RenderingFilters | null;
}

/** `GET /api/v2/tenants/settings`, as far as the console edits it. */
export interface TenantSettings {
  friendly_name?: string;
  picture_url?: string;
  support_email?: string;
  support_url?: string;
  session_lifetime?: number;
  idle_session_lifetime?: number;
  default_audience?: string;
  default_directory?: string;
  enabled_locales?: string[];
  allowed_logout_urls?: string[];
  flags?: Record<string, boolean>;
  [field: string]: unknown;
}

/** `GET /api/v2/keys/signing`. */
export interface SigningKey {
  kid: string;
  thumbprint: string;
  current: boolean;
  next: boolean;
  previous: boolean;
  revoked: boolean;
  current_since?: string;
  current_until?: string;
  revoked_at?: string;
}
