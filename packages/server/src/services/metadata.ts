/** Free-form metadata (users' user_metadata/app_metadata, clients' client_metadata). */
export type Metadata = Record<string, unknown>;

/**
 * The platform's PATCH semantics for metadata: keys merge one level deep (nested objects are replaced whole),
 * a `null` value removes its key, and an empty object (or `null`) clears everything.
 */
export function mergeMetadata<T>(current: Record<string, T>, patch: Record<string, T | null> | null | undefined): Record<string, T> {
  if (patch === undefined) return current;
  if (patch === null || Object.keys(patch).length === 0) return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
