import type { LogCondition } from '../../storage/repositories/log-search.js';
import { isLogId } from '../../storage/repositories/log-events.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import type { LogEvent, LogEventType } from './event.js';
import { parseLogQuery } from './log-query.js';

/**
 * Reading the tenant log: searches (`GET /api/v2/logs`, `GET /api/v2/users/{id}/logs`), checkpoint paging, one
 * event, and the statistics the platform derives from the log (`/api/v2/stats/*`).
 */

/**
 * How far a search pages, as on the platform ("you may paginate only through 1,000 search results"): past it,
 * narrow the search or page by checkpoint. It also bounds what a search costs: an offset is read and thrown
 * away, and a total is counted no further than this (`total` is at most SEARCH_WINDOW).
 */
export const SEARCH_WINDOW = 1000;

/**
 * Sign-ins that count as logins in the statistics and for active users: the ones that count a login on the user
 * (services/users.ts `withLogin`): a login in the browser, whatever its connection (signing up logs in too), and
 * the password and one-time-code grants. A refresh is not a login.
 */
export const LOGIN_TYPES: readonly LogEventType[] = ['s', 'sepft', 'sepotpft'];
const SIGNUP_TYPES: readonly LogEventType[] = ['ss'];
const LEAKED_PASSWORD_TYPES: readonly LogEventType[] = ['pwd_leak'];
const ACTIVE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface SearchPage {
  page: number;
  perPage: number;
  /** `date:1` or `date:-1` (the default). */
  sort?: string | undefined;
  includeTotals?: boolean | undefined;
}

export interface SearchResult {
  events: LogEvent[];
  /** With `includeTotals`: the matching events, counted up to SEARCH_WINDOW. */
  total?: number;
}

/** The platform's daily statistics entry. */
export interface DailyStats {
  date: string;
  logins: number;
  signups: number;
  leaked_passwords: number;
  /** The date of the day's last counted event. */
  updated_at: string;
  /** The date of the day's first counted event. */
  created_at: string;
}

const invalidQuery = (message: string) => new ServiceError('invalid', message, 'invalid_query_string');

/** `sort` as the platform spells it (`<field>:1` or `<field>:-1`); the log is kept in date order only. */
function sortOrder(sort: string | undefined): 'asc' | 'desc' {
  if (sort === undefined || sort === '' || sort === 'date:-1') return 'desc';
  if (sort === 'date:1') return 'asc';
  const field = /^([a-z_]+):(?:1|-1)$/.exec(sort)?.[1];
  throw invalidQuery(
    field === undefined
      ? `Query validation error: 'sort' must be a field and a direction, as in date:-1.`
      : `Query validation error: the log is sorted by date only (date:1 or date:-1), not by ${field}.`,
  );
}

/** `YYYYMMDD` as the epoch milliseconds of that UTC day's start. */
function statsDay(text: string, name: 'from' | 'to'): number {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  const day = match ? `${match[1]}-${match[2]}-${match[3]}` : '';
  const at = Date.parse(`${day}T00:00:00.000Z`);
  if (!match || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== day) {
    throw invalidQuery(`Query validation error: '${name}' must be a day in the form YYYYMMDD, not "${text}".`);
  }
  return at;
}

export function logReads(deps: { storage: Pick<Storage, 'logEvents' | 'logSearch'>; tenantId: string; now: () => Date }) {
  const { storage, tenantId } = deps;

  async function search(match: LogCondition | undefined, page: SearchPage): Promise<SearchResult> {
    const offset = page.page * page.perPage;
    if (offset + page.perPage > SEARCH_WINDOW) {
      throw invalidQuery(
        `Query validation error: a search pages through its first ${SEARCH_WINDOW} results only (here up to result ${offset + page.perPage}). Narrow the search (q, e.g. a date range) or page by checkpoint (from, take).`,
      );
    }
    const sort = sortOrder(page.sort);
    const events = await storage.logSearch.find<LogEvent>(tenantId, { ...(match ? { match } : {}), sort, offset, limit: page.perPage });
    if (!page.includeTotals) return { events };
    return { events, total: await storage.logSearch.count(tenantId, match, SEARCH_WINDOW) };
  }

  return {
    /** `GET /api/v2/logs` by search criteria: `q` in the platform's query syntax (services/events/log-query.ts). */
    search: (query: string | undefined, page: SearchPage) => search(query === undefined ? undefined : parseLogQuery(query), page),

    /** A user's events (`GET /api/v2/users/{id}/logs`): the search `user_id:"<id>"`. */
    ofUser: (userId: string, page: SearchPage) => search({ column: 'user_id', equals: userId }, page),

    /**
     * Checkpoint paging: up to `take` events stored after the event `from` (from the oldest when absent), in log
     * order. Ids are given out in commit order (repositories/log-events.ts), so reading on from the last id
     * returned never skips an event stored meanwhile, nor repeats one.
     */
    async checkpoint(from: string | undefined, take: number): Promise<LogEvent[]> {
      if (from !== undefined && !isLogId(from)) throw invalidQuery(`Query validation error: 'from' must be the log_id of an event, not "${from}".`);
      return storage.logEvents.after<LogEvent>(tenantId, from, take);
    },

    async get(logId: string): Promise<LogEvent> {
      const event = isLogId(logId) ? await storage.logEvents.get<LogEvent>(tenantId, logId) : undefined;
      if (!event) throw new ServiceError('not_found', 'The log event does not exist.', 'inexistent_log');
      return event;
    },

    /** Users with a login in the last 30 days. */
    activeUsers: () => storage.logEvents.activeUsers(tenantId, { since: new Date(deps.now().getTime() - ACTIVE_DAYS * DAY_MS).toISOString(), types: LOGIN_TYPES }),

    /**
     * Logins, signups and leaked passwords per UTC day from `from` to `to` (both `YYYYMMDD`, inclusive; by default
     * the last 30 days up to today). Only days with at least one such event are listed, oldest first.
     */
    async daily(fromText: string | undefined, toText: string | undefined): Promise<DailyStats[]> {
      const today = Math.floor(deps.now().getTime() / DAY_MS) * DAY_MS;
      const to = toText === undefined ? today : statsDay(toText, 'to');
      const from = fromText === undefined ? to - (ACTIVE_DAYS - 1) * DAY_MS : statsDay(fromText, 'from');
      if (from > to) throw invalidQuery(`Query validation error: 'from' (${fromText ?? ''}) is after 'to' (${toText ?? ''}).`);
      const totals = await storage.logSearch.dayTotals(tenantId, {
        from: new Date(from).toISOString(),
        to: new Date(to + DAY_MS).toISOString(),
        types: [...LOGIN_TYPES, ...SIGNUP_TYPES, ...LEAKED_PASSWORD_TYPES],
      });
      const days = new Map<string, DailyStats>();
      for (const total of totals) {
        const entry = days.get(total.day) ?? { date: `${total.day}T00:00:00.000Z`, logins: 0, signups: 0, leaked_passwords: 0, created_at: total.first, updated_at: total.last };
        const type = total.type as LogEventType;
        if (LOGIN_TYPES.includes(type)) entry.logins += total.count;
        else if (SIGNUP_TYPES.includes(type)) entry.signups += total.count;
        else entry.leaked_passwords += total.count;
        if (total.first < entry.created_at) entry.created_at = total.first;
        if (total.last > entry.updated_at) entry.updated_at = total.last;
        days.set(total.day, entry);
      }
      return [...days.values()];
    },
  };
}

export type LogReads = ReturnType<typeof logReads>;
