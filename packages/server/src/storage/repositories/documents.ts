import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson, toJson } from './json.js';
import { reusableQuery } from './reusable-query.js';
import type { PageOf, PageWindow } from './page.js';

/**
 * Most resources are a JSON document plus a few columns that are looked up or kept unique. One repository
 * shape serves them all; each table names its id column and its indexed columns.
 */
export type DocumentTable = 'clients' | 'resource_servers' | 'client_grants' | 'connections' | 'users';

type Columns = Record<string, string | number | null>;

/** Equality per column; a list of values matches any of them (an empty list matches nothing). */
export type DocumentFilter<Cols extends Columns> = { [K in keyof Cols]?: Cols[K] | readonly Cols[K][] };

export interface DocumentRecord<Data, Cols extends Columns> {
  id: string;
  columns: Cols;
  data: Data;
  createdAt: string;
}

export interface DocumentRepository<Data, Cols extends Columns> {
  get(tenantId: string, id: string): Promise<DocumentRecord<Data, Cols> | undefined>;
  findOne(tenantId: string, where: Partial<Cols>): Promise<DocumentRecord<Data, Cols> | undefined>;
  list(tenantId: string, window: PageWindow, where?: DocumentFilter<Cols>): Promise<PageOf<DocumentRecord<Data, Cols>>>;
  /**
   * Up to `limit` records in id order after `afterId` (from the first without it): a walk over many rows whose
   * every step costs the same, where an offset would cost more the further it goes.
   */
  listAfter(tenantId: string, afterId: string | undefined, limit: number, where?: DocumentFilter<Cols>): Promise<DocumentRecord<Data, Cols>[]>;
  /** Inserts several records in one statement: all of them, or none (a unique violation fails the whole statement). */
  insertMany(tenantId: string, records: DocumentRecord<Data, Cols>[]): Promise<void>;
  /** Inserts; with `ifMissing`, a row that exists (same key or unique column) is left alone and false returned. */
  insert(tenantId: string, record: DocumentRecord<Data, Cols>, options?: { ifMissing?: boolean }): Promise<boolean>;
  update(tenantId: string, id: string, changes: { data?: Data; columns?: Partial<Cols> }): Promise<boolean>;
  /**
   * Read-modify-write without losing a concurrent writer's change: `change` gets the stored record and returns
   * the changes (or undefined: nothing to write); they are written only if the document is still the one read,
   * else `change` runs again on the newer one. Resolves to the record as written, or undefined when there is no
   * such row. `change` may run more than once: it must not have side effects.
   *
   * `read` is the record as the caller read it a moment ago: the first attempt starts from it instead of reading
   * again, and is written only if the stored document is still that one (else the next attempt reads). It saves a
   * statement (a round trip on PostgreSQL) where a record is read, then something slow happens, then it changes.
   */
  modify(
    tenantId: string,
    id: string,
    change: (current: DocumentRecord<Data, Cols>) => { data?: Data; columns?: Partial<Cols> } | undefined,
    read?: DocumentRecord<Data, Cols>,
  ): Promise<DocumentRecord<Data, Cols> | undefined>;
  remove(tenantId: string, id: string): Promise<boolean>;
  removeWhere(tenantId: string, where: Partial<Cols>): Promise<number>;
}

/** A document changed by others between every read and write this many times in a row is given up on. */
const MODIFY_ATTEMPTS = 8;

