import type { RenderingConfig, RenderingFilters } from './model.js';

/** What a filter is matched against: the application, its metadata and the domain the page is served on. */
export interface RenderingTarget {
  prompt: string;
  screen: string;
  clientId: string;
  clientMetadata: Record<string, string>;
  domain: string;
  organizationId?: string;
  organizationMetadata?: Record<string, string>;
}

type Element = NonNullable<RenderingFilters['clients']>[number];

function elementMatches(element: Element, id: string | undefined, metadata: Record<string, unknown>): boolean {
  if ('id' in element) return id !== undefined && element.id === id;
  const entries = Object.entries(element.metadata);
  return entries.length > 0 && entries.every(([key, value]) => Object.hasOwn(metadata, key) && metadata[key] === value);
}

/** Whether any filter element names this request (an organization only in a login to one). */
function anyMatches(filters: RenderingFilters, target: RenderingTarget): boolean {
  const clients = (filters.clients ?? []).some((element) => elementMatches(element, target.clientId, target.clientMetadata));
  const organizations = (filters.organizations ?? []).some((element) => elementMatches(element, target.organizationId, target.organizationMetadata ?? {}));
  const domains = (filters.domains ?? []).some((element) => elementMatches(element, target.domain, {}));
  return clients || organizations || domains;
}

/** Whether a configuration applies: no filters apply everywhere; `includes_any` needs a match, `excludes_any` none. */
export function configApplies(config: RenderingConfig, target: RenderingTarget): boolean {
  const filters = config.filters;
  if (!filters) return true;
  const listed = (filters.clients?.length ?? 0) + (filters.organizations?.length ?? 0) + (filters.domains?.length ?? 0);
  if (listed === 0) return true;
  const matched = anyMatches(filters, target);
  return filters.match_type === 'excludes_any' ? !matched : matched;
}

/** The configuration for the screen being shown, if one applies to this request. */
export function selectRenderingConfig(configs: readonly RenderingConfig[], target: RenderingTarget): RenderingConfig | undefined {
  return configs.find((config) => config.prompt === target.prompt && config.screen === target.screen && configApplies(config, target));
}
