import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { logReads, SEARCH_WINDOW, type SearchPage, type SearchResult } from '../../services/events/log-reads.js';
import { ERROR_RESPONSES, FieldsQuery, IdParams } from './schemas.js';

/** One event as the platform answers it (services/events/event.ts). */
export const LogEventSchema = Type.Object(
  {
    log_id: Type.String(),
    date: Type.String({ description: 'When it happened (ISO 8601, UTC).' }),
    type: Type.String({ description: 'The platform\u2019s event type code (e.g. s, f, fp, seccft).' }),
    description: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_name: Type.Optional(Type.String()),
    connection: Type.Optional(Type.String()),
    connection_id: Type.Optional(Type.String()),
    strategy: Type.Optional(Type.String()),
    strategy_type: Type.Optional(Type.String()),
    ip: Type.Optional(Type.String()),
    user_agent: Type.Optional(Type.String()),
    user_id: Type.Optional(Type.String()),
    user_name: Type.Optional(Type.String()),
    hostname: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const LogPage = Type.Object(
  { start: Type.Integer(), limit: Type.Integer(), length: Type.Integer(), total: Type.Integer(), logs: Type.Array(LogEventSchema) },
  { additionalProperties: false },
);
const LogList = Type.Union([Type.Array(LogEventSchema), LogPage]);

const searchPaging = {
  page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page index of the results to return. First page is 0.' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `Number of results per page (at most 100; default 50). A search pages through its first ${SEARCH_WINDOW} results.` })),
  include_totals: Type.Optional(Type.Boolean({ description: `Answer {logs, start, limit, length, total} rather than an array; total counts the matches up to ${SEARCH_WINDOW}.` })),
  sort: Type.Optional(Type.String({ maxLength: 32, description: 'date:-1 (newest first, the default) or date:1.' })),
};

const query = (description: string) => Type.Optional(Type.String({ maxLength: 1024, description }));

const SearchQuery = Type.Object(
  {
    ...searchPaging,
    ...FieldsQuery,
    q: query('Search criteria in the platform\u2019s query syntax (a subset of Lucene\u2019s) over the indexed fields log_id, date, type, user_id, client_id, connection and ip, e.g. type:f AND date:[2026-01-01 TO 2026-01-31].'),
    search: query('The same criteria in the same syntax (the parameter the platform\u2019s newer SDKs send; there an unquoted value matches by prefix, here exactly); q wins when both are given.'),
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Checkpoint paging: the log_id after which to read, in log order. With from or take, every other parameter is ignored.' })),
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Checkpoint paging: how many events to read (at most 100; default 50).' })),
  },
  { additionalProperties: false },
);

const UserLogsQuery = Type.Object(searchPaging, { additionalProperties: false });

const DailyStatsSchema = Type.Object(
  {
    date: Type.String({ description: 'The day (its start, ISO 8601, UTC).' }),
    logins: Type.Integer(),
    signups: Type.Integer(),
    leaked_passwords: Type.Integer(),
    updated_at: Type.String({ description: 'The date of the day\u2019s last counted event.' }),
    created_at: Type.String({ description: 'The date of the day\u2019s first counted event.' }),
  },
  { additionalProperties: false },
);

const day = (description: string) => Type.Optional(Type.String({ maxLength: 8, description }));

/** The answer of a search: an array, or with include_totals the platform's page object. */
function searchAnswer(result: SearchResult, page: SearchPage) {
  if (result.total === undefined) return result.events;
  return { start: page.page * page.perPage, limit: page.perPage, length: result.events.length, total: result.total, logs: result.events };
}

const pageOf = (query: { page?: number; per_page?: number; sort?: string; include_totals?: boolean }): SearchPage => ({
  page: query.page ?? 0,
  perPage: query.per_page ?? 50,
  sort: query.sort,
  includeTotals: query.include_totals,
});

/**
 * The tenant log, read as the platform serves it: `GET /logs` by search criteria or by checkpoint, one event, a
 * user's events, and the statistics drawn from the log. Recording is services/events/recorder.ts's.
 *
 * The shared list handler (resource-handlers.ts) does not fit these lists: the platform's page object for logs has
 * a `length` beside `start`, `limit` and `total`, and its checkpoint is an event's log_id (with a `Link` header to
 * the next request), where the other lists answer `{<key>, next}` with an opaque offset cursor.
 */
export function logsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const logs = logReads(registry);

    app.get(
      '/logs',
      {
        config: { scopes: ['read:logs'] },
        schema: { tags: ['logs'], summary: 'Search log events, or read them by checkpoint (from, take)', querystring: SearchQuery, response: { 200: LogList, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const { from, take } = request.query;
        if (from !== undefined || take !== undefined) {
          const count = take ?? 50;
          const events = await logs.checkpoint(from, count);
          // Where to read on, as the platform says it: a Link header naming the next request.
          const last = events.at(-1)?.log_id ?? from;
          if (last !== undefined) reply.header('link', `<${registry.issuer}/api/v2/logs?from=${last}&take=${count}>; rel="next"`);
          return events;
        }
        const page = pageOf(request.query);
        return searchAnswer(await logs.search(request.query.q ?? request.query.search, page), page);
      },
    );

    app.get(
      '/logs/:id',
      {
        config: { scopes: ['read:logs'] },
        schema: { tags: ['logs'], summary: 'Get a log event', params: IdParams('The event\u2019s log_id.', 64), querystring: Type.Object(FieldsQuery, { additionalProperties: false }), response: { 200: LogEventSchema, ...ERROR_RESPONSES } },
      },
      async (request) => logs.get(request.params.id),
    );

    app.get(
      '/users/:id/logs',
      {
        config: { scopes: ['read:logs', 'read:logs_users'] },
        schema: {
          tags: ['users'],
          summary: 'Get a user\u2019s log events',
          params: IdParams('User id, e.g. auth0|abc (the | may be URL-encoded as %7C).', 300),
          querystring: UserLogsQuery,
          response: { 200: LogList, ...ERROR_RESPONSES },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        return searchAnswer(await logs.ofUser(request.params.id, page), page);
      },
    );

    app.get(
      '/stats/active-users',
      { config: { scopes: ['read:stats'] }, schema: { tags: ['stats'], summary: 'Users who logged in during the last 30 days', response: { 200: Type.Integer(), ...ERROR_RESPONSES } } },
      async () => logs.activeUsers(),
    );

    app.get(
      '/stats/daily',
      {
        config: { scopes: ['read:stats'] },
        schema: {
          tags: ['stats'],
          summary: 'Logins, signups and leaked passwords per day',
          querystring: Type.Object({ from: day('First day (YYYYMMDD, inclusive; default 29 days before to).'), to: day('Last day (YYYYMMDD, inclusive; default today, UTC).') }, { additionalProperties: false }),
          response: { 200: Type.Array(DailyStatsSchema), ...ERROR_RESPONSES },
        },
      },
      async (request) => logs.daily(request.query.from, request.query.to),
    );
  };
}
