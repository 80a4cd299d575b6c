/**
 * The stored shapes: what the repositories keep in each document, with the platform's field names. They live at
 * the bottom floor so that storage is typed without importing the services that write these records; the
 * services re-export them for their callers.
 */

/** Free-form metadata (users' user_metadata/app_metadata, clients' client_metadata). */
export type Metadata = Record<string, unknown>;

/** Profile fields stored in the user's document (the password hash and lookup keys live in columns). */
export interface UserData {
  email?: string;
  email_verified: boolean;
  username?: string;
  phone_number?: string;
  phone_verified?: boolean;
  name?: string;
  nickname?: string;
  picture?: string;
  given_name?: string;
  family_name?: string;
  blocked: boolean;
  user_metadata: Metadata;
  app_metadata: Metadata;
  logins_count: number;
  last_login?: string;
  /** The address of the last successful login. */
  last_ip?: string;
  /**
   * Written by builds before migration 0003, which copied it into the `linked_to` column: that column is the one
   * record of a link now. Kept in the type so such documents are read (and cleaned on unlink) knowingly.
   */
  linked_to?: string;
  /** The secondary accounts linked into this (primary) user. */
  linked_identities?: LinkedIdentity[];
}

export interface UserIdentity {
  connection: string;
  provider: string;
  user_id: string;
  isSocial: boolean;
}

/** A secondary account's identity as the primary user lists it (with the profile it had when linked). */
export interface LinkedIdentity extends UserIdentity {
  profileData?: Record<string, unknown>;
}

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
  /** The application's cross-origin verification page, used when the browser blocks third-party cookies. */
  cross_origin_loc?: string;
  is_first_party: boolean;
  oidc_conformant: boolean;
  sso_disabled: boolean;
  client_metadata: Record<string, string>;
  addons?: { samlp?: SamlAddon };
  /** Key- or certificate-based methods; when any is configured, the client authenticates only by those. */
  client_authentication_methods?: ClientAuthenticationMethods | null;
  /** Registered keys and certificates (managed under /clients/{id}/credentials, never shown in the client). */
  credentials?: ClientCredential[];
  /** Whether `/authorize` takes `organization` (absent: `deny`), and what happens without one when it is required. */
  organization_usage?: 'deny' | 'allow' | 'require';
  organization_require_behavior?: 'no_prompt' | 'pre_login_prompt' | 'post_login_prompt';
  /** Where a login starts from the outside (an organization invitation's link goes there). */
  initiate_login_uri?: string;
  /** How its refresh tokens rotate and expire (absent: Latchkey's default, services/refresh-token-settings.ts). */
  refresh_token?: RefreshTokenSettings;
}

/** A client's refresh-token policy, with the platform's names; the chains issued under it keep it (oauth/refresh-tokens.ts). */
export interface RefreshTokenSettings {
  rotation_type: 'rotating' | 'non-rotating';
  expiration_type: 'expiring' | 'non-expiring';
  /** Seconds during which the token just rotated away may still be exchanged without counting as reuse. */
  leeway: number;
  /** Absolute lifetime of a chain, in seconds from its first token. */
  token_lifetime: number;
  infinite_token_lifetime: boolean;
  /** Inactivity lifetime: a chain unused for this long dies. */
  idle_token_lifetime: number;
  infinite_idle_token_lifetime: boolean;
}

/** The SAML2 Web App add-on: Latchkey as this application's SAML identity provider (the platform's names). */
export interface SamlAddon {
  audience?: string;
  recipient?: string;
  destination?: string;
  callback?: string;
  mappings?: Record<string, string>;
  nameIdentifierFormat?: string;
  nameIdentifierProbes?: string[];
  lifetimeInSeconds?: number;
  signResponse?: boolean;
  logout?: { callback?: string; slo_enabled?: boolean };
  /** The service provider's certificate (PEM or base64 DER): when set, its LogoutRequests must be signed by it. */
  signingCert?: string;
}

export type CredentialType = 'public_key' | 'x509_cert' | 'cert_subject_dn';
export type CredentialAlg = 'RS256' | 'RS384' | 'PS256';

/**
 * A key or certificate a client registered to authenticate with. Only public material is kept: a public key or
 * certificate (PEM) for `private_key_jwt`, a certificate's SHA-256 thumbprint for self-signed mTLS, a subject DN
 * for CA-signed mTLS.
 */
export interface ClientCredential {
  id: string;
  name: string;
  credential_type: CredentialType;
  kid?: string;
  alg?: CredentialAlg;
  pem?: string;
  subject_dn?: string;
  /** base64url SHA-256 of the certificate's DER: the value access tokens bound to it carry as `cnf.x5t#S256`. */
  thumbprint_sha256?: string;
  created_at: string;
  updated_at: string;
  expires_at?: string;
}

/** The key- and certificate-based client authentication methods (services/client-credentials.ts maps each to its credential type). */
export type CredentialMethod = 'private_key_jwt' | 'tls_client_auth' | 'self_signed_tls_client_auth';
export type ClientAuthenticationMethods = Partial<Record<CredentialMethod, { credentials: { id: string }[] }>>;

// The one value here: the connection strategies, whose list the type is read from.
export const STRATEGIES = ['auth0', 'email', 'sms', 'samlp', 'oidc', 'oauth2'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface ConnectionData {
  name: string;
  strategy: Strategy;
  display_name?: string;
  enabled_clients: string[];
  options: Record<string, unknown>;
  is_domain_connection: boolean;
  show_as_button: boolean;
  realms: string[];
  metadata: Record<string, string>;
  /** At rest only (services/connection-secrets.ts): credentials for an upstream provider, sealed. */
  sealed_options?: Record<string, string>;
}

export interface ResourceServerScope {
  value: string;
  description?: string;
}

export interface ResourceServerData {
  name: string;
  identifier: string;
  scopes: ResourceServerScope[];
  token_lifetime: number;
  signing_alg: 'RS256';
  allow_offline_access: boolean;
  skip_consent_for_verifiable_first_party_clients: boolean;
  /** RBAC: a user's token carries only the requested scopes the user holds as permissions (absent: false). */
  enforce_policies?: boolean;
  /** The access token's profile (absent: `access_token`); `_authz` ones also carry `permissions` under RBAC. */
  token_dialect?: TokenDialect;
}

export const TOKEN_DIALECTS = ['access_token', 'access_token_authz', 'rfc9068_profile', 'rfc9068_profile_authz'] as const;
export type TokenDialect = (typeof TOKEN_DIALECTS)[number];

/** A client's permission to obtain tokens for an API, with the scopes it may receive. */
export interface ClientGrantData {
  client_id: string;
  audience: string;
  scope: string[];
}
