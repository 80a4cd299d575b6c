import type { Storage } from '../storage/storage.js';
import type { TenantDocument } from './tenant-settings.js';

/** The tenant's branding, as `GET /api/v2/branding` shows it and the hosted pages apply it (the platform's fields). */
export interface BrandingSettings {
  colors?: { primary?: string; page_background?: string };
  favicon_url?: string;
  logo_url?: string;
  font?: { url?: string };
}

/** A change: a field left out stays; `null` removes it (a whole group, or one field of `colors` or `font`). */
export interface BrandingPatch {
  colors?: { primary?: string | null; page_background?: string | null } | null;
  favicon_url?: string | null;
  logo_url?: string | null;
  font?: { url?: string | null } | null;
}

/** What the API accepts, checked again when the pages read it: a colour goes into a stylesheet, a URL into an attribute. */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const HTTPS_URL = /^https:\/\/[^\s"'<>\\]+$/;

/**
 * The tenant document keeps the branding under `branding`, beside the page template (`universal_login_template`)
 * that lives there too; only the fields above are branding settings.
 */
type StoredDocument = TenantDocument & { branding?: BrandingSettings & Record<string, unknown> };

const SETTINGS_FIELDS: ReadonlySet<string> = new Set(['colors', 'favicon_url', 'logo_url', 'font']);

const colorOf = (value: unknown) => (typeof value === 'string' && HEX_COLOR.test(value) ? value : undefined);
const urlOf = (value: unknown) => (typeof value === 'string' && HTTPS_URL.test(value) ? value : undefined);

/** Drops the keys whose value is undefined, and answers undefined for an object left empty. */
function pruned<T extends object>(value: T): T | undefined {
  const kept = Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The branding a tenant document holds: only well-formed values of the known fields; `{}` when none. */
export function brandingOf(document: TenantDocument | undefined): BrandingSettings {
  const stored = (document as StoredDocument | undefined)?.branding ?? {};
  return (
    pruned({
      colors: pruned({ primary: colorOf(stored.colors?.primary), page_background: colorOf(stored.colors?.page_background) }),
      favicon_url: urlOf(stored.favicon_url),
      logo_url: urlOf(stored.logo_url),
      font: pruned({ url: urlOf(stored.font?.url) }),
    }) ?? {}
  );
}

/** One field after a change: left out it stays, `null` removes it. */
const changed = <T>(current: T | undefined, next: T | null | undefined): T | undefined => (next === undefined ? current : (next ?? undefined));

function applyPatch(current: BrandingSettings, patch: BrandingPatch): BrandingSettings {
  const colors =
    patch.colors === null
      ? undefined
      : pruned({ primary: changed(current.colors?.primary, patch.colors?.primary), page_background: changed(current.colors?.page_background, patch.colors?.page_background) });
  const font = patch.font === null ? undefined : pruned({ url: changed(current.font?.url, patch.font?.url) });
  return pruned({ colors, favicon_url: changed(current.favicon_url, patch.favicon_url), logo_url: changed(current.logo_url, patch.logo_url), font }) ?? {};
}

/** `GET/PATCH /api/v2/branding`: read from the database, written under the tenant document's lock. */
export function brandingService(deps: { storage: Storage; tenantId: string }) {
  const { storage, tenantId } = deps;
  return {
    async get(): Promise<BrandingSettings> {
      return brandingOf((await storage.tenants.get<TenantDocument>(tenantId))?.settings);
    },
    /** Read-modify-write under the lock other tenant-document writers take, so no concurrent change is undone. */
    async update(patch: BrandingPatch): Promise<BrandingSettings> {
      return storage.exclusive(`latchkey:tenant-settings:${tenantId}`, async (repos) => {
        const tenant = await repos.tenants.get<StoredDocument>(tenantId);
        if (!tenant) throw new Error(`tenant ${tenantId} is missing: bootstrap did not run`);
        const document = tenant.settings;
        const branding = applyPatch(brandingOf(document), patch);
        // The page template and anything else kept under `branding` stays as it was.
        const others = Object.fromEntries(Object.entries(document.branding ?? {}).filter(([key]) => !SETTINGS_FIELDS.has(key)));
        await repos.tenants.updateSettings(tenantId, { ...document, branding: { ...others, ...branding } });
        return branding;
      });
    },
  };
}
