/**
 * The Management API's scope catalogue (`<action>:<resource>`). The bootstrap registers all of them on the
 * Management API resource server and grants them to the admin application.
 */
const RESOURCE_ACTIONS: Record<string, readonly string[]> = {
  clients: ['read', 'create', 'update', 'delete'],
  client_keys: ['read', 'update'],
  client_credentials: ['read', 'create', 'delete'],
  client_grants: ['read', 'create', 'update', 'delete'],
  resource_servers: ['read', 'create', 'update', 'delete'],
  connections: ['read', 'create', 'update', 'delete'],
  users: ['read', 'create', 'update', 'delete'],
  users_app_metadata: ['read', 'create', 'update', 'delete'],
  // Users' login sessions (`/api/v2/sessions`, `/api/v2/users/{id}/sessions`) and refresh tokens.
  sessions: ['read', 'delete'],
  refresh_tokens: ['read', 'delete'],
  tenant_settings: ['read', 'update'],
  prompts: ['read', 'update'],
  branding: ['read', 'create', 'update', 'delete'],
  signing_keys: ['read', 'create', 'update'],
  user_tickets: ['create'],
  attack_protection: ['read', 'update'],
  log_streams: ['read', 'create', 'update', 'delete'],
  roles: ['read', 'create', 'update', 'delete'],
  role_members: ['read', 'create', 'delete'],
  // Users' consent to applications (`/api/v2/grants`).
  grants: ['read', 'delete'],
  organizations: ['read', 'create', 'update', 'delete'],
  organization_members: ['read', 'create', 'delete'],
  organization_member_roles: ['read', 'create', 'delete'],
  organization_connections: ['read', 'create', 'update', 'delete'],
  organization_invitations: ['read', 'create', 'delete'],
  // Actions, their versions, the triggers' bindings, tests and executions (`/api/v2/actions`).
  actions: ['read', 'create', 'update', 'delete'],
  // The tenant log (`/api/v2/logs`), a user's part of it (`/api/v2/users/{id}/logs`), and the statistics drawn from it.
  // Multi-factor authentication: the factors, the policy, users' enrollments and authentication methods.
  guardian_factors: ['read', 'update'],
  guardian_enrollments: ['read', 'delete'],
  guardian_enrollment_tickets: ['create'],
  mfa_policies: ['read', 'update'],
  authentication_methods: ['read', 'create', 'update', 'delete'],
  logs: ['read'],
  logs_users: ['read'],
  stats: ['read'],
  // Families of the platform that Latchkey does not have: reading them answers "none", writing them is refused
  // (http/management/absent-families.ts). Their scopes exist so that tools granted every scope read them.
  rules: ['read', 'create', 'update', 'delete'],
  rules_configs: ['read', 'update', 'delete'],
  hooks: ['read', 'create', 'update', 'delete'],
  custom_domains: ['read', 'create', 'update', 'delete'],
  email_provider: ['read', 'create', 'update', 'delete'],
  email_templates: ['read', 'create', 'update'],
  forms: ['read', 'create', 'update', 'delete'],
  flows: ['read', 'create', 'update', 'delete'],
  flows_vault_connections: ['read', 'create', 'update', 'delete'],
  self_service_profiles: ['read', 'create', 'update', 'delete'],
  token_exchange_profiles: ['read', 'create', 'update', 'delete'],
  event_streams: ['read', 'create', 'update', 'delete'],
  network_acls: ['read', 'create', 'update', 'delete'],
  rate_limit_policies: ['read', 'create', 'update', 'delete'],
  user_attribute_profiles: ['read', 'create', 'update', 'delete'],
  connection_profiles: ['read', 'create', 'update', 'delete'],
  phone_providers: ['read', 'create', 'update', 'delete'],
  phone_templates: ['read', 'create', 'update', 'delete'],
  organization_client_grants: ['read', 'create', 'delete'],
};

/** What a user's own token for the Management API may carry (the browser library's management calls). */
export const CURRENT_USER_SCOPES: readonly string[] = [
  'read:current_user',
  'update:current_user_identities',
  'create:current_user_metadata',
  'update:current_user_metadata',
  'delete:current_user_metadata',
  'create:current_user_device_credentials',
  'delete:current_user_device_credentials',
];

export const MANAGEMENT_SCOPES: readonly string[] = [
  ...Object.entries(RESOURCE_ACTIONS).flatMap(([resource, actions]) => actions.map((action) => `${action}:${resource}`)),
  ...CURRENT_USER_SCOPES,
];
