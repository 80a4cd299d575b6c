import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { tenantSettingsService } from '../../services/tenant-settings.js';
import { ERROR_RESPONSES, FieldsQuery } from './schemas.js';

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
};

// Only `settings` of the tenant document is ever shown: additionalProperties false keeps anything else out.
const Settings = Type.Object({ ...fields }, { additionalProperties: false });

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
      },
      async (request) => service.update(request.body),
    );
  };
}
