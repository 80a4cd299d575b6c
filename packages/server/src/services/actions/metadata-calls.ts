/**
 * One `api.user.setAppMetadata(key, value)` / `setUserMetadata(key, value)`: the change joins `patch` (written once,
 * after the last action; `null` removes the key, as the Management API's merge does) and shows at once in `view`,
 * the metadata the next action's event carries.
 */
export function recordMetadataCall(patch: Record<string, unknown>, view: Record<string, unknown>, key: string, value: unknown): void {
  patch[key] = value === undefined ? null : value;
  if (value === undefined || value === null) delete view[key];
  else view[key] = value;
}
