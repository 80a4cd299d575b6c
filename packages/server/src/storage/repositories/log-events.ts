import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import type { Database, LogEventsTable } from '../schema.js';
import { fromJson, toJson } from './json.js';

/**
 * The tenant log's storage. Ids are what checkpoint paging (`from=<log_id>&take=`) relies on: a reader who has
 * seen id N must never later find a new event with an id below N, or paging past N skips it. So an id is taken from
 * a per-tenant counter in the transaction that inserts the event, and the counter row's lock (taken by the
 * upsert that advances it) is held until that transaction commits: the next batch of the tenant, on this node or
 * another, waits for the lock and so takes higher ids and commits later. Commit order is id order, and an id that is
 * visible has every lower id visible already. On PostgreSQL the row lock is the per-tenant lock (a separate
 * advisory lock would serialise the same transactions once more); on SQLite every write transaction holds the
 * file's write lock (BEGIN IMMEDIATE) anyway.
 *
 * An id is `90020` and the counter in 20 zero-padded digits: fixed width, so text order is numeric order in every
 * collation, and an id is unique per tenant across nodes.
 */
export const LOG_ID_PREFIX = '90020';
const COUNTER_DIGITS = 20;
const LOG_ID_SHAPE = new RegExp(`^${LOG_ID_PREFIX}\\d{${COUNTER_DIGITS}}$`);

export const logIdOf = (counter: number): string => LOG_ID_PREFIX + String(counter).padStart(COUNTER_DIGITS, '0');
/** Whether `text` is shaped like a log id (a reader checks `from` with it before querying). */
export const isLogId = (text: string): boolean => LOG_ID_SHAPE.test(text);

/** The fields of an event the table indexes; the whole event is stored as JSON beside them. */
export interface StorableLogEvent {
  date: string;
  type: string;
  user_id?: string | undefined;
  client_id?: string | undefined;
  connection?: string | undefined;
  ip?: string | undefined;
}

/** An event as read back: as written, with its id. */
export type StoredLogEvent<E extends StorableLogEvent = StorableLogEvent> = E & { log_id: string };

/** Conditions on the indexed fields; all given ones must hold. `dateFrom` and `dateTo` are inclusive ISO 8601 bounds. */
export interface LogEventFilter {
  type?: string;
  /** Any of these types (an empty list matches nothing). */
  types?: readonly string[];
  user_id?: string;
  client_id?: string;
  connection?: string;
  ip?: string;
  dateFrom?: string;
  dateTo?: string;
}

export interface LogEventListQuery {
  where?: LogEventFilter;
  /** By log_id, which is insertion order (and date order up to clock skew between nodes). Default `desc`: newest first. */
  sort?: 'asc' | 'desc';
  offset?: number;
  limit: number;
  /** Count every matching event as well (one more query). */
  includeTotal?: boolean;
}

/** Rows per INSERT statement, largest first: a batch goes in chunks of these sizes (see `chunks`). */
const CHUNK_SIZES = [256, 128, 64, 32, 16, 8, 4, 2, 1];

/**
 * Splits `count` rows into chunks of the sizes above (300 = 256 + 32 + 8 + 4). Every statement then has one of a
 * few SQL texts, which the SQLite dialect keeps prepared; a text per batch length would churn its statement cache.
 */
