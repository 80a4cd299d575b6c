import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { PageOf, PageWindow } from './page.js';

/**
 * User search (`GET /api/v2/users?q=`): a condition over the users' columns and profile fields, compiled to SQL
 * over the expressions that migration 0009-user-search-indexes indexes on each dialect. Parsing the query is the
 * service's (services/users-query.ts); this only knows fields, values and SQL.
 */

/** A stored column of the users table. */
export type UserSearchColumn = 'user_id' | 'email' | 'username' | 'connection' | 'created_at' | 'updated_at';
/** A top-level field of the user document, by the type its value has there. */
export type UserSearchProfileField = 'name' | 'given_name' | 'family_name' | 'nickname' | 'phone_number' | 'last_login';
export type UserSearchField =
  | { column: UserSearchColumn }
  | { text: UserSearchProfileField }
  | { flag: 'email_verified' | 'blocked' }
  | { number: 'logins_count' }
  /** A value in app_metadata or user_metadata, by its key (a plain word: it is written into the SQL). */
  | { metadata: 'app_metadata' | 'user_metadata'; key: string }
  /** The provider of the user's own identity: the part of user_id before `|`. */
  | { provider: true }
  /** The provider's id of the user's own identity: the part of user_id after `|`. */
  | { identityUserId: true };

export interface UserSearchBound {
  value: string | number;
  inclusive: boolean;
}

export type UserCondition =
  | { field: UserSearchField; equals: string | number | boolean }
  | { field: UserSearchField; prefix: string }
  | { field: UserSearchField; from?: UserSearchBound; to?: UserSearchBound }
  | { field: UserSearchField; exists: true }
  | { not: UserCondition }
  | { all: UserCondition[] }
  | { any: UserCondition[] };

export type UserSortField = 'created_at' | 'updated_at' | 'last_login' | 'logins_count' | 'email' | 'name' | 'user_id';
export interface UserSort {
  field: UserSortField;
  descending: boolean;
}

export interface UserSearch {
  condition?: UserCondition;
  connection?: string;
  sort?: UserSort;
}

/** Metadata keys and field names go into the SQL text (so that it matches the index expressions): plain words only. */
export const METADATA_KEY = /^[A-Za-z0-9_-]{1,64}$/;

type Dialect = 'postgres' | 'sqlite';

/** The SQL of a document field, exactly as the index expressions of 0009 write it. */
export function jsonText(dialect: Dialect, name: string): string {
  if (!METADATA_KEY.test(name)) throw new Error(`not a plain field name: ${name}`);
  return dialect === 'postgres' ? `(data::jsonb ->> '${name}')` : `json_extract(data, '$.${name}')`;
}

function expression(dialect: Dialect, field: UserSearchField): RawBuilder<unknown> {
  if ('column' in field) return sql.ref(field.column);
  if ('text' in field) return sql.raw(jsonText(dialect, field.text));
  if ('flag' in field) return sql.raw(jsonText(dialect, field.flag));
  if ('number' in field) return sql.raw(dialect === 'postgres' ? `(${jsonText(dialect, field.number)})::bigint` : jsonText(dialect, field.number));
  if ('metadata' in field) {
    if (!METADATA_KEY.test(field.key)) throw new Error(`not a plain metadata key: ${field.key}`);
    return sql.raw(dialect === 'postgres' ? `(data::jsonb -> '${field.metadata}' ->> '${field.key}')` : `json_extract(data, '$.${field.metadata}.${field.key}')`);
  }
  if ('provider' in field) return sql.raw(dialect === 'postgres' ? `split_part(user_id, '|', 1)` : `substr(user_id, 1, instr(user_id, '|') - 1)`);
  return sql.raw(dialect === 'postgres' ? `split_part(user_id, '|', 2)` : `substr(user_id, instr(user_id, '|') + 1)`);
}

/** A value as the field's expression holds it: booleans are 1/0 in SQLite's JSON and 'true'/'false' text in PostgreSQL's. */
function valueOf(dialect: Dialect, field: UserSearchField, value: string | number | boolean): unknown {
  if ('flag' in field) return dialect === 'postgres' ? String(value) : value ? 1 : 0;
  return value;
}

/**
 * A metadata key holding a value: as text, or as the number or boolean the text spells (a query's text cannot tell
 * `"5"` from `5`), or an array holding it, as a search engine indexes each element of an array. On PostgreSQL as
 * containment (`@>`), which the GIN indexes of 0012-user-metadata-indexes serve; on SQLite through the values
 * table of 0013-user-metadata-values.
 */
