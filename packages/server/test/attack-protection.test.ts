import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTexts } from '../src/services/rendering/texts/index.js';
import { CookieClient, decodeEntities, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { postJson } from './support/json-post.js';
import { DIALECTS } from './support/services.js';

const REALM = 'http://auth0.com/oauth/grant-type/password-realm';

const post = postJson;

/** What the login page says when brute-force protection has blocked the account from this address. */
const BLOCKED_TEXT = defaultTexts('login', 'en')['too-many-attempts'] ?? 'missing text';

const passwordLogin = (server: TestServer, fx: LoginFixture, username: string, password: string) =>
  post(server, '/oauth/token', { grant_type: REALM, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username, password, realm: fx.connection, scope: 'openid' });

describe.each(DIALECTS)('brute-force protection and user blocks over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  it('shows and changes the settings through the Management API, validating them', async () => {
    const defaults = await api('GET', '/attack-protection/brute-force-protection');
    expect(defaults.body).toEqual({ enabled: true, shields: ['block', 'user_notification'], allowlist: [], mode: 'count_per_identifier_and_ip', max_attempts: 10 });
    const changed = await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 3 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ enabled: true, max_attempts: 3 });
    expect((await api('GET', '/attack-protection/brute-force-protection')).body).toMatchObject({ max_attempts: 3 });
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 0 })).status).toBe(400);
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { shields: ['laser'] })).status).toBe(400);
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { surprise: true })).status).toBe(400);
    expect((await api('GET', '/attack-protection/brute-force-protection')).body).toMatchObject({ max_attempts: 3, shields: ['block', 'user_notification'] });
    const readOnly = await server.token('read:attack_protection');
    const refused = await api('PATCH', '/attack-protection/suspicious-ip-throttling', { enabled: false }, readOnly);
    expect([refused.status, (refused.body as unknown as { errorCode: string }).errorCode]).toEqual([403, 'insufficient_scope']);
    expect((await api('GET', '/attack-protection/suspicious-ip-throttling')).body).toMatchObject({ enabled: true, stage: { 'pre-login': { max_attempts: 100, rate: 864000 } } });
    expect((await api('GET', '/attack-protection/breached-password-detection')).body).toMatchObject({ enabled: false, method: 'standard' });
  });

  it('blocks an account from an address after consecutive failures, e-mails an unblock link that lifts it', async () => {
    const email = `victim-${dialect}@example.com`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    const userId = String((created.body as unknown as { user_id: string }).user_id);
    // A success in between starts the count again.
    for (let i = 0; i < 2; i += 1) expect((await passwordLogin(server, fx, email, 'wrong')).status).toBe(403);
    expect((await passwordLogin(server, fx, email, fx.user.password)).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await passwordLogin(server, fx, email, 'wrong')).json.error).toBe('invalid_grant');
    // Now even the right password is refused, by every way in.
    const askedAt = performance.now();
    const blocked = await passwordLogin(server, fx, email, fx.user.password);
    expect([blocked.status, blocked.json.error]).toEqual([429, 'too_many_attempts']);
    // Held back like a rate-limited request (1 s ± 25 %), so an attacker's connections cannot come straight back.
    expect(performance.now() - askedAt).toBeGreaterThanOrEqual(740);
    expect(String(blocked.json.error_description)).toContain('blocked after multiple consecutive login attempts');
    // The hosted login page refuses too, and as slowly as the API.
    const browser = new CookieClient(server.url);
    const start = await browser.get(`/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', state: 's' }).toString()}`);
    const loginPath = start.headers.get('location') ?? '';
    const loginHtml = await (await browser.get(loginPath)).text();
    const pagePostedAt = performance.now();
    const page = await browser.postForm(loginPath, { state: inputValue(loginHtml, 'state') ?? '', username: email, password: fx.user.password });
    expect(performance.now() - pagePostedAt).toBeGreaterThanOrEqual(740);
    expect(page.status).toBe(400);
    expect(decodeEntities(await page.text())).toContain(BLOCKED_TEXT);
    expect(browser.cookies.has('lk_session')).toBe(false);
    const co = await post(server, '/co/authenticate', { client_id: fx.spa.clientId, credential_type: REALM, username: email, password: fx.user.password, realm: fx.connection }, { origin: fx.spa.origin });
    expect([co.status, co.json.error]).toEqual([429, 'too_many_attempts']);
    // Other accounts from this address are not affected.
    expect((await passwordLogin(server, fx, fx.user.email, fx.user.password)).status).toBe(200);

    expect((await api('GET', `/user-blocks/${encodeURIComponent(userId)}`)).body).toEqual({ blocked_for: [{ identifier: email, ip: '127.0.0.1', connection: fx.connection }] });
    expect((await api('GET', `/user-blocks?identifier=${encodeURIComponent(email.toUpperCase())}`)).body).toEqual({ blocked_for: [{ identifier: email, ip: '127.0.0.1', connection: fx.connection }] });
    expect((await api('GET', '/user-blocks/auth0%7Cnobody')).status).toBe(404);

    const mail = (await server.registry.outbox.recent()).find((entry) => entry.message.to === email && entry.channel === 'email');
    expect(mail?.channel === 'email' ? mail.message.subject : '').toBe('Your account was blocked');
    const link = /(https?:\/\/\S+\/u\/unblock\?ticket=[\w-]+)/.exec(mail?.channel === 'email' ? mail.message.text : '')?.[1] ?? '';
    const unblocked = await new CookieClient(server.url).get(decodeEntities(link));
    expect(unblocked.status).toBe(200);
    expect(await unblocked.text()).toContain('Account unblocked');
    expect((await new CookieClient(server.url).get(decodeEntities(link))).status).toBe(400);
    expect((await api('GET', `/user-blocks/${encodeURIComponent(userId)}`)).body).toEqual({ blocked_for: [] });
    expect((await passwordLogin(server, fx, email, fx.user.password)).status).toBe(200);

    // Blocked again; the Management API lifts it by identifier.
    for (let i = 0; i < 3; i += 1) await passwordLogin(server, fx, email, 'wrong');
    expect((await passwordLogin(server, fx, email, fx.user.password)).status).toBe(429);
    expect((await api('DELETE', `/user-blocks?identifier=${encodeURIComponent(email)}`)).status).toBe(204);
    expect((await passwordLogin(server, fx, email, fx.user.password)).status).toBe(200);
  });

  it('a burst of concurrent guesses gets exactly max_attempts tries before the block', async () => {
    const email = `burst-${dialect}@example.com`;
    await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    const answers = await Promise.all(Array.from({ length: 8 }, () => passwordLogin(server, fx, email, 'wrong')));
    expect(answers.map((answer) => answer.status).sort()).toEqual([403, 403, 403, 429, 429, 429, 429, 429]);
  });

  it('says so on the hosted login page', async () => {
    const email = `page-${dialect}@example.com`;
    await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    for (let i = 0; i < 3; i += 1) await passwordLogin(server, fx, email, 'wrong');
    const browser = new CookieClient(server.url);
    const start = await browser.get(`/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code' }).toString()}`);
    const loginPath = start.headers.get('location') ?? '';
    const form = await (await browser.get(loginPath)).text();
    const answer = await browser.postForm(loginPath, { state: inputValue(form, 'state') ?? '', username: email, password: fx.user.password });
    expect(answer.status).toBe(400);
    expect(decodeEntities(await answer.text())).toContain(BLOCKED_TEXT);
    expect(browser.cookies.has('lk_session')).toBe(false);
  });
});

