import type { PageWindow } from '../../storage/repositories/page.js';
import type { Repositories } from '../../storage/repositories/index.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import type { TenantDocument } from '../tenant-settings.js';
import { advancedCustomizationsRefusal, type AdvancedCustomizationsRefusal } from './advanced-customizations.js';
import { checkPromptScreen } from './catalogue.js';
import { filterWindow, projectFields, type RenderingItem, type RenderingListQuery } from './listing.js';

/** The writable fields of a configuration, plus any extra properties a caller stores. */
export type RenderingFields = Record<string, unknown>;

/** The Management API's answer to each refusal of the advanced-customizations gate. */
const REFUSAL_ERRORS: Record<AdvancedCustomizationsRefusal, () => ServiceError> = {
  payment_required: () => new ServiceError('payment_required', 'A paid subscription is required to use Advanced Customizations.', 'payment_required'),
  feature_disabled: () => new ServiceError('forbidden', 'This tenant does not have Advanced Customizations enabled.', 'feature_disabled'),
};

/** What a configured screen shows for a field it never set. */
const FIELD_DEFAULTS: RenderingFields = {
  rendering_mode: 'standard',
  context_configuration: [],
  default_head_tags_disabled: false,
  use_page_template: false,
  head_tags: [],
  filters: null,
};

export interface RenderingDeps {
  storage: Storage;
  tenantId: string;
}

function ensureCatalogued(prompt: string, screen: string) {
  const check = checkPromptScreen(prompt, screen);
  if (check.ok) return;
  if (check.reason === 'unknown_prompt') throw new ServiceError('not_found', 'The prompt does not exist.', 'inexistent_prompt');
  throw new ServiceError('invalid', `The screen "${screen}" does not belong to the prompt "${prompt}".`, 'invalid_screen');
}

/** `null` clears a field; anything else replaces it. Returns the stored document. */
function applyPatch(current: RenderingFields, patch: RenderingFields): RenderingFields {
  const next = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next;
}

async function write(repos: Repositories, tenantId: string, prompt: string, screen: string, patch: RenderingFields) {
  const current = await repos.renderingConfigs.get<RenderingFields>(tenantId, prompt, screen);
  await repos.renderingConfigs.put(tenantId, prompt, screen, applyPatch(current?.data ?? {}, patch));
}

export function renderingConfigs(deps: RenderingDeps) {
  const { storage, tenantId } = deps;
  const toItem = (prompt: string, screen: string, data: RenderingFields): RenderingItem => ({
    tenant: tenantId,
    prompt,
    screen,
    ...FIELD_DEFAULTS,
    ...data,
  });

  return {
    /** 402 on a free subscription, 403 when the tenant has advanced customizations off (in that order). */
    async assertFeatureEnabled(): Promise<void> {
      const tenant = await storage.tenants.get<TenantDocument>(tenantId);
      const settings = tenant?.settings.settings;
      // A tenant without stored settings is not refused (the hosted pages, by contrast, render such a tenant plain).
      const refusal = settings && advancedCustomizationsRefusal(settings);
      if (refusal) throw REFUSAL_ERRORS[refusal]();
    },

    async list(query: RenderingListQuery, window: PageWindow) {
      const page = await storage.renderingConfigs.window<RenderingFields>(tenantId, window);
      const items = filterWindow(
        page.items.map((record) => toItem(record.prompt, record.screen, record.data)),
        query,
      ).map((item) => projectFields(item, query.fields, query.include_fields));
      return { items, total: page.total };
    },

    async get(prompt: string, screen: string): Promise<RenderingItem> {
      ensureCatalogued(prompt, screen);
      const record = await storage.renderingConfigs.get<RenderingFields>(tenantId, prompt, screen);
      return toItem(prompt, screen, record?.data ?? {});
    },

    /** Partial update of one screen; the answer echoes the fields sent. */
    async update(prompt: string, screen: string, patch: RenderingFields): Promise<RenderingFields> {
      ensureCatalogued(prompt, screen);
      await storage.transaction((repos) => write(repos, tenantId, prompt, screen, patch));
      return patch;
    },

    /** Many screens at once, all or nothing: every pair is checked before anything is written. */
    async bulkUpdate<C extends RenderingFields & { prompt: string; screen: string }>(configs: C[]) {
      for (const config of configs) ensureCatalogued(config.prompt, config.screen);
      await storage.transaction(async (repos) => {
        for (const { prompt, screen, ...patch } of configs) await write(repos, tenantId, prompt, screen, patch);
      });
      return configs;
    },
  };
}

export type RenderingConfigs = ReturnType<typeof renderingConfigs>;
