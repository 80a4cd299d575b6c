import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('hosted signup and password reset over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  const authorizeUrl = (params: Record<string, string>) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'id_token', nonce: 'n', scope: 'openid email', ...params }).toString()}`;

  async function openPage(browser: CookieClient, params: Record<string, string>) {
    const start = await browser.get(authorizeUrl(params));
    expect(start.status).toBe(302);
    const path = start.headers.get('location') ?? '';
    const page = await browser.get(path);
    return { path, status: page.status, html: await page.text() };
  }

  it('screen_hint=signup opens the signup page; a new user is created, logged in and answered', async () => {
    const browser = new CookieClient(server.url);
    const { path, html, status } = await openPage(browser, { screen_hint: 'signup' });
    expect(status).toBe(200);
    expect(new URL(path, server.url).pathname).toBe('/u/signup');
    expect(html).toMatch(/name="email"/);
    expect(html).toMatch(/name="password"/);
    const fields = { state: inputValue(html, 'state') ?? '' };

    const weak = await browser.postForm(path, { ...fields, email: `new-${dialect}@example.com`, password: 'short' });
    expect(weak.status).toBe(400);
    const weakPage = await weak.text();
    expect(weakPage).toMatch(/role="alert"/);
    // The connection's policy (the default, good) is spelled out under the message.
    expect(weakPage).toContain('<p class="detail">* At least 8 characters</p>');
    expect(weakPage).toContain('<p class="detail"> * Special characters (such as !@#$%^&amp;*)</p>');
    const taken = await browser.postForm(path, { ...fields, email: fx.user.email, password: 'A-strong-passw0rd' });
    expect(taken.status).toBe(400);

    const created = await browser.postForm(path, { ...fields, email: `New-${dialect}@Example.com`, password: 'A-strong-passw0rd' });
    expect(created.status).toBe(302);
    const idToken = new URLSearchParams(new URL(created.headers.get('location') ?? '').hash.slice(1)).get('id_token') ?? '';
    expect(decodeJwt(idToken).email).toBe(`new-${dialect}@example.com`);
    const users = await managementApi(server)('GET', `/users-by-email?email=${encodeURIComponent(`new-${dialect}@example.com`)}`);
    expect(users.body).toHaveLength(1);
  });

  it('a login that fails while its session is being stored leaves the transaction open: the same form then succeeds', async () => {
    const db = server.registry.storage.dialect.db;
    // A real database refusal at the one write that follows spending the transaction.
    const refuse =
      dialect === 'sqlite'
        ? [sql`create trigger refuse_session before insert on artifacts when new.kind = 'session' begin select raise(abort, 'refused by the test'); end`]
        : [
            sql`create function refuse_session() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
            sql`create trigger refuse_session before insert on artifacts for each row when (new.kind = 'session') execute function refuse_session()`,
          ];
    const allow = dialect === 'sqlite' ? [sql`drop trigger refuse_session`] : [sql`drop trigger refuse_session on artifacts`, sql`drop function refuse_session()`];
    const browser = new CookieClient(server.url);
    const { path, html } = await openPage(browser, {});
    const form = { state: inputValue(html, 'state') ?? '', username: fx.user.email, password: USER_PASSWORD };
    for (const statement of refuse) await statement.execute(db);
    try {
      expect((await browser.postForm(path, form)).status).toBe(500);
    } finally {
      for (const statement of allow) await statement.execute(db);
    }
    const again = await browser.postForm(path, form);
    expect(again.status).toBe(302);
    expect(new URLSearchParams(new URL(again.headers.get('location') ?? '').hash.slice(1)).get('id_token')).toBeTruthy();
    // Now it is spent.
    expect((await browser.postForm(path, form)).status).toBe(400);
  });

  it('the reset request page answers alike for known and unknown addresses and sends nothing it should not', async () => {
    const browser = new CookieClient(server.url);
    const login = await openPage(browser, {});
    const state = new URL(login.path, server.url).searchParams.get('state') ?? '';
    // The request screen of the login's database connection.
    const resetLink = `/u/reset-password/request/${encodeURIComponent(fx.connection)}?state=${encodeURIComponent(state)}`;
    expect(login.html).toContain(`href="${resetLink}"`);
    // The earlier address, without the connection, leads there.
    const earlier = await browser.get(`/u/reset-password/request?state=${encodeURIComponent(state)}`);
    expect([earlier.status, earlier.headers.get('location')]).toEqual([302, resetLink]);
    const page = await (await browser.get(resetLink)).text();
    expect(formAction(page)).toBe(resetLink);
    const fields = { state: inputValue(page, 'state') ?? '' };
    expect(fields.state).toBe(state);
    const known = await browser.postForm(resetLink, { ...fields, email: fx.user.email });
    const unknown = await browser.postForm(resetLink, { ...fields, email: 'nobody@example.com' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const strip = (html: string) => html.replace(/(value|nonce)="[^"]*"/g, '').replace(/nobody@example\.com|user-[a-z0-9]+@example\.com/g, '');
    expect(strip(await known.text())).toBe(strip(await unknown.text()));
    const tickets = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'password_reset', { subject: fx.user.userId }, new Date().toISOString());
    expect(tickets).toHaveLength(1);
  });

  it('a password-change ticket from the Management API sets a new password once', async () => {
    const api = managementApi(server);
    const user = await api('POST', '/users', { connection: fx.connection, email: `reset-${dialect}@example.com`, password: USER_PASSWORD });
    const created = await api('POST', '/tickets/password-change', { user_id: user.body.user_id, result_url: 'https://app.example.com/welcome-back' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ticketUrl = new URL(String(created.body.ticket));
    expect(ticketUrl.pathname).toBe('/u/reset-password');

    const before = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
        client_id: fx.web.clientId,
        client_secret: fx.web.clientSecret,
        username: `reset-${dialect}@example.com`,
        password: USER_PASSWORD,
        realm: fx.connection,
        scope: 'openid offline_access',
      }),
    });
    const oldRefresh = ((await before.json()) as { refresh_token: string }).refresh_token;

    const browser = new CookieClient(server.url);
    const form = await (await browser.get(ticketUrl.pathname + ticketUrl.search)).text();
    // The form posts to the ticket's own URL, with the ticket's form token as `state`.
    const action = formAction(form) ?? '';
    expect(action).toBe(`/u/reset-password?ticket=${ticketUrl.searchParams.get('ticket') ?? 'missing'}`);
    const fields = { state: inputValue(form, 'state') ?? '' };
    expect(fields.state).not.toBe('');
    const mismatched = await browser.postForm(action, { ...fields, 'password-reset': 'New-passw0rd!', 're-enter-password': 'different' });
    expect(mismatched.status).toBe(400);
    expect(await mismatched.text()).toContain('The two passwords are different.');
    const tooWeak = await browser.postForm(action, { ...fields, 'password-reset': 'weakling', 're-enter-password': 'weakling' });
    expect(tooWeak.status).toBe(400);
    expect(await tooWeak.text()).toContain('At least 3 of these 4 kinds of characters:');
    // Without the form token, or from another site's page, nothing is changed.
    expect((await browser.postForm(action, { 'password-reset': 'New-passw0rd!', 're-enter-password': 'New-passw0rd!' })).status).toBe(403);
    expect((await browser.postForm(action, { ...fields, 'password-reset': 'New-passw0rd!', 're-enter-password': 'New-passw0rd!' }, { origin: 'https://evil.example' })).status).toBe(403);
    const done = await browser.postForm(action, { ...fields, 'password-reset': 'New-passw0rd!', 're-enter-password': 'New-passw0rd!' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('https://app.example.com/welcome-back');
    const again = await browser.postForm(action, { ...fields, 'password-reset': 'Other-passw0rd!', 're-enter-password': 'Other-passw0rd!' });
    expect(again.status).toBe(400);

    const token = async (password: string) =>
      (
        await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
            client_id: fx.web.clientId,
            client_secret: fx.web.clientSecret,
            username: `reset-${dialect}@example.com`,
            password,
            realm: fx.connection,
          }),
        })
      ).status;
    expect(await token('New-passw0rd!')).toBe(200);
    expect(await token(USER_PASSWORD)).toBe(403);
    // The new password ended what the old one had opened.
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: oldRefresh }),
    });
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses tickets for unknown users and bad bodies with the Management error shape', async () => {
    const api = managementApi(server);
    expect((await api('POST', '/tickets/password-change', { user_id: 'auth0|nope' })).status).toBe(404);
    const bad = await api('POST', '/tickets/password-change', { user_id: 'x', ttl_sec: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' });
    expect((await api('POST', '/tickets/password-change', {})).status).toBe(400);
    expect((await new CookieClient(server.url).get('/u/reset-password?ticket=forged')).status).toBe(400);
  });
});
