/**
 * The list operation's rules, free of HTTP and storage: the page window is cut from all configurations
 * first, then the filters apply inside it, then `fields` projects each item.
 */
export interface RenderingListQuery {
  prompt?: string;
  screen?: string;
  rendering_mode?: 'advanced' | 'standard';
  fields?: string;
  include_fields?: boolean;
}

export type RenderingItem = Record<string, unknown> & { prompt: string; screen: string };

export function filterWindow(items: readonly RenderingItem[], query: RenderingListQuery): RenderingItem[] {
  return items.filter(
    (item) =>
      (query.prompt === undefined || item.prompt === query.prompt) &&
      (query.screen === undefined || item.screen === query.screen) &&
      (query.rendering_mode === undefined || item.rendering_mode === query.rendering_mode),
  );
}

/** Keeps (`include_fields` true, the default) or drops the named fields; unknown names are ignored. */
export function projectFields(item: RenderingItem, fields: string | undefined, includeFields: boolean | undefined): Record<string, unknown> {
  const names = new Set((fields ?? '').split(',').map((name) => name.trim()).filter(Boolean));
  if (names.size === 0) return item;
  const include = includeFields ?? true;
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name) === include));
}
