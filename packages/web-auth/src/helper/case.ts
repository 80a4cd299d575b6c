const camel = (key: string) => key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function rename(value: unknown, name: (key: string) => string, keep: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rename(item, name, keep));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [name(key), keep.has(key) ? item : rename(item, name, keep)]));
}

/** `email_verified` -> `emailVerified`, deeply, except inside the named keys (free-form metadata stays as sent). */
export const toCamelCase = <T>(value: unknown, keep: readonly string[] = []): T => rename(value, camel, new Set(keep)) as T;

/** `userMetadata` -> `user_metadata`, one level deep: the API's parameter names, the values untouched. */
export function toSnakeCase(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [snake(key), item]));
}
