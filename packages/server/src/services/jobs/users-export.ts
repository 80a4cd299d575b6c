import { ServiceError } from '../errors.js';
import type { UserView } from '../users.js';

/**
 * What a users export writes (`POST /api/v2/jobs/users-exports`): the named fields of each user, as CSV (a header
 * row, then one row per user) or as the platform's "JSON-compatible" format, newline-delimited JSON (one object per
 * line). A field is a user profile property, a nested one by path (`user_metadata.country`, `identities[0].connection`),
 * written under `export_as` when given.
 */

export type ExportFormat = 'csv' | 'json';

export interface ExportField {
  name: string;
  export_as?: string;
}

/** The platform's cap on the fields of one export. */
export const MAX_EXPORT_FIELDS = 30;

/** The fields an export without `fields` writes. */
export const DEFAULT_EXPORT_FIELDS: ExportField[] = [
  { name: 'user_id' },
  { name: 'email' },
  { name: 'email_verified' },
  { name: 'username' },
  { name: 'name' },
  { name: 'nickname' },
  { name: 'identities[0].connection', export_as: 'connection' },
  { name: 'created_at' },
  { name: 'updated_at' },
  { name: 'last_login' },
  { name: 'logins_count' },
  { name: 'blocked' },
];

/** The user properties an export can name (the first segment of a path). */
const ROOTS = new Set([
  'user_id',
  'email',
  'email_verified',
  'username',
  'phone_number',
  'phone_verified',
  'name',
  'given_name',
  'family_name',
  'nickname',
  'picture',
  'created_at',
  'updated_at',
  'last_login',
  'last_ip',
  'logins_count',
  'blocked',
  'identities',
  'user_metadata',
  'app_metadata',
]);
const METADATA_ROOTS = new Set(['user_metadata', 'app_metadata']);

/** `a.b[0].c` as its keys: ['a', 'b', 0, 'c']; undefined when it is not such a path. */
function pathOf(name: string): (string | number)[] | undefined {
  const keys: (string | number)[] = [];
  const segment = /^(?:\.?([A-Za-z0-9_$-]+)|\[(\d{1,3})\])/;
  let rest = name;
  while (rest.length > 0) {
    const match = segment.exec(rest);
    if (!match || (keys.length === 0 && !match[1])) return undefined;
    if (keys.length === 0 && rest.startsWith('.')) return undefined;
    keys.push(match[1] ?? Number(match[2]));
    rest = rest.slice(match[0].length);
  }
  return keys.length > 0 ? keys : undefined;
}

/** The export's fields, checked: known properties, at most 30, no whole metadata object in CSV (as on the platform). */
export function exportFields(format: ExportFormat, fields: ExportField[] | undefined): { field: ExportField; path: (string | number)[] }[] {
  const chosen = fields === undefined || fields.length === 0 ? DEFAULT_EXPORT_FIELDS : fields;
  if (chosen.length > MAX_EXPORT_FIELDS) throw new ServiceError('invalid', `An export can have at most ${MAX_EXPORT_FIELDS} fields.`, 'invalid_body');
  const seen = new Set<string>();
  return chosen.map((field) => {
    const path = pathOf(field.name);
    if (!path || !ROOTS.has(String(path[0]))) throw new ServiceError('invalid', `Unsupported field to export: ${field.name}.`, 'invalid_body');
    if (format === 'csv' && path.length === 1 && METADATA_ROOTS.has(field.name)) {
      throw new ServiceError('invalid', `A CSV export names the ${field.name} fields it includes one by one (for example ${field.name}.country); the whole object can be exported as JSON.`, 'invalid_body');
    }
    const column = field.export_as ?? field.name;
    if (seen.has(column)) throw new ServiceError('invalid', `The export has two fields named ${column}.`, 'invalid_body');
    seen.add(column);
    return { field, path };
  });
}

function valueAt(user: UserView, path: (string | number)[]): unknown {
  let value: unknown = user;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** RFC 4180: a text value in quotes, its quotes doubled; numbers and booleans bare; nothing for a missing value. */
function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The text of one batch of users. `first`: the batch that starts the file (a CSV export's header row goes there,
 * even when there are no users).
 */
export function exportedText(format: ExportFormat, fields: { field: ExportField; path: (string | number)[] }[], users: UserView[], first: boolean): string {
  const lines: string[] = [];
  if (format === 'csv') {
    if (first) lines.push(fields.map(({ field }) => csvCell(field.export_as ?? field.name)).join(','));
    for (const user of users) lines.push(fields.map(({ path }) => csvCell(valueAt(user, path))).join(','));
  } else {
    for (const user of users) {
      const row: Record<string, unknown> = {};
      for (const { field, path } of fields) {
        const value = valueAt(user, path);
        if (value !== undefined) row[field.export_as ?? field.name] = value;
      }
      lines.push(JSON.stringify(row));
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