describe('suspicious-IP throttling', () => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    const patched = await managementApi(server)('PATCH', '/attack-protection/suspicious-ip-throttling', { stage: { 'pre-login': { max_attempts: 4, rate: 3_600_000 } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ stage: { 'pre-login': { max_attempts: 4 }, 'pre-user-registration': { max_attempts: 50 } } });
  });
  afterAll(async () => server?.close());

  it('throttles signups from one address (pre-user-registration)', async () => {
    const api = managementApi(server);
    expect((await api('PATCH', '/attack-protection/suspicious-ip-throttling', { stage: { 'pre-user-registration': { max_attempts: 2, rate: 3_600_000 } } })).status).toBe(200);
    const signup = (i: number) => post(server, '/dbconnections/signup', { client_id: fx.spa.clientId, connection: fx.connection, email: `mass-${i}@example.com`, password: 'Str0ng-enough!' });
    expect((await signup(1)).status).toBe(200);
    expect((await signup(2)).status).toBe(200);
    const third = await signup(3);
    expect([third.status, third.json.code]).toEqual([429, 'too_many_attempts']);
    expect((await api('GET', '/users-by-email?email=mass-3%40example.com')).body).toEqual([]);
  });

  it('throttles an address after failures across many accounts, whatever account it tries next', async () => {
    for (let i = 0; i < 4; i += 1) expect((await passwordLogin(server, fx, `spray-${i}@example.com`, 'Summer2024!')).status).toBe(403);
    const throttled = await passwordLogin(server, fx, fx.user.email, fx.user.password);
    expect([throttled.status, throttled.json.error, throttled.json.error_description]).toEqual([
      429,
      'too_many_attempts',
      'We have detected suspicious login behavior and further attempts will be blocked. Please contact the administrator.',
    ]);
    // Allow-listed addresses are not throttled.
    expect((await managementApi(server)('PATCH', '/attack-protection/suspicious-ip-throttling', { allowlist: ['127.0.0.1'] })).status).toBe(200);
    expect((await passwordLogin(server, fx, fx.user.email, fx.user.password)).status).toBe(200);
  });
});

