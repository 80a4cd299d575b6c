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
  /** Hours a session lives at most (the platform's default 168, seven days); `_in_minutes` says the same in minutes. */
  session_lifetime?: number;
  session_lifetime_in_minutes?: number;
  /** Hours a session lives without use (the platform's default 72, three days). */
  idle_session_lifetime?: number;
  idle_session_lifetime_in_minutes?: number;
  /** The API that `/authorize` and `/oauth/token` issue access tokens for when the request names none; empty: unset. */
  default_audience?: string;
  /** The platform's other documented settings, stored and shown as given (support_email, error_page, ...). */
  [documented: string]: unknown;
}

/** The session lifetimes that apply, in seconds. */
export interface SessionLifetimes {
  idleSeconds: number;
  absoluteSeconds: number;
}

/** The platform's defaults: a session ends after 3 days without use, or 7 days after login. */
export const DEFAULT_SESSION_LIFETIMES: SessionLifetimes = { idleSeconds: 72 * 3600, absoluteSeconds: 168 * 3600 };

export function sessionLifetimesOf(settings: Pick<TenantSettings, 'session_lifetime' | 'idle_session_lifetime'> | undefined): SessionLifetimes {
  const seconds = (hours: number | undefined, fallback: number) => (typeof hours === 'number' && hours > 0 ? Math.round(hours * 3600) : fallback);
  return {
    idleSeconds: seconds(settings?.idle_session_lifetime, DEFAULT_SESSION_LIFETIMES.idleSeconds),
    absoluteSeconds: seconds(settings?.session_lifetime, DEFAULT_SESSION_LIFETIMES.absoluteSeconds),
  };
}

/** A lifetime given in hours or in minutes is stored both ways, so that either reads the same. */
function withBothUnits(patch: TenantSettingsPatch): TenantSettingsPatch {
  const next = { ...patch };
  for (const name of ['session_lifetime', 'idle_session_lifetime'] as const) {
    const minutes = patch[`${name}_in_minutes`];
    const hours = patch[name];
    if (typeof minutes === 'number') next[name] = minutes / 60;
    else if (typeof hours === 'number') next[`${name}_in_minutes`] = Math.round(hours * 60);
  }
  return next;
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
        const settings: TenantSettings = { ...current, ...withBothUnits(patch), flags: { ...current.flags, ...(patch.flags ?? {}) } };
        await repos.tenants.updateSettings(tenantId, { ...document, settings });
        return settings;
      });
    },
  };
}
