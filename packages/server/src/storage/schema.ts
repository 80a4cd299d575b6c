import type { Generated } from 'kysely';

/**
 * Table shapes. Every row carries `tenant_id`. Resource fields that are never queried live in a JSON text
 * column (`data`), so both dialects store them the same way and a new field needs no migration.
 * Timestamps are ISO 8601 strings in both dialects.
 */
export interface TenantsTable {
  id: string;
  settings: string;
  created_at: string;
}

export type SigningKeyStatus = 'next' | 'current' | 'previous' | 'revoked';

export interface SigningKeysTable {
  tenant_id: string;
  kid: string;
  status: SigningKeyStatus;
  public_jwk: string;
  /** PKCS#8 PEM sealed with the deployment secret (see crypto/secret-box). */
  private_key_sealed: string;
  created_at: string;
  current_since: string | null;
  current_until: string | null;
  revoked_at: string | null;
}

export interface ClientsTable {
  tenant_id: string;
  client_id: string;
  /** Keyed SHA-256 of the secret (crypto/client-secret); null for public clients. */
  secret_hash: string | null;
  data: string;
  created_at: string;
}

export interface ResourceServersTable {
  tenant_id: string;
  id: string;
  identifier: string;
  is_system: number;
  data: string;
  created_at: string;
}

export interface ClientGrantsTable {
  tenant_id: string;
  id: string;
  client_id: string;
  audience: string;
  data: string;
  created_at: string;
}

export interface ConnectionsTable {
  tenant_id: string;
  id: string;
  name: string;
  strategy: string;
  data: string;
  created_at: string;
}

export interface UsersTable {
  tenant_id: string;
  user_id: string;
  connection: string;
  /** Lower-cased; unique per connection. */
  email: string | null;
  username: string | null;
  password_hash: string | null;
  data: string;
  created_at: string;
  updated_at: string;
  /** A linked secondary account: the primary user it belongs to (0003-user-links); null for users. */
  linked_to: string | null;
}

export interface RenderingConfigsTable {
  /** Creation order: the first write of a prompt/screen pair. */
  seq: Generated<number>;
  tenant_id: string;
  prompt: string;
  screen: string;
  data: string;
}

/** Custom texts of one prompt in one language (0005-prompt-custom-texts): `data` maps screen -> key -> text. */
export interface PromptCustomTextsTable {
  tenant_id: string;
  prompt: string;
  language: string;
  data: string;
}

