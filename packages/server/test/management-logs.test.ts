import type { ManagementClient, Management } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../src/services/events/event.js';
import { MAX_TERMS } from '../src/services/events/log-query.js';
import { SEARCH_WINDOW } from '../src/services/events/log-reads.js';
import { logIdOf } from '../src/storage/repositories/log-events.js';
import { CookieClient, inputValue } from './support/browser-client.js';
import type { TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/** Events stored straight through the repository, dated in 2024 so that a date range sets them apart. */
interface Seeded {
  date: string;
  type: string;
  user_id?: string;
  client_id?: string;
  connection?: string;
  ip?: string;
  description: string;
}
const SEEDED: Seeded[] = [
  { date: '2024-03-01T10:00:00.000Z', type: 's', user_id: 'u1', client_id: 'c1', connection: 'db', ip: '10.0.0.1', description: 'e1' },
  { date: '2024-03-01T23:59:59.999Z', type: 'f', user_id: 'u1', client_id: 'c1', connection: 'db', ip: '10.0.0.2', description: 'e2' },
  { date: '2024-03-02T00:00:00.000Z', type: 's', user_id: 'u2', client_id: 'c2', connection: 'email', ip: '10.0.0.1', description: 'e3' },
  { date: '2024-03-03T12:00:00.000Z', type: 'fp', user_id: 'u2', client_id: 'c1', connection: 'db', ip: '10.0.0.3', description: 'e4' },
  { date: '2024-03-04T08:00:00.000Z', type: 'seccft', client_id: 'c3', ip: '10.0.0.4', description: 'e5' },
  { date: '2024-03-05T00:00:00.000Z', type: 's', user_id: 'auth0|x:y', client_id: 'c2', connection: 'db', ip: '2001:db8::1', description: 'e6' },
  { date: '2024-03-05T09:00:00.000Z', type: 'ss', user_id: 'auth0|x:y', client_id: 'c2', connection: 'db', ip: '2001:db8::1', description: 'e7' },
  { date: '2024-03-05T09:30:00.000Z', type: 'pwd_leak', user_id: 'u1', client_id: 'c1', connection: 'db', ip: '10.0.0.1', description: 'e8' },
  { date: '2024-03-05T10:00:00.000Z', type: 'sepft', user_id: 'u2', client_id: 'c1', connection: 'db', ip: '10.0.0.3', description: 'e9' },
];
const IN_2024 = 'date:[2024-01-01 TO 2024-12-31]';

/**
 * Reading the tenant log through the Management API on both dialects: the official Management SDK (npm auth0, v7)
 * over HTTPS reads the events of real logins, a user's events and the statistics; `q` in the platform's query
 * syntax (valid and refused queries); checkpoint paging while events are being written; scopes.
 */
describe.each(DIALECTS)('tenant log through the Management API (%s)', (dialect) => {
  let sdk: SdkServer;
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let management: ManagementClient;
  let seededIds: string[];

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect });
    ({ server, management } = sdk);
    // Seeded first, before anything the set-up records (buffered events are stored whenever the writer runs): the
    // tests read them as the oldest events of the log.
    const expiresAt = '2999-01-01T00:00:00.000Z';
    seededIds = await server.registry.storage.transaction((repos) => repos.logEvents.insertBatch(server.registry.tenantId, SEEDED.map((event) => ({ event, expiresAt }))));
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
  }, 60_000);
  afterAll(async () => sdk?.close());

  /** A login on the hosted page over the real socket; answers the status of the form post. */
  async function pageLogin(password: string): Promise<number> {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'st' });
    const start = await browser.get(`/authorize?${query}`);
    const page = new URL(start.headers.get('location') ?? '', server.url);
    const html = await (await browser.get(page.pathname + page.search)).text();
    const answer = await browser.postForm(page.pathname + page.search, { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '', username: fx.user.email, password });
    return answer.status;
  }

  const descriptions = (body: unknown) => (body as Seeded[]).map((event) => event.description);
  const search = async (q: string, extra = '') => api('GET', `/logs?q=${encodeURIComponent(q)}&sort=date:1${extra}`);

  it('the official SDK reads the events of a failed and a successful login, the user’s events, one event, and the stats', async () => {
    expect(await pageLogin('not the password')).not.toBe(302);
    expect(await pageLogin(fx.user.password)).toBe(302);
    await server.registry.events.flush();

    const page = await management.logs.list({ search: `user_id:"${fx.user.userId}"`, sort: 'date:1', per_page: 10 });
    expect(page.data.map((event) => event.type)).toEqual(['fp', 's']);
    const [failed, succeeded] = page.data;
    expect(failed).toMatchObject({ type: 'fp', user_id: fx.user.userId, user_name: fx.user.email, client_id: fx.web.clientId, connection: fx.connection, ip: '127.0.0.1' });
    expect(succeeded).toMatchObject({ type: 's', description: 'Successful login', user_id: fx.user.userId, client_name: expect.stringMatching(/^Web /), strategy: 'auth0', strategy_type: 'database' });
    // The SDK asks for totals by default: the platform's page object.
    expect(page.response).toMatchObject({ start: 0, limit: 10, length: 2, total: 2 });

    const one = await management.logs.get(String(succeeded?.log_id));
    expect(one).toEqual(succeeded);
    const failures = await management.logs.list({ search: `type:fp AND client_id:${fx.web.clientId}` });
    expect(failures.data.map((event) => event.log_id)).toEqual([failed?.log_id]);

    const ofUser = await management.users.logs.list(fx.user.userId, { per_page: 1, sort: 'date:-1' });
    expect(ofUser.data.map((event) => event.type)).toEqual(['s']);
    expect(ofUser.response).toMatchObject({ start: 0, limit: 1, length: 1, total: 2 });
    // The SDK pages on until a short page.
    const all: string[] = [];
    for await (const event of await management.users.logs.list(fx.user.userId, { per_page: 1, sort: 'date:1' })) all.push(String(event.type));
    expect(all).toEqual(['fp', 's']);

    expect(await management.stats.getActiveUsersCount()).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    const daily = await management.stats.getDaily({ from: today.replaceAll('-', ''), to: today.replaceAll('-', '') });
    expect(daily).toEqual([{ date: `${today}T00:00:00.000Z`, logins: 1, signups: 0, leaked_passwords: 0, created_at: succeeded?.date, updated_at: succeeded?.date }]);
  });

  it('the official SDK manages an http log stream: create, list, get, update (pause), delete, in the shapes its types declare', async () => {
    // Nothing listens on the discard port: delivery, were it to try before the stream is paused, is refused at once.
    const request: Management.CreateLogStreamHttpRequestBody = {
      name: `SIEM ${dialect}`,
      type: 'http',
      filters: [
        { type: 'category', name: 'auth.login.fail' },
        { type: 'category', name: 'auth.silent_auth.fail' },
      ],
      sink: {
        httpEndpoint: 'https://127.0.0.1:9/ingest',
        httpContentType: 'application/json',
        httpContentFormat: 'JSONLINES',
        httpAuthorization: 'Bearer sdk-stream-credential-0123',
        httpCustomHeaders: [{ header: 'X-Api-Key', value: 'sdk-header-key-4567' }],
      },
    };
    const created = await management.logStreams.create(request);
    // Typed as the SDK's own answer schema, and compared whole: no field the SDK does not declare, none missing.
    const expected: Management.LogStreamHttpResponseSchema = {
      id: expect.stringMatching(/^lst_/) as string,
      name: `SIEM ${dialect}`,
      type: 'http',
      status: 'active',
      isPriority: false,
      filters: request.filters,
      sink: {
        httpEndpoint: 'https://127.0.0.1:9/ingest',
        httpContentType: 'application/json',
        httpContentFormat: 'JSONLINES',
        httpAuthorization: '****0123',
        httpCustomHeaders: [{ header: 'X-Api-Key', value: '****4567' }],
      },
    };
    expect(created).toEqual(expected);
    const id = String(created.id);

    const listed: Management.LogStreamResponseSchema[] = await management.logStreams.list();
    expect(listed).toEqual([created]);
    const got: Management.GetLogStreamResponseContent = await management.logStreams.get(id);
    expect(got).toEqual(created);

    const paused: Management.UpdateLogStreamResponseContent = await management.logStreams.update(id, { status: 'paused', name: `SIEM ${dialect} (paused)` });
    expect(paused).toEqual({ ...created, status: 'paused', name: `SIEM ${dialect} (paused)` });
    const resinked = await management.logStreams.update(id, { sink: { httpEndpoint: 'https://127.0.0.1:9/other', httpContentFormat: 'JSONARRAY' } });
    // The credentials not sent again are kept (shown masked as before).
    expect(resinked).toEqual({ ...paused, sink: { ...created.sink, httpEndpoint: 'https://127.0.0.1:9/other', httpContentFormat: 'JSONARRAY' } });
    expect(await management.logStreams.get(id)).toEqual(resinked);

    await management.logStreams.delete(id);
    expect(await management.logStreams.list()).toEqual([]);
    await expect(management.logStreams.get(id)).rejects.toMatchObject({ statusCode: 404, body: { errorCode: 'inexistent_resource' } });
  });

  it('answers the daily stats of a range from the events of each day', async () => {
    const stats = await api('GET', '/stats/daily?from=20240301&to=20240305');
    expect(stats).toMatchObject({ status: 200 });
    expect(stats.body).toEqual([
      { date: '2024-03-01T00:00:00.000Z', logins: 1, signups: 0, leaked_passwords: 0, created_at: '2024-03-01T10:00:00.000Z', updated_at: '2024-03-01T10:00:00.000Z' },
      { date: '2024-03-02T00:00:00.000Z', logins: 1, signups: 0, leaked_passwords: 0, created_at: '2024-03-02T00:00:00.000Z', updated_at: '2024-03-02T00:00:00.000Z' },
      { date: '2024-03-05T00:00:00.000Z', logins: 2, signups: 1, leaked_passwords: 1, created_at: '2024-03-05T00:00:00.000Z', updated_at: '2024-03-05T10:00:00.000Z' },
    ]);
    expect((await api('GET', '/stats/daily?from=20240302&to=20240302')).body).toHaveLength(1);
    for (const query of ['from=2024-03-01', 'to=20240230', 'from=20240305&to=20240301', 'from=yesterday']) {
      expect(await api('GET', `/stats/daily?${query}`), query).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
    }
  });

  it.each([
    ['type:s', ['e1', 'e3', 'e6']],
    ['type:s AND date:[2024-03-01 TO 2024-03-02]', ['e1', 'e3']],
    ['date:{2024-03-01 TO 2024-03-05}', ['e3', 'e4', 'e5']],
    ['date:[* TO 2024-03-01]', ['e1', 'e2']],
    ['date:2024-03-01', ['e1', 'e2']],
    ['date:[2024-03-02T00:00:00Z TO 2024-03-03T12:00:00.000Z]', ['e3', 'e4']],
    ['date:{2024-03-02T00:00:00Z TO 2024-03-03T12:00:00.000Z]', ['e4']],
    ['date:"2024-03-02T00:00:00.000Z"', ['e3']],
    ['user_id:"auth0|x:y"', ['e6', 'e7']],
    ['user_id:auth0\\|x\\:y AND type:ss', ['e7']],
    ['client_id:c1 AND NOT type:f', ['e1', 'e4', 'e8', 'e9']],
    ['client_id:c1 NOT type:f', ['e1', 'e4', 'e8', 'e9']],
    ['client_id:c1 && !type:f && -type:fp', ['e1', 'e8', 'e9']],
    [`NOT type:s AND ${IN_2024}`, ['e2', 'e4', 'e5', 'e7', 'e8', 'e9']],
    [`NOT (type:s OR type:f OR type:fp OR type:ss OR type:pwd_leak) AND ${IN_2024}`, ['e5', 'e9']],
    ['type:(f OR fp)', ['e2', 'e4']],
    ['ip:"2001:db8::1" AND type:s', ['e6']],
    ['connection:email OR ip:10.0.0.4', ['e3', 'e5']],
    [`-connection:db AND ${IN_2024}`, ['e3', 'e5']],
    ['type:s user_id:u2', ['e3']],
    [`NOT date:[2024-03-02 TO 2024-03-05] AND ${IN_2024}`, ['e1', 'e2']],
    ['type:s OR type:sepft AND user_id:u2', ['e1', 'e3', 'e6', 'e9']],
    ['(type:s OR type:sepft) AND user_id:u2', ['e3', 'e9']],
  ])('q=%s', async (q, expected) => {
    const found = await search(`(${q}) AND ${IN_2024}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(descriptions(found.body)).toEqual(expected);
  });

  it('sorts, pages, counts and projects a search; ranges and the single read of log_id', async () => {
    const newestFirst = await api('GET', `/logs?q=${encodeURIComponent(IN_2024)}&per_page=3&page=1`);
    expect(descriptions(newestFirst.body)).toEqual(['e6', 'e5', 'e4']);
    const counted = await api('GET', `/logs?q=${encodeURIComponent(IN_2024)}&per_page=2&page=1&include_totals=true&sort=date:1&fields=type,description&include_fields=true`);
    expect(counted.body).toEqual({ start: 2, limit: 2, length: 2, total: SEEDED.length, logs: [{ type: 's', description: 'e3' }, { type: 'fp', description: 'e4' }] });
    const between = await search(`log_id:[${seededIds[1]} TO ${seededIds[3]}]`);
    expect(descriptions(between.body)).toEqual(['e2', 'e3', 'e4']);
    expect(descriptions((await search(`log_id:{${seededIds[1]} TO *}`, '&per_page=2')).body)).toEqual(['e3', 'e4']);
    const one = await api('GET', `/logs/${seededIds[0]}?fields=date,type`);
    expect(one).toEqual({ status: 200, body: { date: SEEDED[0]?.date, type: 's' } });
    expect(await api('GET', `/logs/${logIdOf(999_999)}`)).toMatchObject({ status: 404, body: { errorCode: 'inexistent_log', message: 'The log event does not exist.' } });
    expect(await api('GET', '/logs/not-an-id')).toMatchObject({ status: 404, body: { errorCode: 'inexistent_log' } });
    // A user's events are the search user_id:<id>, sorted, paged and counted alike.
    const ofUser = await api('GET', `/users/${encodeURIComponent('auth0|x:y')}/logs?sort=date:1&include_totals=true`);
    expect(ofUser.body).toMatchObject({ start: 0, limit: 50, length: 2, total: 2 });
    expect(descriptions((ofUser.body as unknown as { logs: Seeded[] }).logs)).toEqual(['e6', 'e7']);
    expect(await api('GET', '/users/nobody/logs')).toEqual({ status: 200, body: [] });
  });

  it.each([
    ['type:', /not a valid query at column 6: the query ends too soon/],
    ['(type:s', /not a valid query/],
    ['type:s )', /not a valid query at column 8: "\)" was not expected/],
    ['user_name:x', /"user_name", which is not indexed here and cannot be searched\. Searchable fields: log_id, date, type, user_id, client_id, connection, ip\./],
    ['description:"Wrong password"', /"description", which is not indexed/],
    ['colour:blue', /unknown field "colour"/],
    ['jane', /needs a field for every term, as in type:s; "jane" has none/],
    ['type:s*', /wildcard in "s\*"/],
    ['user_id:auth0?abc', /wildcard/],
    ['type:s~', /fuzzy or proximity/],
    ['user_id:"a b"~2', /fuzzy or proximity/],
    ['type:/s.*/', /regular expression/],
    ['type:s^2', /boost/],
    ['ip:[10.0.0.1 TO 10.0.0.9]', /range on "ip"; ranges apply to date and log_id only/],
    ['date:yesterday', /neither a day \(YYYY-MM-DD\) nor an ISO 8601 instant: "yesterday"/],
    ['date:2024-02-30', /neither a day/],
    ['date:[2024-01-01 TO tomorrow]', /neither a day/],
    [Array.from({ length: MAX_TERMS + 1 }, (_, i) => `type:t${i}`).join(' OR '), new RegExp(`more than ${MAX_TERMS} terms`)],
  ])('refuses q=%s with 400', async (q, message) => {
    const refused = await api('GET', `/logs?q=${encodeURIComponent(q)}`);
    expect(refused).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', errorCode: 'invalid_query_string' } });
    expect(String(refused.body.message)).toMatch(/^Query validation error: 'q' /);
    expect(String(refused.body.message)).toMatch(message);
  });

  it('refuses other parameters out of bounds with 400 in the Management shape', async () => {
    for (const [query, message] of [
      ['sort=type:1', /sorted by date only \(date:1 or date:-1\), not by type/],
      ['sort=newest', /'sort' must be a field and a direction/],
      ['page=10&per_page=100', new RegExp(`first ${SEARCH_WINDOW} results only \\(here up to result 1100\\)`)],
      ['page=20', /first 1000 results only/],
      ['per_page=101', /per_page/],
      ['take=101', /take/],
      ['from=abc', /'from' must be the log_id of an event, not "abc"/],
      ['unknown=1', /unknown/],
    ] as const) {
      const refused = await api('GET', `/logs?${query}`);
      expect(refused, query).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
      expect(String(refused.body.message), query).toMatch(message);
    }
    const fine = await api('GET', `/logs?page=9&per_page=100&q=${encodeURIComponent(IN_2024)}`);
    expect(fine).toEqual({ status: 200, body: [] });
  });

  it('pages by checkpoint while events are being written: every event once, in log order, by the Link header', async () => {
    const { events, storage } = server.registry;
    await events.flush();
    const before = (await storage.logEvents.list(server.registry.tenantId, { limit: 1 })).events[0]?.log_id;
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 25; round += 1) {
        for (let i = 0; i < 7; i += 1) events.record({ type: 'sapi', description: `round ${round} #${i}` });
        // Some rounds wait for their write, some race the reader.
        if (round % 3 === 0) await events.flush();
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await events.flush();
      writing = false;
    })();

    const seen: string[] = [];
    let next = `${server.url}/api/v2/logs?from=${before}&take=6`;
    const token = await server.token('read:logs');
    for (;;) {
      const stillWriting = writing;
      const response = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const page = (await response.json()) as LogEvent[];
      seen.push(...page.map((event) => event.log_id));
      // The Link header names the next request: from the last event returned (or the same place when none was).
      const link = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
      expect(link).toBeDefined();
      next = (link ?? '').replace(server.registry.issuer, server.url);
      expect(new URL(next).searchParams.get('from')).toBe(page.at(-1)?.log_id ?? new URL(response.url).searchParams.get('from'));
      if (page.length === 0 && !stillWriting) break;
    }
    await writer;
    const stored = await storage.logEvents.after<LogEvent>(server.registry.tenantId, before, 1000);
    expect(stored.filter((event) => event.type === 'sapi' && event.description?.startsWith('round '))).toHaveLength(25 * 7);
    expect(seen).toEqual(stored.map((event) => event.log_id));
    expect(new Set(seen).size).toBe(seen.length);

    // From the start: the oldest events first; `take` alone starts there too.
    const first = await api('GET', '/logs?take=2');
    expect(first.body.map((event) => event.log_id)).toEqual([seededIds[0], seededIds[1]]);
    expect((await api('GET', `/logs?from=${seededIds[0]}&take=1&q=type:zzz&page=3`)).body.map((event) => event.log_id)).toEqual([seededIds[1]]);
  });

  it('asks for read:logs, read:logs_users or read:stats: 401 without a token, 403 without the scope', async () => {
    const userPath = `/users/${encodeURIComponent(fx.user.userId)}/logs`;
    const cases = [
      ['/logs', 'read:logs'],
      [`/logs/${seededIds[0]}`, 'read:logs'],
      [userPath, 'read:logs,read:logs_users'],
      ['/stats/active-users', 'read:stats'],
      ['/stats/daily', 'read:stats'],
    ] as const;
    for (const [path, scopes] of cases) {
      const anonymous = await fetch(`${server.url}/api/v2${path}`);
      expect(anonymous.status, path).toBe(401);
      expect(await anonymous.json()).toMatchObject({ statusCode: 401, errorCode: 'invalid_token' });
      expect(await api('GET', path, undefined, await server.token('read:users')), path).toMatchObject({
        status: 403,
        body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scopes}` },
      });
      for (const scope of scopes.split(',')) expect((await api('GET', path, undefined, await server.token(scope))).status, `${path} ${scope}`).toBe(200);
    }
    expect((await api('GET', '/logs', undefined, await server.token('read:logs_users'))).status).toBe(403);
  });
});
