import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson } from './json.js';
import type { StorableLogEvent, StoredLogEvent } from './log-events.js';

/**
 * Searching the tenant log (`GET /api/v2/logs?q=`): a condition over the event's indexed columns (0006-log-events
 * and 0007-log-search-indexes), which the service layer builds from the caller's query. Only these columns can be
 * named, so that no search the API accepts makes the database read past what an index finds.
 */
export type LogSearchColumn = 'log_id' | 'date' | 'type' | 'user_id' | 'client_id' | 'connection' | 'ip';

/** The columns every event has; the others are NULL on events without them. */
const ALWAYS_SET: ReadonlySet<LogSearchColumn> = new Set(['log_id', 'date', 'type']);

/** One end of a range: the text compared with (dates are ISO 8601 in UTC, as stored), inclusive or not. */
export interface LogBound {
  value: string;
  inclusive: boolean;
}

/**
 * A condition in negation normal form: negations sit on the leaves only (`differsFrom`, and a range's complement
 * written as two ranges), so that an event lacking a field is "not equal" to any value, as a search expects, and
 * never the NULL that SQL's NOT would make of it.
 */
export type LogCondition =
  | { all: readonly LogCondition[] }
  | { any: readonly LogCondition[] }
  | { column: LogSearchColumn; equals: string }
  | { column: LogSearchColumn; differsFrom: string }
  | { column: 'log_id' | 'date'; from?: LogBound; to?: LogBound };

type Builder = ExpressionBuilder<Database, 'log_events'>;

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;

function expression(eb: Builder, condition: LogCondition): Expression<SqlBool> {
  if ('all' in condition) return condition.all.length === 0 ? TRUE : eb.and(condition.all.map((part) => expression(eb, part)));
  if ('any' in condition) return condition.any.length === 0 ? FALSE : eb.or(condition.any.map((part) => expression(eb, part)));
  if ('equals' in condition) return eb(condition.column, '=', condition.equals);
  if ('differsFrom' in condition) {
    const differs = eb(condition.column, '<>', condition.differsFrom);
    return ALWAYS_SET.has(condition.column) ? differs : eb.or([differs, eb(condition.column, 'is', null)]);
  }
  const bounds: Expression<SqlBool>[] = [];
  if (condition.from) bounds.push(eb(condition.column, condition.from.inclusive ? '>=' : '>', condition.from.value));
  if (condition.to) bounds.push(eb(condition.column, condition.to.inclusive ? '<=' : '<', condition.to.value));
  return bounds.length === 0 ? TRUE : eb.and(bounds);
}

/** Whether a condition bounds the date (then the date index gives the order; see `find`). */
function boundsDate(condition: LogCondition | undefined): boolean {
  if (!condition) return false;
  if ('all' in condition) return condition.all.some(boundsDate);
  if ('any' in condition) return condition.any.length > 0 && condition.any.every(boundsDate);
  return condition.column === 'date' && !('differsFrom' in condition);
}

export interface LogSearch {
  match?: LogCondition;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** Events of one UTC day and type: how many, and the dates of the first and the last of them. */
export interface LogDayTotal {
  day: string;
  type: string;
  count: number;
  first: string;
  last: string;
}

export function logSearchRepository(db: Kysely<Database>) {
  const matching = (tenantId: string, match: LogCondition | undefined) => {
    const query = db.selectFrom('log_events').where('tenant_id', '=', tenantId);
    return match ? query.where((eb) => expression(eb, match)) : query;
  };

  return {
    /**
     * A window of the matching events, in date order. The log's order is log_id, which is the order events were
     * stored in and their date order up to the clock skew between nodes, so log_id orders every search that does
     * not bound the date: the newest matches come first off the (tenant, <column>, log_id) indexes. A date range
     * is ordered by (date, log_id) instead, so that the date index gives both the range and the order: by log_id,
     * PostgreSQL would walk the whole log from the newest event back to the range, its planner unaware that
     * log_id and date grow together.
     */
    async find<E extends StorableLogEvent>(tenantId: string, search: LogSearch): Promise<StoredLogEvent<E>[]> {
      let query = matching(tenantId, search.match).select(['log_id', 'data']);
      if (boundsDate(search.match)) query = query.orderBy('date', search.sort);
      const rows = await query.orderBy('log_id', search.sort).limit(search.limit).offset(search.offset).execute();
      return rows.map((row) => ({ log_id: row.log_id, ...fromJson<E>(row.data) }));
    },

    /**
     * How many events match, counting no further than `upTo`: an exact count of a large log is a scan of an index
     * of it (a quarter of a second for a million events on PostgreSQL), while the first `upTo` come straight off it.
     */
    async count(tenantId: string, match: LogCondition | undefined, upTo: number): Promise<number> {
      const row = await db
        .selectFrom(matching(tenantId, match).select(sql<number>`1`.as('one')).limit(upTo).as('found'))
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Events of `types` per UTC day (`YYYY-MM-DD`) and type, dated from `from` (inclusive) to `to` (exclusive). */
    async dayTotals(tenantId: string, range: { from: string; to: string; types: readonly string[] }): Promise<LogDayTotal[]> {
      if (range.types.length === 0) return [];
      const day = sql<string>`substr(date, 1, 10)`;
      const rows = await db
        .selectFrom('log_events')
        .select((eb) => [day.as('day'), 'type', eb.fn.countAll<string | number>().as('n'), eb.fn.min('date').as('first'), eb.fn.max('date').as('last')])
        .where('tenant_id', '=', tenantId)
        .where('type', 'in', [...range.types])
        .where('date', '>=', range.from)
        .where('date', '<', range.to)
        .groupBy([day, 'type'])
        .orderBy(day)
        .orderBy('type')
        .execute();
      return rows.map((row) => ({ day: row.day, type: row.type, count: Number(row.n), first: row.first, last: row.last }));
    },
  };
}

export type LogSearchRepository = ReturnType<typeof logSearchRepository>;