describe('breached-password detection', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  let range: Server;
  let rangeCalls: string[];
  const RANGE_ONLY = 'Unusual-but-leaked-9471';
  beforeAll(async () => {
    rangeCalls = [];
    const hex = createHash('sha1').update(RANGE_ONLY).digest('hex').toUpperCase();
    range = createServer((request, response) => {
      const prefix = (request.url ?? '').split('/').pop() ?? '';
      rangeCalls.push(prefix);
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(prefix === hex.slice(0, 5) ? `0000000000000000000000000000000000A:1\r\n${hex.slice(5)}:42\r\n` : 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:3\r\n');
    });
    await new Promise<void>((resolve) => range.listen(0, '127.0.0.1', resolve));
    server = await startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_BREACHED_RANGE_URL: `http://127.0.0.1:${(range.address() as { port: number }).port}/range/` } });
    fx = await provisionLogin(server);
    api = managementApi(server);
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => range?.close(resolve));
  });

  it('refuses logins and signups with a breached password once it is on, from the local list and the range API', async () => {
    for (const [email, password] of [['leaked@example.com', 'P@ssw0rd'], ['ranged@example.com', RANGE_ONLY]] as const) {
      expect((await api('POST', '/users', { connection: fx.connection, email, password })).status).toBe(201);
    }
    // Off by default.
    expect((await passwordLogin(server, fx, 'leaked@example.com', 'P@ssw0rd')).status).toBe(200);
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { enabled: true })).status).toBe(200);

    const leaked = await passwordLogin(server, fx, 'leaked@example.com', 'P@ssw0rd');
    expect([leaked.status, leaked.json.error]).toEqual([401, 'password_leaked']);
    expect(String(leaked.json.error_description)).toContain('Reset your password');
    const co = await post(server, '/co/authenticate', { client_id: fx.spa.clientId, credential_type: REALM, username: 'leaked@example.com', password: 'P@ssw0rd', realm: fx.connection }, { origin: fx.spa.origin });
    expect([co.status, co.json.error]).toEqual([401, 'password_leaked']);
    const ranged = await passwordLogin(server, fx, 'ranged@example.com', RANGE_ONLY);
    expect(ranged.json.error).toBe('password_leaked');
    // Only five hex digits of the hash left the service.
    expect(rangeCalls.every((prefix) => /^[0-9A-F]{5}$/.test(prefix))).toBe(true);
    // A wrong password is still just wrong; the user's real, unbreached password works.
    expect((await passwordLogin(server, fx, 'leaked@example.com', 'not-the-password')).json.error).toBe('invalid_grant');
    expect((await passwordLogin(server, fx, fx.user.email, fx.user.password)).status).toBe(200);

    const signup = await post(server, '/dbconnections/signup', { client_id: fx.spa.clientId, connection: fx.connection, email: 'new-leaky@example.com', password: 'Soso123aljg' });
    expect(signup.json).toMatchObject({ code: 'password_leaked', statusCode: 400 });
    expect((await api('GET', '/users-by-email?email=new-leaky%40example.com')).body).toEqual([]);
  });

  it('with user_notification, e-mails the user a link to choose a new password, which then lets them in', async () => {
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { shields: ['block', 'user_notification'] })).status).toBe(200);
    expect((await api('POST', '/users', { connection: fx.connection, email: 'notified@example.com', password: 'sasha_007' })).status).toBe(201);
    expect((await passwordLogin(server, fx, 'notified@example.com', 'sasha_007')).json.error).toBe('password_leaked');
    const mail = (await server.registry.outbox.recent()).find((entry) => entry.message.to === 'notified@example.com');
    expect(mail?.channel === 'email' ? mail.message.subject : '').toBe('Your password was found in a data breach');
    const link = /(https?:\/\/\S+\/u\/reset-password\?ticket=[\w-]+)/.exec(mail?.channel === 'email' ? mail.message.text : '')?.[1] ?? '';
    const browser = new CookieClient(server.url);
    const form = await (await browser.get(decodeEntities(link))).text();
    const action = formAction(form) ?? '';
    expect(action).toBe(`/u/reset-password?ticket=${new URL(decodeEntities(link)).searchParams.get('ticket') ?? 'missing'}`);
    const fields = { state: inputValue(form, 'state') ?? '' };
    expect((await browser.postForm(action, { ...fields, 'password-reset': 'A-fresh-Passw0rd', 're-enter-password': 'A-fresh-Passw0rd' })).status).toBe(200);
    expect((await passwordLogin(server, fx, 'notified@example.com', 'A-fresh-Passw0rd')).status).toBe(200);
  });

  it('falls back to the local list when the range API is down', async () => {
    await new Promise((resolve) => range.close(resolve));
    expect((await passwordLogin(server, fx, 'ranged@example.com', RANGE_ONLY)).status).toBe(200);
    expect((await passwordLogin(server, fx, 'leaked@example.com', 'P@ssw0rd')).json.error).toBe('password_leaked');
  });
});
