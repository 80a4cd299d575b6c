/** Tenant settings as the Management API shows them (`GET/PATCH /api/v2/tenants/settings`). */
export interface TenantSettings {
  friendly_name: string;
  picture_url?: string;
  enabled_locales: string[];
  allowed_logout_urls: string[];
  /** `free` makes advanced customizations answer 402. */
  subscription: 'free' | 'paid';
  flags: { enable_advanced_customizations: boolean; [flag: string]: boolean };
  [extra: string]: unknown;
}

/** What the tenant row stores: the public settings plus bookkeeping the API never shows. */
export interface TenantDocument {
  settings: TenantSettings;
  bootstrap: { admin_client_id?: string };
}

export function defaultTenantDocument(tenantName: string): TenantDocument {
  return {
    settings: {
      friendly_name: tenantName,
      enabled_locales: ['en'],
      allowed_logout_urls: [],
      subscription: 'paid',
      flags: { enable_advanced_customizations: true },
    },
    bootstrap: {},
  };
}
