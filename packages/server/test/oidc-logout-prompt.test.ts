import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTexts } from '../src/services/rendering/texts/index.js';
import { CookieClient, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

/**
 * `/oidc/logout` without `id_token_hint` may come from anywhere (a link, another site's form), so with a live
 * session it asks first: the `logout` screen, whose answer (`action=accept|deny`, `state` = a token bound to the
 * session cookie) posts back to the question's URL. These are the standard pages over a real socket; the platform
 * SDK's bundle on the same screens runs in acul-login-chromium.test.ts.
 */
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
const TEXTS = defaultTexts('logout', 'en');

describe('/oidc/logout asks before ending a session it was not given an ID token for', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let origin: string;
  const loggedOutUrl = 'https://app.example.com/logged-out';

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    origin = new URL(server.url).origin;
  });
  afterAll(async () => server?.close());

  const authorizeUrl = (params: Record<string, string>) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', ...params }).toString()}`;

  /** A browser logged in through the hosted login page. */
  async function signedIn(): Promise<CookieClient> {
    const browser = new CookieClient(server.url);
    const start = await browser.get(authorizeUrl({ state: 'in' }));
    const loginPage = new URL(start.headers.get('location') ?? '', server.url);
    const html = await (await browser.get(loginPage.pathname + loginPage.search)).text();
    const done = await browser.postForm(loginPage.pathname + loginPage.search, { state: inputValue(html, 'state') ?? '', username: fx.user.email, password: fx.user.password });
    expect(new URL(done.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
    expect(browser.cookies.has('lk_session')).toBe(true);
    return browser;
  }

  /** Whether the browser's session still logs it in silently. */
  async function hasSession(browser: CookieClient): Promise<boolean> {
    const answer = await browser.get(authorizeUrl({ prompt: 'none', state: 'silent' }));
    return new URL(answer.headers.get('location') ?? '').searchParams.get('code') !== null;
  }

  const logoutPath = (params: Record<string, string>) => `/oidc/logout?${new URLSearchParams(params).toString()}`;
  const screenOf = (html: string) => /data-screen="([^"]+)"/.exec(html)?.[1];

  /** Opens the question and gives what its form posts: where, and the session's token. */
  async function question(browser: CookieClient, path: string) {
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(screenOf(html)).toBe('logout');
    return { html, action: formAction(html) ?? '', token: inputValue(html, 'state') ?? '' };
  }

  it('asks on the standard page; "Stay logged in" keeps the session, "Log out" ends it and returns with the RP state', async () => {
    const browser = await signedIn();
    const path = logoutPath({ client_id: fx.web.clientId, post_logout_redirect_uri: loggedOutUrl, state: HOSTILE });
    const { html, action, token } = await question(browser, path);
    // The question changes nothing and cannot be framed; hostile values stay text.
    expect(await hasSession(browser)).toBe(true);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain(`<h1>${TEXTS.title}</h1>`);
    expect(html).toContain('Hello Test User,');
    expect(html).toMatch(new RegExp(`<button type="submit" name="action" value="accept">${TEXTS.acceptButtonText}</button>`));
    expect(html).toMatch(new RegExp(`<button class="secondary" type="submit" name="action" value="deny">${TEXTS.declineButtonText}</button>`));
    // The form posts back to the question's URL, whose query keeps the application's parameters; its own `state` is the token.
    expect(action).toBe(path);
    expect(token).not.toBe(HOSTILE);
    expect(token.length).toBeGreaterThan(20);

    const denied = await browser.postForm(action, { state: token, action: 'deny' }, { origin });
    expect(denied.status).toBe(200);
    expect(screenOf(await denied.text())).toBe('logout-aborted');
    expect(browser.cookies.has('lk_session')).toBe(true);
    expect(await hasSession(browser)).toBe(true);

    const accepted = await browser.postForm(action, { state: token, action: 'accept' }, { origin, 'sec-fetch-site': 'same-origin' });
    expect(accepted.status).toBe(302);
    const target = new URL(accepted.headers.get('location') ?? '');
    expect(`${target.origin}${target.pathname}`).toBe(loggedOutUrl);
    expect(target.searchParams.get('state')).toBe(HOSTILE);
    expect(browser.cookies.has('lk_session')).toBe(false);
    expect(await hasSession(browser)).toBe(false);
  });

  it('without post_logout_redirect_uri, "Log out" ends on the logout-complete screen', async () => {
    const browser = await signedIn();
    const { action, token } = await question(browser, logoutPath({ client_id: fx.web.clientId }));
    const accepted = await browser.postForm(action, { state: token, action: 'accept' });
    expect(accepted.status).toBe(200);
    const html = await accepted.text();
    expect(screenOf(html)).toBe('logout-complete');
    expect(html).toContain(defaultTexts('logout-complete', 'en').title);
    expect(await hasSession(browser)).toBe(false);
  });

  it('refuses a forged answer (wrong or missing token, another browser’s token, a foreign origin): 403, the session kept', async () => {
    const browser = await signedIn();
    const { action, token } = await question(browser, logoutPath({ client_id: fx.web.clientId, post_logout_redirect_uri: loggedOutUrl }));
    const other = await signedIn();
    const otherToken = (await question(other, logoutPath({ client_id: fx.web.clientId }))).token;
    for (const [form, headers] of [
      [{ action: 'accept', state: 'forged' }, {}],
      [{ action: 'accept' }, {}],
      [{ action: 'accept', state: otherToken }, {}],
      [{ action: 'accept', state: token }, { origin: 'https://evil.example' }],
      [{ action: 'accept', state: token }, { 'sec-fetch-site': 'cross-site' }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const answer = await browser.postForm(action, form, headers);
      expect(answer.status, JSON.stringify([form, headers])).toBe(403);
      expect(answer.headers.get('location')).toBeNull();
      expect(screenOf(await answer.text())).toBe('error');
    }
    // Without the session cookie there is no token to match.
    expect((await new CookieClient(server.url).postForm(action, { action: 'accept', state: token })).status).toBe(403);
    expect((await browser.postForm(action, { action: 'maybe', state: token })).status).toBe(400);
    expect(browser.cookies.has('lk_session')).toBe(true);
    expect(await hasSession(browser)).toBe(true);
    expect(await hasSession(other)).toBe(true);
  });

  it('a POST without an answer asks too, its parameters moved to the question’s URL', async () => {
    const browser = await signedIn();
    const posted = await browser.postForm('/oidc/logout', { client_id: fx.web.clientId, post_logout_redirect_uri: loggedOutUrl, state: 'rp' });
    expect(posted.status).toBe(303);
    const location = posted.headers.get('location') ?? '';
    expect(Object.fromEntries(new URL(location, server.url).searchParams)).toEqual({ client_id: fx.web.clientId, post_logout_redirect_uri: loggedOutUrl, state: 'rp' });
    const { action, token } = await question(browser, location);
    expect(await hasSession(browser)).toBe(true);
    const accepted = await browser.postForm(action, { state: token, action: 'accept' });
    expect(accepted.headers.get('location')).toBe(`${loggedOutUrl}?state=rp`);
    expect(await hasSession(browser)).toBe(false);
  });

  it('does not ask with an id_token_hint, nor without a session; a bad post_logout_redirect_uri is refused before asking', async () => {
    const browser = await signedIn();
    expect((await browser.get(logoutPath({ client_id: fx.web.clientId, post_logout_redirect_uri: 'https://evil.example/' }))).status).toBe(400);
    expect(await hasSession(browser)).toBe(true);

    const hinted = await browser.get(authorizeUrl({ response_type: 'id_token', prompt: 'none', nonce: 'n', scope: 'openid', state: 'h' }));
    const idToken = new URLSearchParams(new URL(hinted.headers.get('location') ?? '').hash.slice(1)).get('id_token') ?? '';
    const out = await browser.get(logoutPath({ id_token_hint: idToken, post_logout_redirect_uri: loggedOutUrl }));
    expect(out.status).toBe(302);
    expect(await hasSession(browser)).toBe(false);

    const stranger = new CookieClient(server.url);
    const direct = await stranger.get(logoutPath({ client_id: fx.web.clientId, post_logout_redirect_uri: loggedOutUrl, state: 's' }));
    expect(direct.status).toBe(302);
    expect(direct.headers.get('location')).toBe(`${loggedOutUrl}?state=s`);
    expect((await stranger.get('/oidc/logout')).status).toBe(200);
  });

  it('/v2/logout still ends the session at once', async () => {
    const browser = await signedIn();
    const out = await browser.get(`/v2/logout?client_id=${fx.web.clientId}&returnTo=${encodeURIComponent(loggedOutUrl)}`);
    expect(out.status).toBe(302);
    expect(await hasSession(browser)).toBe(false);
  });

  it('serves the question in advanced mode as the platform shapes its context: the token as transaction.state', async () => {
    const api = managementApi(server);
    const configured = await api('PATCH', '/prompts/logout/screen/logout/rendering', {
      rendering_mode: 'advanced',
      context_configuration: ['screen.texts'],
      head_tags: [{ tag: 'script', attributes: { src: 'https://bundle.example/logout.js', defer: true } }],
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    try {
      const browser = await signedIn();
      const page = await browser.get(logoutPath({ client_id: fx.web.clientId }));
      const html = await page.text();
      const context = JSON.parse(/window\.universal_login_context = (.*?);<\/script>/.exec(html)?.[1] ?? '{}') as Record<string, Record<string, unknown>>;
      expect(context.prompt).toEqual({ name: 'logout' });
      expect(context.screen).toMatchObject({ name: 'logout', texts: { acceptButtonText: TEXTS.acceptButtonText, userSalute: 'Hello Test User,' } });
      expect(context.client).toMatchObject({ id: fx.web.clientId });
      expect(html).toContain('<body></body>');
      const token = String(context.transaction?.state);
      // The SDK's confirmLogout posts action, state and acul-sdk to the page's own URL.
      const denied = await browser.postForm(logoutPath({ client_id: fx.web.clientId }), { action: 'deny', state: token, 'acul-sdk': '@auth0/auth0-acul-js@1.8.0' }, { origin });
      expect(denied.status).toBe(200);
      expect(await hasSession(browser)).toBe(true);
    } finally {
      await api('PATCH', '/prompts/logout/screen/logout/rendering', { rendering_mode: 'standard' });
    }
  });
});
