import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../src/services/events/event.js';
import { CookieClient, decodeEntities, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const UA = 'log-events-management-test/1.0';
const AGENT = { 'user-agent': UA };

/**
 * The tenant log of administration and account changes, over the real socket on both dialects: the Management API's
 * outcomes from one hook (`sapi`, `fapi`, `api_limit`), deleted users (`du`), lifted blocks (`ublkdu`), signups
 * (`ss`, `fs`), password reset requests and changes (`scpr`, `scp`, `fcp`), logouts (`slo`), and the Authentication
 * API's rate limit (`api_limit`), with none of the secrets those flows carry.
 */
describe.each(DIALECTS)('tenant log events of administration and account changes, over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  const secrets = new Set<string>();
  const keep = (...values: unknown[]) => {
    for (const value of values) if (typeof value === 'string' && value !== '') secrets.add(value);
  };

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    keep(fx.user.password, fx.web.clientSecret, await server.token());
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 2 })).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function eventsOf(flow: () => Promise<void>, on: TestServer = server): Promise<LogEvent[]> {
    await server.registry.events.flush();
    const last = (await server.registry.storage.logEvents.list(server.registry.tenantId, { limit: 1 })).events[0]?.log_id;
    await flow();
    await on.registry.events.flush();
    await server.registry.events.flush();
    return server.registry.storage.logEvents.after<LogEvent>(server.registry.tenantId, last, 1000);
  }
  const types = (events: LogEvent[]) => events.map((event) => event.type);
  const realm = (username: string, password: string) =>
    postJson(server, '/oauth/token', { grant_type: PASSWORD_REALM, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username, password, realm: fx.connection }, AGENT);
  const mail = async (to: string) => {
    const entry = (await server.registry.outbox.recent(100)).find((candidate) => candidate.message.to === to);
    if (entry?.channel !== 'email') throw new Error(`no e-mail to ${to}`);
    return entry.message.text;
  };

  it('the Management API: `sapi` for a change, nothing for a read, `fapi` for a failure; the route pattern, never values', async () => {
    const events = await eventsOf(async () => {
      const created = await api('POST', '/clients', { name: 'Logged', app_type: 'non_interactive' });
      expect(created.status).toBe(201);
      keep(created.body.client_secret);
      expect((await api('GET', '/clients')).status).toBe(200);
      expect((await api('GET', `/users/${encodeURIComponent('auth0|nobody')}`)).status).toBe(404);
      expect((await fetch(`${server.url}/api/v2/clients`, { headers: AGENT })).status).toBe(401);
      expect((await api('PATCH', `/clients/${String(created.body.client_id)}`, { name: 42 })).status).toBe(400);
    });
    expect(types(events)).toEqual(['sapi', 'fapi', 'fapi', 'fapi']);
    const [created, missing, anonymous, invalid] = events;
    expect(created).toMatchObject({
      description: expect.stringMatching(/^Create a client/),
      client_id: 'test-admin-client',
      client_name: expect.any(String),
      ip: '127.0.0.1',
      details: { request: { method: 'POST', path: '/api/v2/clients' }, response: { statusCode: 201 } },
    });
    expect(created?.user_id).toBeUndefined();
    expect(missing).toMatchObject({ description: expect.stringMatching(/^Get a user/), details: { request: { method: 'GET', path: '/api/v2/users/:id' }, response: { statusCode: 404 } } });
    expect(JSON.stringify(missing)).not.toContain('nobody');
    expect(anonymous).toMatchObject({ user_agent: UA, details: { response: { statusCode: 401 } } });
    expect(anonymous?.client_id).toBeUndefined();
    expect(invalid).toMatchObject({ details: { request: { method: 'PATCH', path: '/api/v2/clients/:id' }, response: { statusCode: 400 } } });
  });

  it('a deleted user is `du` (with who it was) beside the request\'s `sapi`; deleting nobody is no `du`', async () => {
    const user = await api('POST', '/users', { connection: fx.connection, email: `deleted-${dialect}@example.com`, password: 'Some-passw0rd!' });
    keep('Some-passw0rd!');
    const events = await eventsOf(async () => {
      expect((await api('DELETE', `/users/${encodeURIComponent(String(user.body.user_id))}`)).status).toBe(204);
      expect((await api('DELETE', `/users/${encodeURIComponent(String(user.body.user_id))}`)).status).toBe(204);
    });
    expect(types(events)).toEqual(['du', 'sapi', 'sapi']);
    expect(events[0]).toMatchObject({ user_id: user.body.user_id, user_name: `deleted-${dialect}@example.com`, connection: fx.connection, client_id: 'test-admin-client' });
  });

  it('a lifted brute-force block is `ublkdu`, by an administrator or by the e-mailed link', async () => {
    const email = `blocked-${dialect}@example.com`;
    const user = await api('POST', '/users', { connection: fx.connection, email, password: 'Right-passw0rd!' });
    const block = async () => {
      keep('wrong-1', 'wrong-2');
      expect((await realm(email, 'wrong-1')).status).toBe(403);
      expect((await realm(email, 'wrong-2')).status).toBe(403);
      expect((await realm(email, 'Right-passw0rd!')).status).toBe(429);
    };
    await block();
    const byAdministrator = await eventsOf(async () => {
      expect((await api('DELETE', `/user-blocks/${encodeURIComponent(String(user.body.user_id))}`)).status).toBe(204);
    });
    expect(byAdministrator).toMatchObject([
      { type: 'ublkdu', user_id: user.body.user_id, user_name: email, connection: fx.connection, details: { by: 'administrator', blocks: 1 } },
      { type: 'sapi' },
    ]);
    await block();
    const link = decodeEntities(/(https?:\/\/\S+\/u\/unblock\?ticket=\S+)/.exec(await mail(email))?.[1] ?? '');
    keep(new URL(link).searchParams.get('ticket'));
    const byLink = await eventsOf(async () => {
      expect((await fetch(link, { headers: AGENT })).status).toBe(200);
    });
    expect(byLink).toMatchObject([{ type: 'ublkdu', user_id: user.body.user_id, user_name: email, details: { by: 'unblock_link' } }]);
  });

  it('signups: `ss`, `fs` with the reason, from the Authentication API and the hosted page', async () => {
    const signup = (email: string, password: string) => {
      keep(password);
      return postJson(server, '/dbconnections/signup', { client_id: fx.web.clientId, connection: fx.connection, email, password }, AGENT);
    };
    const events = await eventsOf(async () => {
      expect((await signup(`new-${dialect}@example.com`, 'A-fine-passw0rd!')).status).toBe(200);
      expect((await signup(`weak-${dialect}@example.com`, 'qq1')).status).toBe(400);
      expect((await signup(`new-${dialect}@example.com`, 'A-fine-passw0rd!')).status).toBe(400);
      const browser = new CookieClient(server.url);
      const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', state: 'st', screen_hint: 'signup' });
      const page = new URL((await browser.get(`/authorize?${query}`)).headers.get('location') ?? '', server.url);
      const html = await (await browser.get(page.pathname + page.search)).text();
      keep('weakling');
      const refused = await browser.postForm(page.pathname + page.search, { state: inputValue(html, 'state') ?? '', email: `page-${dialect}@example.com`, password: 'weakling' }, AGENT);
      expect(refused.status).toBe(400);
    });
    expect(types(events)).toEqual(['ss', 'fs', 'fs', 'fs']);
    expect(events[0]).toMatchObject({ user_id: expect.stringMatching(/^auth0\|/), user_name: `new-${dialect}@example.com`, client_id: fx.web.clientId, connection: fx.connection, user_agent: UA });
    expect(events[1]).toMatchObject({ user_name: `weak-${dialect}@example.com`, description: 'weak_password' });
    expect(events[2]).toMatchObject({ description: 'user_exists' });
    expect(events[3]).toMatchObject({ user_name: `page-${dialect}@example.com`, description: expect.any(String), user_agent: UA });
  });

  it('password resets: `scpr` for a link sent (to an account only), `fcp` for a refused new password, `scp` for a changed one', async () => {
    const email = `reset-${dialect}@example.com`;
    const user = await api('POST', '/users', { connection: fx.connection, email, password: 'Old-passw0rd!' });
    keep('Old-passw0rd!');
    const requested = await eventsOf(async () => {
      for (const address of [email, 'nobody-here@example.com']) {
        const sent = await postJson(server, '/dbconnections/change_password', { client_id: fx.web.clientId, connection: fx.connection, email: address }, AGENT);
        expect(sent.status).toBe(200);
      }
    });
    expect(requested).toMatchObject([{ type: 'scpr', user_id: user.body.user_id, user_name: email, client_id: fx.web.clientId, connection: fx.connection, user_agent: UA }]);
    const link = decodeEntities(/(https?:\/\/\S+\/u\/reset-password\?ticket=\S+)/.exec(await mail(email))?.[1] ?? '');
    keep(new URL(link).searchParams.get('ticket'));
    const changed = await eventsOf(async () => {
      const browser = new CookieClient(server.url);
      const form = await (await browser.get(link)).text();
      const action = formAction(form) ?? '';
      const state = inputValue(form, 'state') ?? '';
      keep(state, 'weakling', 'New-passw0rd!');
      expect((await browser.postForm(action, { state, 'password-reset': 'weakling', 're-enter-password': 'weakling' }, AGENT)).status).toBe(400);
      expect((await browser.postForm(action, { state, 'password-reset': 'New-passw0rd!', 're-enter-password': 'New-passw0rd!' }, AGENT)).status).toBe(200);
    });
    expect(changed).toMatchObject([
      { type: 'fcp', user_id: user.body.user_id, user_name: email, client_id: fx.web.clientId, user_agent: UA },
      { type: 'scp', user_id: user.body.user_id, user_name: email, connection: fx.connection, user_agent: UA },
    ]);
  });

  it('a logout that ends a session is `slo`, naming the user and the application', async () => {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', state: 'st' });
    const page = new URL((await browser.get(`/authorize?${query}`)).headers.get('location') ?? '', server.url);
    const html = await (await browser.get(page.pathname + page.search)).text();
    const fields = { state: inputValue(html, 'state') ?? '', username: fx.user.email, password: fx.user.password };
    expect((await browser.postForm(page.pathname + page.search, fields)).status).toBe(302);
    keep(browser.cookies.get('lk_session'));
    const events = await eventsOf(async () => {
      expect((await browser.get(`/v2/logout?client_id=${fx.web.clientId}`, AGENT)).status).toBe(200);
      // No session any more: nothing ended, nothing logged.
      expect((await browser.get('/v2/logout', AGENT)).status).toBe(200);
    });
    expect(events).toMatchObject([{ type: 'slo', user_id: fx.user.userId, client_id: fx.web.clientId, connection: fx.connection, user_agent: UA, description: 'User successfully logged out' }]);
  });

  it('a flood over a rate limit is one `api_limit` a minute, on the Management and the Authentication API', async () => {
    // A second node on the same database with tight limits.
    const node = await startTestServer({ dialect, shareWith: server, env: { LATCHKEY_MGMT_RATE_LIMIT: '2/m', LATCHKEY_AUTH_RATE_LIMITS: '/oauth/token=1/m' } });
    try {
      const nodeApi = managementApi(node);
      const events = await eventsOf(async () => {
        const statuses = [];
        for (let i = 0; i < 5; i += 1) statuses.push((await nodeApi('GET', '/clients')).status);
        expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
        // Past the limit (the admin token above took the one request a minute), each is refused.
        const tokens = await Promise.all([1, 2, 3].map(() => node.app.inject({ method: 'POST', url: '/oauth/token', headers: AGENT, payload: { grant_type: 'unknown' } })));
        expect(tokens.map((answer) => answer.statusCode)).toEqual([429, 429, 429]);
      }, node);
      // The node's admin token is `seccft`; then each API's flood is one event.
      expect(types(events)).toEqual(['seccft', 'api_limit', 'api_limit']);
      expect(events[1]).toMatchObject({ ip: '127.0.0.1', details: { request: { method: 'GET', path: '/api/v2/clients' }, response: { statusCode: 429 } } });
      expect(events[2]).toMatchObject({ user_agent: UA, details: { path: '/oauth/token' } });
    } finally {
      await node.close();
    }
  });

  it('stores no password, token, client secret or ticket of these flows in any event', async () => {
    await server.registry.events.flush();
    const stored = (await server.registry.storage.logEvents.list<LogEvent>(server.registry.tenantId, { limit: 10_000, sort: 'asc' })).events;
    const text = JSON.stringify(stored.map(({ log_id: _id, date: _date, ...event }) => event));
    expect(secrets.size).toBeGreaterThan(10);
    for (const secret of secrets) expect(text, `a secret of ${secret.length} characters is in the log`).not.toContain(secret);
  });
});