export function documentRepository<Data, Cols extends Columns>(
  database: Kysely<Database>,
  table: DocumentTable,
  idColumn: string,
  columnNames: readonly (keyof Cols & string)[],
  changed: (table: DocumentTable) => void = () => {},
): DocumentRepository<Data, Cols> {
  // The table is chosen at run time, so the query builder is used untyped here and typed at the boundary.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const db = database as unknown as Kysely<any>;

  function toRecord(row: Record<string, unknown>): DocumentRecord<Data, Cols> {
    const columns = Object.fromEntries(columnNames.map((name) => [name, row[name] ?? null])) as Cols;
    return { id: String(row[idColumn]), columns, data: fromJson<Data>(String(row.data)), createdAt: String(row.created_at) };
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  function scoped(query: any, tenantId: string, where: DocumentFilter<Cols> = {}) {
    let q = query.where('tenant_id', '=', tenantId);
    for (const [column, value] of Object.entries(where)) {
      if (Array.isArray(value)) q = value.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where(column, 'in', value);
      else q = value === null ? q.where(column, 'is', null) : q.where(column, '=', value);
    }
    return q;
  }

  // The lookup by key runs on every user-info call and token grant: compiled once.
  const selectById = reusableQuery(db, 2, (tenantId: string, id: string) =>
    db.selectFrom(table).selectAll().where('tenant_id', '=', tenantId).where(idColumn, '=', id),
  );

  return {
    async get(tenantId, id) {
      const [row] = (await selectById(tenantId, id)).rows as Record<string, unknown>[];
      return row && toRecord(row);
    },
    async findOne(tenantId, where) {
      const row = await scoped(db.selectFrom(table).selectAll(), tenantId, where).orderBy('created_at').limit(1).executeTakeFirst();
      return row && toRecord(row);
    },
    async list(tenantId, window, where = {}) {
      const [rows, count] = await Promise.all([
        scoped(db.selectFrom(table).selectAll(), tenantId, where)
          .orderBy('created_at')
          .orderBy(idColumn)
          .offset(window.offset)
          .limit(window.limit)
          .execute(),
        scoped(db.selectFrom(table), tenantId, where)
          .select(db.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { items: (rows as Record<string, unknown>[]).map(toRecord), total: Number((count as { n: unknown }).n) };
    },
    async listAfter(tenantId, afterId, limit, where = {}) {
      let query = scoped(db.selectFrom(table).selectAll(), tenantId, where);
      if (afterId !== undefined) query = query.where(idColumn, '>', afterId);
      const rows = (await query.orderBy(idColumn).limit(limit).execute()) as Record<string, unknown>[];
      return rows.map(toRecord);
    },
    async insertMany(tenantId, records) {
      if (records.length === 0) return;
      const rows = records.map((record) => ({ tenant_id: tenantId, [idColumn]: record.id, ...record.columns, data: toJson(record.data), created_at: record.createdAt }));
      await db.insertInto(table).values(rows).execute();
      changed(table);
    },
    async insert(tenantId, record, options = {}) {
      const insert = db.insertInto(table).values({
        tenant_id: tenantId,
        [idColumn]: record.id,
        ...record.columns,
        data: toJson(record.data),
        created_at: record.createdAt,
      });
      const result = await (options.ifMissing ? insert.onConflict((oc) => oc.doNothing()) : insert).executeTakeFirst();
      changed(table);
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async update(tenantId, id, changes) {
      const set = { ...(changes.columns ?? {}), ...(changes.data !== undefined ? { data: toJson(changes.data) } : {}) };
      if (Object.keys(set).length === 0) return (await this.get(tenantId, id)) !== undefined;
      const result = await db.updateTable(table).set(set).where('tenant_id', '=', tenantId).where(idColumn, '=', id).executeTakeFirst();
      changed(table);
      return Number(result.numUpdatedRows) > 0;
    },
    async modify(tenantId, id, change, read) {
      for (let attempt = 0; attempt < MODIFY_ATTEMPTS; attempt += 1) {
        let current: DocumentRecord<Data, Cols>;
        let storedData: string;
        const fromRead = attempt === 0 && read !== undefined && read.id === id;
        if (fromRead) {
          // The caller's record stands for the stored row: its data serialised as it was stored is what the row
          // must still hold. A row written in another form only costs this attempt.
          current = read;
          storedData = toJson(read.data);
        } else {
          const [row] = (await selectById(tenantId, id)).rows as Record<string, unknown>[];
          if (!row) return undefined;
          current = toRecord(row);
          storedData = String(row.data);
        }
        const changes = change(current);
        // Nothing to write: answer with the stored record, not with what the caller read.
        if (!changes) {
          if (fromRead) continue;
          return current;
        }
        const set = { ...(changes.columns ?? {}), ...(changes.data !== undefined ? { data: toJson(changes.data) } : {}) };
        const result = await db
          .updateTable(table)
          .set(set)
          .where('tenant_id', '=', tenantId)
          .where(idColumn, '=', id)
          .where('data', '=', storedData)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) {
          changed(table);
          return { ...current, columns: { ...current.columns, ...changes.columns }, data: changes.data ?? current.data };
        }
      }
      throw new Error(`${table} ${id}: the document kept changing while it was being updated`);
    },
    async remove(tenantId, id) {
      const result = await db.deleteFrom(table).where('tenant_id', '=', tenantId).where(idColumn, '=', id).executeTakeFirst();
      changed(table);
      return Number(result.numDeletedRows) > 0;
    },
    async removeWhere(tenantId, where) {
      const result = await scoped(db.deleteFrom(table), tenantId, where).executeTakeFirst();
      changed(table);
      return Number(result.numDeletedRows);
    },
  };
}
