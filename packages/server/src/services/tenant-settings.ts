import type { Repositories } from '../storage/repositories/index.js';
import type { Storage } from '../storage/storage.js';

/** Tenant settings as the Management API shows them (`GET/PATCH /api/v2/tenants/settings`). */
export interface TenantSettings {
  friendly_name: string;
  picture_url?: string;
  enabled_locales: string[];
  allowed_logout_urls: string[];
  /** The connection the `password` grant logs users in against (no `realm` in that grant); empty: unset. */
  default_directory?: string;
  /** `free` makes advanced customizations answer 402. */
  subscription: 'free' | 'paid';
  flags: { enable_advanced_customizations: boolean; [flag: string]: boolean };
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

export type TenantSettingsPatch = Partial<Omit<TenantSettings, 'flags'>> & { flags?: Record<string, boolean> };

/** `GET/PATCH /api/v2/tenants/settings`: top-level fields replace, `flags` merge one level deep. */
export function tenantSettingsService(deps: { storage: Storage; tenantId: string }) {
  const { storage, tenantId } = deps;
  /** The tenant row's document ({settings, bootstrap}); only `settings` is ever shown. */
  const loadDocument = async (repos: Repositories): Promise<TenantDocument> => {
    const tenant = await repos.tenants.get<TenantDocument>(tenantId);
    if (!tenant) throw new Error(`tenant ${tenantId} is missing: bootstrap did not run`);
    return tenant.settings;
  };
  return {
    async get(): Promise<TenantSettings> {
      return (await loadDocument(storage)).settings;
    },
    /** Read-modify-write under the tenant's lock, so concurrent PATCHes of different fields do not undo each other. */
    async update(patch: TenantSettingsPatch): Promise<TenantSettings> {
      return storage.exclusive(`latchkey:tenant-settings:${tenantId}`, async (repos) => {
        const document = await loadDocument(repos);
        const current = document.settings;
        const settings: TenantSettings = { ...current, ...patch, flags: { ...current.flags, ...(patch.flags ?? {}) } };
        await repos.tenants.updateSettings(tenantId, { ...document, settings });
        return settings;
      });
    },
  };
}