export interface ArtifactsTable {
  tenant_id: string;
  kind: string;
  /** Hash of the artifact's secret handle (or its public id where it has no secret). */
  id: string;
  family: string | null;
  subject: string | null;
  data: string;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

/** The tenant log (0006-log-events): the searched fields as columns, the whole event as JSON in `data`. */
export interface LogEventsTable {
  tenant_id: string;
  /** Fixed-width decimal text: text order is insertion order (repositories/log-events.ts). */
  log_id: string;
  date: string;
  type: string;
  user_id: string | null;
  client_id: string | null;
  connection: string | null;
  ip: string | null;
  data: string;
  expires_at: string;
}

/** The last log_id number given out per tenant; its row lock orders concurrent inserts of events. */
export interface LogEventCountersTable {
  tenant_id: string;
  /** A bigint: PostgreSQL answers it as text, SQLite as a number. */
  last: number | string;
}

/** Log streams and their delivery state (0008-log-streams); the settings as JSON in `data`. */
export interface LogStreamsTable {
  tenant_id: string;
  id: string;
  data: string;
  status: string;
  status_reason: string | null;
  /** The log_id of the last event the sink acknowledged. */
  position: string | null;
  failing_since: string | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
}

/** Management API jobs (0010-jobs); parameters, summary and errors as JSON in `data`. */
export interface JobsTable {
  tenant_id: string;
  id: string;
  type: string;
  status: string;
  data: string;
  /** Input records done. */
  position: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
}

/** A job's uploaded file, in ordered chunks. */
export interface JobInputsTable {
  tenant_id: string;
  job_id: string;
  seq: number;
  content: string;
}

/** A file a job produced, in ordered chunks (each a gzip member). */
export interface JobOutputsTable {
  tenant_id: string;
  job_id: string;
  seq: number;
  content: Uint8Array;
}

/** SQLite only (0013-user-metadata-values): each scalar metadata value of a user, kept by triggers, for search. */
export interface UserMetadataValuesTable {
  tenant_id: string;
  user_id: string;
  field: string;
  key: string;
  value: string | number | null;
}

/** Roles and permissions (0014-roles). */
export interface RolesTable {
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  created_at: string;
}

export interface RolePermissionsTable {
  tenant_id: string;
  role_id: string;
  resource_server_identifier: string;
  permission_name: string;
  created_at: string;
}

export interface UserRolesTable {
  tenant_id: string;
  user_id: string;
  role_id: string;
  created_at: string;
}

export interface UserPermissionsTable {
  tenant_id: string;
  user_id: string;
  resource_server_identifier: string;
  permission_name: string;
  created_at: string;
}

/** Consent given by users to applications, per API (0015-user-grants); `scope` is a JSON array of scope names. */
export interface UserGrantsTable {
  tenant_id: string;
  id: string;
  user_id: string;
  client_id: string;
  audience: string;
  scope: string;
  created_at: string;
  updated_at: string;
}

/** Organizations and what belongs to them (0016-organizations); `branding`, `metadata` and `data` are JSON. */
export interface OrganizationsTable {
  tenant_id: string;
  id: string;
  name: string;
  display_name: string | null;
  branding: string | null;
  metadata: string | null;
  created_at: string;
}

export interface OrganizationMembersTable {
  tenant_id: string;
  organization_id: string;
  user_id: string;
  created_at: string;
}

export interface OrganizationMemberRolesTable {
  tenant_id: string;
  organization_id: string;
  user_id: string;
  role_id: string;
  created_at: string;
}

export interface OrganizationConnectionsTable {
  tenant_id: string;
  organization_id: string;
  connection_id: string;
  assign_membership_on_login: number;
  show_as_button: number;
  is_signup_enabled: number;
  created_at: string;
}

export interface OrganizationInvitationsTable {
  tenant_id: string;
  id: string;
  organization_id: string;
  ticket_hash: string;
  data: string;
  created_at: string;
  expires_at: string;
}

/** Actions (0017-actions): drafts, immutable versions, what each trigger runs, and executions. */
export interface ActionsTable {
  tenant_id: string;
  id: string;
  name: string;
  trigger_id: string;
  deployed_version_id: string | null;
  data: string;
  bundled_code: string | null;
  created_at: string;
  updated_at: string;
}

export interface ActionVersionsTable {
  tenant_id: string;
  id: string;
  action_id: string;
  number: number;
  data: string;
  bundled_code: string;
  created_at: string;
  updated_at: string;
}

export interface ActionBindingsTable {
  tenant_id: string;
  trigger_id: string;
  position: number;
  id: string;
  action_id: string;
  display_name: string;
  created_at: string;
  updated_at: string;
}

export interface ActionExecutionsTable {
  tenant_id: string;
  id: string;
  trigger_id: string;
  status: string;
  results: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

/** A user's multi-factor authenticators (0018-authenticators); `data` is JSON (fields of later factor types). */
export interface AuthenticatorsTable {
  tenant_id: string;
  id: string;
  user_id: string;
  type: string;
  status: string;
  name: string | null;
  phone_number: string | null;
  email: string | null;
  secret_sealed: string | null;
  code_hash: string | null;
  /** bigint: PostgreSQL answers it as a string, SQLite as a number (the repository converts). */
  last_step: number | string | null;
  data: string;
  created_at: string;
  enrolled_at: string | null;
  last_auth_at: string | null;
  /** A WebAuthn credential's id, base64url (0019-webauthn-credentials); unique per tenant. */
  credential_id: string | null;
  /** A WebAuthn credential's signature counter; bigint as `last_step`. */
  sign_count: number | string | null;
}

export interface MfaRememberRevocationsTable {
  tenant_id: string;
  user_id: string;
  revoked_at: string;
}

export interface Database {
  tenants: TenantsTable;
  signing_keys: SigningKeysTable;
  clients: ClientsTable;
  resource_servers: ResourceServersTable;
  client_grants: ClientGrantsTable;
  connections: ConnectionsTable;
  users: UsersTable;
  rendering_configs: RenderingConfigsTable;
  prompt_custom_texts: PromptCustomTextsTable;
  artifacts: ArtifactsTable;
  log_events: LogEventsTable;
  log_event_counters: LogEventCountersTable;
  log_streams: LogStreamsTable;
  jobs: JobsTable;
  job_inputs: JobInputsTable;
  job_outputs: JobOutputsTable;
  user_metadata_values: UserMetadataValuesTable;
  roles: RolesTable;
  role_permissions: RolePermissionsTable;
  user_roles: UserRolesTable;
  user_permissions: UserPermissionsTable;
  user_grants: UserGrantsTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_member_roles: OrganizationMemberRolesTable;
  organization_connections: OrganizationConnectionsTable;
  organization_invitations: OrganizationInvitationsTable;
  actions: ActionsTable;
  action_versions: ActionVersionsTable;
  action_bindings: ActionBindingsTable;
  action_executions: ActionExecutionsTable;
  authenticators: AuthenticatorsTable;
  mfa_remember_revocations: MfaRememberRevocationsTable;
}
