import type { Storage } from '../../storage/storage.js';
import type { TenantDocument } from '../tenant-settings.js';

/** The tenant's prompt settings, as `GET /api/v2/prompts` shows them. */
export interface PromptSettings {
  /** Which login experience the tenant uses; Latchkey renders only the new one, so `classic` is stored and shown. */
  universal_login_experience: 'new' | 'classic';
  /** Login asks for the identifier first (login-id, then login-password), instead of both on one screen (login). */
  identifier_first: boolean;
  /** With identifier first: offer the device's platform authenticator (passkey) as the first factor. */
  webauthn_platform_first_factor: boolean;
}

/** A change: a field left out stays; `null` puts a flag back to its default. */
export type PromptSettingsPatch = {
  universal_login_experience?: PromptSettings['universal_login_experience'];
  identifier_first?: boolean | null;
  webauthn_platform_first_factor?: boolean | null;
};

/** The platform's defaults. */
export const DEFAULT_PROMPT_SETTINGS: PromptSettings = {
  universal_login_experience: 'new',
  identifier_first: false,
  webauthn_platform_first_factor: false,
};

/** The tenant row's document keeps the fields set through the API; the defaults fill in the rest. */
type StoredDocument = TenantDocument & { prompts?: Partial<PromptSettings> };

/** The settings a tenant document holds, defaults included (also for a document without them). */
export function promptSettingsOf(document: TenantDocument | undefined): PromptSettings {
  return { ...DEFAULT_PROMPT_SETTINGS, ...((document as StoredDocument | undefined)?.prompts ?? {}) };
}

function applyPatch(stored: Partial<PromptSettings>, patch: PromptSettingsPatch): Partial<PromptSettings> {
  const next = { ...stored };
  if (patch.universal_login_experience !== undefined) next.universal_login_experience = patch.universal_login_experience;
  for (const flag of ['identifier_first', 'webauthn_platform_first_factor'] as const) {
    const value = patch[flag];
    if (value === null) delete next[flag];
    else if (value !== undefined) next[flag] = value;
  }
  return next;
}

/** `GET/PATCH /api/v2/prompts`: read from the database, written under the tenant document's lock. */
export function promptSettingsService(deps: { storage: Storage; tenantId: string }) {
  const { storage, tenantId } = deps;
  return {
    async get(): Promise<PromptSettings> {
      return promptSettingsOf((await storage.tenants.get<TenantDocument>(tenantId))?.settings);
    },
    /** Read-modify-write under the lock other tenant-document writers take, so no concurrent change is undone. */
    async update(patch: PromptSettingsPatch): Promise<PromptSettings> {
      return storage.exclusive(`latchkey:tenant-settings:${tenantId}`, async (repos) => {
        const tenant = await repos.tenants.get<StoredDocument>(tenantId);
        if (!tenant) throw new Error(`tenant ${tenantId} is missing: bootstrap did not run`);
        const document = tenant.settings;
        const prompts = applyPatch(document.prompts ?? {}, patch);
        await repos.tenants.updateSettings(tenantId, { ...document, prompts });
        return promptSettingsOf({ ...document, prompts } as StoredDocument);
      });
    },
  };
}