function chunks(count: number): number[] {
  const sizes: number[] = [];
  let left = count;
  for (const size of CHUNK_SIZES) {
    while (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

/** The columns of a row, in the order of the INSERT's parameters. */
const COLUMNS = ['tenant_id', 'log_id', 'date', 'type', 'user_id', 'client_id', 'connection', 'ip', 'data', 'expires_at'] as const;

/**
 * The INSERT text of `rows` rows in a database's SQL, compiled once: building it with Kysely for every batch costs
 * a few microseconds per row, a good part of what storing an event costs. Keyed by the adapter (each dialect has
 * its own placeholders), so one text serves every transaction's handle.
 */
const insertTexts = new Map<string, string>();
function insertText(db: Kysely<Database>, rows: number): string {
  const key = `${db.getExecutor().adapter.constructor.name}:${rows}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    const placeholder = Object.fromEntries(COLUMNS.map((column) => [column, column])) as Record<(typeof COLUMNS)[number], string>;
    const compiled = db.insertInto('log_events').values(Array.from({ length: rows }, () => placeholder)).compile();
    if (compiled.parameters.length !== rows * COLUMNS.length) throw new Error(`log_events insert: unexpected parameters in ${compiled.sql}`);
    text = compiled.sql;
    insertTexts.set(key, text);
  }
  return text;
}

const toEvent = <E extends StorableLogEvent>(row: Pick<Selectable<LogEventsTable>, 'log_id' | 'data'>): StoredLogEvent<E> => ({
  log_id: row.log_id,
  ...fromJson<E>(row.data),
});

export function logEventsRepository(db: Kysely<Database>) {
  const filtered = (tenantId: string, where: LogEventFilter = {}) => {
    let query = db.selectFrom('log_events').where('tenant_id', '=', tenantId);
    if (where.type !== undefined) query = query.where('type', '=', where.type);
    if (where.types !== undefined) query = where.types.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('type', 'in', [...where.types]);
    if (where.user_id !== undefined) query = query.where('user_id', '=', where.user_id);
    if (where.client_id !== undefined) query = query.where('client_id', '=', where.client_id);
    if (where.connection !== undefined) query = query.where('connection', '=', where.connection);
    if (where.ip !== undefined) query = query.where('ip', '=', where.ip);
    if (where.dateFrom !== undefined) query = query.where('date', '>=', where.dateFrom);
    if (where.dateTo !== undefined) query = query.where('date', '<=', where.dateTo);
    return query;
  };

  return {
    /**
     * Stores events in the order given and answers their ids (ascending, in that order). MUST run inside
     * `storage.transaction`: the counter's lock has to be held until the events commit (see the top of this file);
     * outside one, PostgreSQL would commit the counter before the events and a reader could skip them.
     */
    async insertBatch<E extends StorableLogEvent>(tenantId: string, rows: readonly { event: E; expiresAt: string }[]): Promise<string[]> {
      if (rows.length === 0) return [];
      const counter = await db
        .insertInto('log_event_counters')
        .values({ tenant_id: tenantId, last: rows.length })
        .onConflict((oc) => oc.column('tenant_id').doUpdateSet((eb) => ({ last: eb('log_event_counters.last', '+', eb.ref('excluded.last')) })))
        .returning('last')
        .executeTakeFirstOrThrow();
      const first = Number(counter.last) - rows.length + 1;
      const ids = rows.map((_, index) => logIdOf(first + index));
      let at = 0;
      for (const size of chunks(rows.length)) {
        const parameters: unknown[] = [];
        for (let index = at; index < at + size; index += 1) {
          const { event, expiresAt } = rows[index] as { event: E; expiresAt: string };
          // In COLUMNS order.
          parameters.push(tenantId, ids[index], event.date, event.type, event.user_id ?? null, event.client_id ?? null, event.connection ?? null, event.ip ?? null, toJson(event), expiresAt);
        }
        await db.executeQuery(CompiledQuery.raw(insertText(db, size), parameters));
        at += size;
      }
      return ids;
    },

    /** A window of the matching events in log order (`sort`), with their total when asked. */
    async list<E extends StorableLogEvent>(tenantId: string, query: LogEventListQuery): Promise<{ events: StoredLogEvent<E>[]; total?: number }> {
      const rows = await filtered(tenantId, query.where)
        .select(['log_id', 'data'])
        .orderBy('log_id', query.sort ?? 'desc')
        .limit(query.limit)
        .offset(query.offset ?? 0)
        .execute();
      const events = rows.map((row) => toEvent<E>(row));
      if (!query.includeTotal) return { events };
      const counted = await filtered(tenantId, query.where).select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      return { events, total: Number(counted?.n ?? 0) };
    },

    /**
     * Checkpoint paging: up to `take` matching events with ids above `afterLogId` (from the first event when it is
     * undefined), in ascending id order. Reading again from the last id returned never skips nor repeats an event,
     * however many are being written meanwhile.
     */
    async after<E extends StorableLogEvent>(tenantId: string, afterLogId: string | undefined, take: number, where?: LogEventFilter): Promise<StoredLogEvent<E>[]> {
      let query = filtered(tenantId, where).select(['log_id', 'data']);
      if (afterLogId !== undefined) query = query.where('log_id', '>', afterLogId);
      const rows = await query.orderBy('log_id', 'asc').limit(take).execute();
      return rows.map((row) => toEvent<E>(row));
    },

    async get<E extends StorableLogEvent>(tenantId: string, logId: string): Promise<StoredLogEvent<E> | undefined> {
      const row = await db.selectFrom('log_events').select(['log_id', 'data']).where('tenant_id', '=', tenantId).where('log_id', '=', logId).executeTakeFirst();
      return row && toEvent<E>(row);
    },

    /**
     * Deletes up to `limit` events (any tenant) whose retention ended at or before `before`; answers how many went.
     * A backlog goes in several short statements, not one long write lock.
     */
    async deleteExpired(before: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('log_events')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('tenant_id', 'log_id'),
            'in',
            selectFrom('log_events').select(['tenant_id', 'log_id']).where('expires_at', '<=', before).limit(limit).$asTuple('tenant_id', 'log_id'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** How many distinct users have events of `types` dated `since` or later (e.g. logins over 30 days). */
    async activeUsers(tenantId: string, range: { since: string; types: readonly string[] }): Promise<number> {
      if (range.types.length === 0) return 0;
      const row = await db
        .selectFrom('log_events')
        .select((eb) => eb.fn.count<string | number>('user_id').distinct().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('type', 'in', [...range.types])
        .where('date', '>=', range.since)
        .where('user_id', 'is not', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type LogEventsRepository = ReturnType<typeof logEventsRepository>;