function metadataEquals(dialect: Dialect, tenantId: string, metadata: 'app_metadata' | 'user_metadata', key: string, value: string | number | boolean): RawBuilder<unknown> {
  if (!METADATA_KEY.test(key)) throw new Error(`not a plain metadata key: ${key}`);
  const text = String(value);
  const candidates: (string | number | boolean)[] = [text];
  if (/^-?\d+(\.\d+)?$/.test(text)) candidates.push(Number(text));
  if (text === 'true' || text === 'false') candidates.push(text === 'true');
  if (dialect === 'postgres') {
    const object = sql.raw(`(data::jsonb -> '${metadata}')`);
    // Containment finds a value inside an array only when asked with an array: `{"k": ["v"]}` for `{"k": ["v", "w"]}`.
    const shapes = candidates.flatMap((candidate) => [{ [key]: candidate }, { [key]: [candidate] }]);
    return sql`(${sql.join(shapes.map((shape) => sql`${object} @> ${JSON.stringify(shape)}::jsonb`), sql` or `)})`;
  }
  // SQLite's JSON functions answer true and false as 1 and 0. The values table (0013-user-metadata-values) holds each
  // value of a key, array elements included, under an index.
  const values = sql.join(candidates.map((candidate) => (typeof candidate === 'boolean' ? (candidate ? 1 : 0) : candidate)));
  return sql`(user_id in (select user_id from user_metadata_values where tenant_id = ${tenantId} and field = ${metadata} and key = ${key} and value in (${values})))`;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function compile(dialect: Dialect, tenantId: string, condition: UserCondition): RawBuilder<unknown> {
  if ('all' in condition) return sql`(${sql.join(condition.all.map((part) => compile(dialect, tenantId, part)), sql` and `)})`;
  if ('any' in condition) return sql`(${sql.join(condition.any.map((part) => compile(dialect, tenantId, part)), sql` or `)})`;
  // A missing field is not equal to anything, so `NOT name:x` matches users without a name too.
  if ('not' in condition) return sql`(not coalesce(${compile(dialect, tenantId, condition.not)}, false))`;
  const target = expression(dialect, condition.field);
  if ('exists' in condition) return sql`(${target} is not null)`;
  if ('equals' in condition) {
    const field = condition.field;
    if ('metadata' in field) return metadataEquals(dialect, tenantId, field.metadata, field.key, condition.equals);
    return sql`(${target} = ${valueOf(dialect, field, condition.equals)})`;
  }
  if ('prefix' in condition) {
    // PostgreSQL: LIKE on a text_pattern_ops index; SQLite: a range of the binary collation, which its index serves.
    if (dialect === 'postgres') return sql`(${target} like ${`${escapeLike(condition.prefix)}%`})`;
    return sql`(${target} >= ${condition.prefix} and ${target} < ${`${condition.prefix}\u{10FFFF}`})`;
  }
  const parts: RawBuilder<unknown>[] = [];
  if (condition.from) parts.push(condition.from.inclusive ? sql`${target} >= ${condition.from.value}` : sql`${target} > ${condition.from.value}`);
  if (condition.to) parts.push(condition.to.inclusive ? sql`${target} <= ${condition.to.value}` : sql`${target} < ${condition.to.value}`);
  return parts.length === 0 ? sql`(${target} is not null)` : sql`(${sql.join(parts, sql` and `)})`;
}

const SORT_FIELDS: Record<UserSortField, UserSearchField> = {
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
  email: { column: 'email' },
  user_id: { column: 'user_id' },
  name: { text: 'name' },
  last_login: { text: 'last_login' },
  logins_count: { number: 'logins_count' },
};

export function userSearchRepository(database: Kysely<Database>) {
  const dialect: Dialect = database.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

  function where(tenantId: string, search: UserSearch): RawBuilder<unknown> {
    // Linked secondary accounts are identities of their primary, not users: never found by a search.
    const parts = [sql`tenant_id = ${tenantId}`, sql`linked_to is null`];
    if (search.connection !== undefined) parts.push(sql`connection = ${search.connection}`);
    if (search.condition) parts.push(compile(dialect, tenantId, search.condition));
    return sql.join(parts, sql` and `);
  }

  return {
    /**
     * Ids of one page of matching users, in the asked order (creation order by default), and how many match, counted
     * up to `countUpTo` at most (a broad search does not count the whole tenant).
     */
    async search(tenantId: string, search: UserSearch, window: PageWindow, countUpTo: number): Promise<PageOf<string>> {
      const condition = where(tenantId, search);
      const sort = search.sort ?? { field: 'created_at', descending: false };
      const direction = sql.raw(sort.descending ? 'desc' : 'asc');
      const field = SORT_FIELDS[sort.field];
      const key = expression(dialect, field);
      // Missing values (no name, never logged in) come last either way, as on the platform; the columns that are
      // never missing are ordered by their index alone.
      const order = 'column' in field && field.column !== 'email' ? sql`${key} ${direction}, user_id ${direction}` : sql`(${key} is null), ${key} ${direction}, user_id ${direction}`;
      const [rows, count] = await Promise.all([
        sql<{ user_id: string }>`select user_id from users where ${condition} order by ${order} limit ${window.limit} offset ${window.offset}`.execute(database),
        sql<{ n: number | string }>`select count(*) as n from (select 1 from users where ${condition} limit ${countUpTo}) as matched`.execute(database),
      ]);
      return { items: rows.rows.map((row) => row.user_id), total: Number(count.rows[0]?.n ?? 0) };
    },
  };
}

export type UserSearchRepository = ReturnType<typeof userSearchRepository>;
