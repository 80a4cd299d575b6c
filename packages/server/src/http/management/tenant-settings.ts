import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { tenantSettingsService } from '../../services/tenant-settings.js';
import { ManagementError } from './errors.js';
import { ERROR_RESPONSES, FieldsQuery, nullable } from './schemas.js';

const hours = (description: string) => Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760, description }));
const minutes = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 525600, description }));

/** Settings of the platform that mean something here, applied as it applies them. */
const appliedSettings = {
  session_lifetime: hours('Hours a login session lasts at most (default 168). Applies to sessions started afterwards.'),
  session_lifetime_in_minutes: minutes('session_lifetime in minutes (either may be given).'),
  idle_session_lifetime: hours('Hours a login session lasts without use (default 72).'),
  idle_session_lifetime_in_minutes: minutes('idle_session_lifetime in minutes (either may be given).'),
  default_audience: Type.Optional(
    Type.String({ maxLength: 600, description: 'API identifier that /authorize and /oauth/token issue access tokens for when the request names no audience; an empty string unsets it.' }),
  ),
};

const text = (description: string, maxLength = 2048) => Type.Optional(Type.String({ maxLength, description }));
const flag = (description: string) => Type.Optional(nullable(Type.Boolean(), description));
const section = (description: string) => Type.Optional(nullable(Type.Object({}, { additionalProperties: true, maxProperties: 50 }), description));
const kept = ' (stored and shown; no effect in Latchkey)';

/** The platform's other documented settings: accepted with their types, stored and shown, without an effect here. */
const documentedSettings = {
  support_email: Type.Optional(Type.String({ maxLength: 320, description: `Support e-mail address${kept}.` })),
  support_url: text(`Support page URL${kept}.`),
  default_redirection_uri: text(`Where login links with no application go${kept}.`),
  sandbox_version: text(`Extensibility sandbox version${kept}.`, 32),
  legacy_sandbox_version: text(`Legacy sandbox version${kept}.`, 32),
  ephemeral_session_lifetime: hours(`Hours a non-persistent session lasts${kept}.`),
  idle_ephemeral_session_lifetime: hours(`Hours a non-persistent session lasts without use${kept}.`),
  ephemeral_session_lifetime_in_minutes: minutes(`ephemeral_session_lifetime in minutes${kept}.`),
  idle_ephemeral_session_lifetime_in_minutes: minutes(`idle_ephemeral_session_lifetime in minutes${kept}.`),
  acr_values_supported: Type.Optional(nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }), `Supported ACR values${kept}.`)),
  customize_mfa_in_postlogin_action: flag(`MFA customization in post-login actions${kept}.`),
  allow_organization_name_in_authentication_api: flag(`Organization names in the Authentication API${kept}.`),
  pushed_authorization_requests_supported: flag(`Pushed authorization requests${kept}.`),
  authorization_response_iss_parameter_supported: flag(`iss parameter in authorization responses${kept}.`),
  skip_non_verifiable_callback_uri_confirmation_prompt: flag(`Skip the confirmation prompt for non-verifiable callback URIs${kept}.`),
  client_id_metadata_document_supported: flag(`Client ID metadata documents${kept}.`),
  enable_ai_guide: flag(`AI guide${kept}.`),
  phone_consolidated_experience: flag(`Consolidated phone experience${kept}.`),
  include_session_metadata_in_tenant_logs: flag(`Session metadata in tenant logs${kept}.`),
  resource_parameter_profile: text(`How the resource parameter is read${kept}.`, 64),
  dynamic_client_registration_security_mode: text(`Dynamic client registration mode${kept}.`, 64),
  change_password: section(`Custom change-password page ({enabled, html})${kept}.`),
  guardian_mfa_page: section(`Custom MFA page ({enabled, html})${kept}.`),
  error_page: section(`Custom error page ({html, show_log_link, url})${kept}.`),
  device_flow: section(`Device flow user code ({charset, mask})${kept}.`),
  default_token_quota: section(`Default token quotas${kept}.`),
  security_headers: section(`Security headers${kept}.`),
  session_cookie: section(`Session cookie mode ({mode})${kept}.`),
  sessions: section(`Session settings ({oidc_logout_prompt_enabled})${kept}.`),
  oidc_logout: section(`OIDC logout settings${kept}.`),
  mtls: section(`mTLS settings${kept}.`),
  country_codes: section(`Country codes settings${kept}.`),
};

const fields = {
  friendly_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Name shown to users.' })),
  picture_url: Type.Optional(Type.String({ maxLength: 2048, description: 'URL of the tenant logo.' })),
  enabled_locales: Type.Optional(Type.Array(Type.String({ pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$' }), { minItems: 1, maxItems: 100, description: 'Locales of the hosted pages.' })),
  allowed_logout_urls: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100, description: 'Tenant-level URLs allowed as returnTo after logout.' })),
  default_directory: Type.Optional(
    Type.String({ maxLength: 128, description: 'Name of the connection the password grant (grant_type=password) logs users in against; an empty string unsets it.' }),
  ),
  subscription: Type.Optional(Type.Unsafe<'free' | 'paid'>({ type: 'string', enum: ['free', 'paid'], description: 'Subscription: free or paid.' })),
  flags: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z0-9_]+$' }), Type.Boolean(), { description: 'Feature flags (merged), e.g. enable_advanced_customizations.' })),
  ...appliedSettings,
  ...documentedSettings,
};

// Only `settings` of the tenant document is ever shown: additionalProperties false keeps anything else out.
const Settings = Type.Object({ ...fields }, { additionalProperties: false });

/** The platform's classic page settings: password reset, multi-factor and error pages. */
const CLASSIC_PAGES = ['change_password', 'guardian_mfa_page', 'error_page'] as const;

/** Whether a classic page setting asks for the page: switched on, or custom HTML to serve. */
function classicPageInUse(setting: unknown): boolean {
  if (!setting || typeof setting !== 'object') return false;
  const { enabled, html } = setting as { enabled?: unknown; html?: unknown };
  return enabled === true || (typeof html === 'string' && html.trim() !== '');
}

export function tenantSettingsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = tenantSettingsService(registry);
    const tags = ['tenants'];
    app.get(
      '/tenants/settings',
      {
        config: { scopes: ['read:tenant_settings'] },
        schema: { tags, summary: 'Get tenant settings', querystring: Type.Object(FieldsQuery, { additionalProperties: false }), response: { 200: Settings, ...ERROR_RESPONSES } },
      },
      async () => service.get(),
    );
    app.patch(
      '/tenants/settings',
      {
        config: { scopes: ['update:tenant_settings'] },
        schema: { tags, summary: 'Update tenant settings (fields replace, flags merge)', body: Type.Object(fields, { additionalProperties: false }), response: { 200: Settings, ...ERROR_RESPONSES } },
        // The platform's classic pages are tenant settings there; refused by name before the schema, which would
        // only call them unknown properties (the deploy CLI's `pages` family writes them here).
        // Settings that leave them off (`enabled: false`, no custom `html`) are kept, as an export of a tenant that
        // never used them carries them.
        preValidation: async (request) => {
          const body = (request.body ?? {}) as Record<string, unknown>;
          const page = CLASSIC_PAGES.find((name) => classicPageInUse(body[name]));
          if (page) throw new ManagementError(400, `Latchkey has no classic pages (${page}): customise the hosted pages with /api/v2/prompts and /api/v2/branding.`, 'unsupported_feature');
        },
      },
      async (request) => service.update(request.body),
    );
  };
}
