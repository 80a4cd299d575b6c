import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, inputValue } from './support/browser-client.js';
import { defaultTexts } from '../src/services/rendering/texts/index.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const halfHash = (value: string) => createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');

describe.each(DIALECTS)('/authorize and the hosted login page over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  const authorizeUrl = (params: Record<string, string>) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, ...params }).toString()}`;

  /** Drives /authorize → login page → form post; returns the browser and the final answer. */
  async function login(params: Record<string, string>, browser = new CookieClient(server.url)) {
    const start = await browser.get(authorizeUrl(params));
    expect(start.status).toBe(302);
    const loginPage = new URL(start.headers.get('location') ?? '', server.url);
    expect(loginPage.pathname).toBe('/u/login');
    const page = await browser.get(loginPage.pathname + loginPage.search);
    expect(page.status).toBe(200);
    const html = await page.text();
    const answer = await browser.postForm(loginPage.pathname + loginPage.search, {
      state: inputValue(html, 'state') ?? '',
      username: fx.user.email,
      password: fx.user.password,
    });
    return { browser, answer, html };
  }

  const token = async (form: Record<string, string>) => {
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };

  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect_uri', async () => {
    const browser = new CookieClient(server.url);
    for (const url of [
      `/authorize?client_id=nope&redirect_uri=${encodeURIComponent(fx.web.callback)}&response_type=code`,
      `/authorize?client_id=${fx.web.clientId}&redirect_uri=${encodeURIComponent('https://evil.example/callback')}&response_type=code`,
      `/authorize?client_id=${fx.web.clientId}&redirect_uri=${encodeURIComponent(`${fx.web.callback}/`)}&response_type=code`,
      `/authorize?redirect_uri=${encodeURIComponent(fx.web.callback)}`,
      `/authorize?client_id=${fx.web.clientId}&client_id=${fx.web.clientId}&redirect_uri=${encodeURIComponent(fx.web.callback)}`,
    ]) {
      const response = await browser.get(url);
      expect(response.status, url).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).not.toContain('evil.example');
    }
  });

  it('logs in with the authorization code flow and PKCE; a replayed code fails and revokes what it issued', async () => {
    const { verifier, challenge } = pkce();
    const { answer, html, browser } = await login({
      response_type: 'code',
      scope: 'openid profile email offline_access read:things',
      audience: fx.api.identifier,
      state: 'st-123',
      nonce: 'n-456',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(html).toMatch(/name="username"/);
    expect(html).toMatch(/name="password"/);
    expect(answer.status).toBe(302);
    const callback = new URL(answer.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(fx.web.callback);
    expect(callback.searchParams.get('state')).toBe('st-123');
    const code = callback.searchParams.get('code') ?? '';
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(browser.cookies.has('lk_session')).toBe(true);
    const session = answer.headers.getSetCookie().find((line) => line.startsWith('lk_session='));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);

    const exchange = { grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code, redirect_uri: fx.web.callback };
    expect((await token({ ...exchange, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    // A wrong verifier burns the code (it is consumed before the verifier is checked). The browser now holds a
    // session, so prompt=login makes the second attempt go through the login page again.
    const second = await login(
      { response_type: 'code', scope: 'openid profile email offline_access', state: 's2', nonce: 'n2', code_challenge: challenge, code_challenge_method: 'S256', prompt: 'login' },
      browser,
    );
    expect(second.answer.status).toBe(302);
    const code2 = new URL(second.answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const good = await token({ ...exchange, code: code2, code_verifier: verifier });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const id = await jwtVerify(good.body.id_token ?? '', jwks, { issuer: `${server.registry.issuer}/`, audience: fx.web.clientId });
    expect(id.payload).toMatchObject({ sub: fx.user.userId, nonce: 'n2', email: fx.user.email });
    expect(typeof id.payload.sid).toBe('string');
    expect(typeof id.payload.auth_time).toBe('number');
    expect(good.body.refresh_token).toBeDefined();

    const replay = await token({ ...exchange, code: code2, code_verifier: verifier });
    expect(replay.body.error).toBe('invalid_grant');
    const refresh = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: good.body.refresh_token ?? '' });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a replayed code also ends the access token it issued, at /userinfo and at the Management API', async () => {
    const admin = managementApi(server);
    expect((await admin('POST', '/client-grants', { client_id: fx.web.clientId, audience: server.audience, scope: ['read:current_user'] })).status).toBe(201);
    const { verifier, challenge } = pkce();
    const { answer } = await login({
      response_type: 'code',
      scope: 'openid read:current_user',
      audience: server.audience,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      prompt: 'login',
    });
    const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const exchange = { grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code, redirect_uri: fx.web.callback, code_verifier: verifier };
    const issued = await token(exchange);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    // A JWT for the Management API and /userinfo (an API and openid).
    const accessToken = issued.body.access_token ?? '';
    expect(decodeJwt(accessToken).aud).toEqual([server.audience, `${server.registry.issuer}/userinfo`]);
    const profile = () => fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    const me = () => fetch(`${server.url}/api/v2/users/${encodeURIComponent(fx.user.userId)}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect((await profile()).status).toBe(200);
    expect((await me()).status).toBe(200);

    expect((await token(exchange)).body.error).toBe('invalid_grant');
    const refusedProfile = await profile();
    expect(refusedProfile.status).toBe(401);
    expect(await refusedProfile.json()).toEqual({ error: 'invalid_token', error_description: 'The grant of this access token was revoked.' });
    const refusedMe = await me();
    expect(refusedMe.status).toBe(401);
    expect(await refusedMe.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Revoked token', errorCode: 'invalid_token' });
  });

  it('re-renders the page with one generic message for wrong credentials, keeping the username but never the password', async () => {
    const browser = new CookieClient(server.url);
    const start = await browser.get(authorizeUrl({ response_type: 'code', state: 's' }));
    const loginPath = start.headers.get('location') ?? '';
    const html = await (await browser.get(loginPath)).text();
    const fields = { state: inputValue(html, 'state') ?? '' };
    const wrongPassword = await browser.postForm(loginPath, { ...fields, username: fx.user.email, password: 'wrong password!' });
    const unknownUser = await browser.postForm(loginPath, { ...fields, username: 'nobody@example.com', password: 'wrong password!' });
    expect(wrongPassword.status).toBe(400);
    const wrongHtml = await wrongPassword.text();
    const unknownHtml = await unknownUser.text();
    const alert = (page: string) => /role="alert"[^>]*>([\s\S]*?)<\//.exec(page)?.[1]?.trim();
    expect(alert(wrongHtml)).toBe(`<p>${defaultTexts('login', 'en')['wrong-email-credentials'] ?? 'missing text'}`);
    expect(alert(wrongHtml)).toBe(alert(unknownHtml));
    expect(inputValue(wrongHtml, 'username')).toBe(fx.user.email);
    expect(wrongHtml).not.toContain('wrong password!');
  });

  it('refuses a forged post: a foreign Origin gets 403, a post without the transaction cookie gets the expired-login page, a post to a screen not reached is sent back', async () => {
    const admin = managementApi(server);
    const loginsCount = async () => Number((await admin('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).body.logins_count);
    const countBefore = await loginsCount();
    const browser = new CookieClient(server.url);
    const loginPath = (await browser.get(authorizeUrl({ response_type: 'code', state: 'genuine' }))).headers.get('location') ?? '';
    const html = await (await browser.get(loginPath)).text();
    const state = inputValue(html, 'state') ?? '';
    expect(state).toBe(new URL(loginPath, server.url).searchParams.get('state'));
    const credentials = { state, username: fx.user.email, password: fx.user.password };
    const ours = new URL(server.registry.issuer).origin;
    /** A refusal on an error page of ours: no redirect (to the application or elsewhere) and no session. */
    const refusedOnPage = async (response: Response, status: number, message: string) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.getSetCookie().some((line) => line.startsWith('lk_session='))).toBe(false);
      expect(await response.text()).toContain(message);
    };

    // Another site's page posting the form, named by the browser in Origin or in Sec-Fetch-Site.
    await refusedOnPage(await browser.postForm(loginPath, credentials, { origin: 'https://evil.example' }), 403, 'The form could not be verified.');
    await refusedOnPage(await browser.postForm(loginPath, credentials, { 'sec-fetch-site': 'cross-site' }), 403, 'The form could not be verified.');
    // A browser without the transaction cookie (SameSite=Lax keeps another site's post from sending it).
    const stranger = new CookieClient(server.url);
    await refusedOnPage(await stranger.postForm(loginPath, credentials, { origin: ours }), 400, 'This login has expired');
    expect(stranger.cookies.has('lk_session')).toBe(false);
    // A body naming another transaction than the URL.
    await refusedOnPage(await browser.postForm(loginPath, { ...credentials, state: 'another-state' }), 400, 'The form does not name its login (state).');
    // A password posted to the password screen before any identifier was given there: back to login-id.
    const notReached = await browser.postForm(`/u/login/password?state=${encodeURIComponent(state)}`, credentials, { origin: ours });
    expect(notReached.status).toBe(302);
    expect(notReached.headers.get('location')).toBe(`/u/login/identifier?state=${encodeURIComponent(state)}`);
    expect(notReached.headers.getSetCookie().some((line) => line.startsWith('lk_session='))).toBe(false);
    expect(browser.cookies.has('lk_session')).toBe(false);
    expect(await loginsCount()).toBe(countBefore);

    // None of it spent the transaction: the page's own post, from our origin, logs in.
    const genuine = await browser.postForm(loginPath, credentials, { origin: ours, 'sec-fetch-site': 'same-origin' });
    expect(genuine.status).toBe(302);
    expect(new URL(genuine.headers.get('location') ?? '').searchParams.get('state')).toBe('genuine');
    expect(browser.cookies.has('lk_session')).toBe(true);
    expect(await loginsCount()).toBe(countBefore + 1);
  });

  it('binds posts to the flow: identifier first, a post to the one-page login or signup is sent to login-id or signup-id', async () => {
    const admin = managementApi(server);
    const loginsCount = async () => Number((await admin('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).body.logins_count);
    const countBefore = await loginsCount();
    const ours = { origin: new URL(server.registry.issuer).origin };
    expect((await admin('PATCH', '/prompts', { identifier_first: true })).status).toBe(200);
    try {
      const browser = new CookieClient(server.url);
      const entry = (await browser.get(authorizeUrl({ response_type: 'code', state: 'bound' }))).headers.get('location') ?? '';
      expect(new URL(entry, server.url).pathname).toBe('/u/login/identifier');
      const state = new URL(entry, server.url).searchParams.get('state') ?? '';
      const query = `?state=${encodeURIComponent(state)}`;
      // The identifier and the password in one post, as the one-page login takes them: the password is never checked.
      const login = await browser.postForm(`/u/login${query}`, { state, username: fx.user.email, password: fx.user.password }, ours);
      expect(login.status).toBe(302);
      expect(login.headers.get('location')).toBe(`/u/login/identifier${query}`);
      expect((await browser.get(`/u/login${query}`)).headers.get('location')).toBe(`/u/login/identifier${query}`);
      const signup = await browser.postForm(`/u/signup${query}`, { state, email: `bound-${Date.now()}@example.com`, password: 'A long and new passw0rd!' }, ours);
      expect(signup.status).toBe(302);
      expect(signup.headers.get('location')).toBe(`/u/signup/identifier${query}`);
      expect(browser.cookies.has('lk_session')).toBe(false);
      expect(await loginsCount()).toBe(countBefore);
      // The screens of the flow still take the same login.
      expect((await browser.postForm(`/u/login/identifier${query}`, { state, username: fx.user.email }, ours)).headers.get('location')).toBe(`/u/login/password${query}`);
      const done = await browser.postForm(`/u/login/password${query}`, { state, password: fx.user.password }, ours);
      expect(new URL(done.headers.get('location') ?? '').searchParams.get('state')).toBe('bound');
      expect(await loginsCount()).toBe(countBefore + 1);
    } finally {
      expect((await admin('PATCH', '/prompts', { identifier_first: false })).status).toBe(200);
    }
  });

  it('refuses a replayed login post (same cookie, same state): the transaction was completed by the first', async () => {
    const admin = managementApi(server);
    const loginsCount = async () => Number((await admin('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).body.logins_count);
    const browser = new CookieClient(server.url);
    const loginPath = (await browser.get(authorizeUrl({ response_type: 'code', state: 'once' }))).headers.get('location') ?? '';
    const state = inputValue(await (await browser.get(loginPath)).text(), 'state') ?? '';
    // What an attacker who captured the request would send again: the transaction cookie as it was, the same body.
    const captured = new CookieClient(server.url);
    for (const [name, value] of browser.cookies) captured.cookies.set(name, value);
    const form = { state, username: fx.user.email, password: fx.user.password };
    const headers = { origin: new URL(server.registry.issuer).origin };
    const first = await browser.postForm(loginPath, form, headers);
    expect(first.status).toBe(302);
    expect(new URL(first.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
    const countAfterFirst = await loginsCount();

    const replay = await captured.postForm(loginPath, form, headers);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
    expect(await replay.text()).toContain('This login has expired');
    expect(captured.cookies.has('lk_session')).toBe(false);
    expect(await loginsCount()).toBe(countAfterFirst);
  });

  it('answers every response type and mode from the session (prompt=none), with nonce, at_hash and c_hash', async () => {
    const { browser } = await login({ response_type: 'code', state: 'x' });
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    for (const responseType of ['token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token']) {
      const response = await browser.get(authorizeUrl({ response_type: responseType, prompt: 'none', state: 'st', nonce: 'nn', scope: 'openid profile' }));
      expect(response.status, responseType).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      expect(location.search, responseType).toBe('');
      const params = new URLSearchParams(location.hash.slice(1));
      expect(params.get('state')).toBe('st');
      const types = responseType.split(' ');
      expect(params.has('code')).toBe(types.includes('code'));
      expect(params.has('access_token')).toBe(types.includes('token'));
      expect(params.has('id_token')).toBe(types.includes('id_token'));
      if (types.includes('token')) expect(params.get('token_type')).toBe('Bearer');
      if (types.includes('id_token')) {
        const { payload } = await jwtVerify(params.get('id_token') ?? '', jwks, { audience: fx.web.clientId });
        expect(payload.nonce).toBe('nn');
        expect(payload.at_hash).toBe(types.includes('token') ? halfHash(params.get('access_token') ?? '') : undefined);
        expect(payload.c_hash).toBe(types.includes('code') ? halfHash(params.get('code') ?? '') : undefined);
      }
    }
    const query = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'none', state: 'q' }));
    expect(new URL(query.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
  });

  it('delivers form_post and web_message pages that carry the answer safely', async () => {
    const { browser } = await login({ response_type: 'code', state: 'x' });
    const formPost = await browser.get(authorizeUrl({ response_type: 'code', response_mode: 'form_post', prompt: 'none', state: HOSTILE }));
    expect(formPost.status).toBe(200);
    const formHtml = await formPost.text();
    expect(formHtml).toContain(`action="${fx.web.callback}"`);
    expect(inputValue(formHtml, 'state')).toBe(HOSTILE);
    expect(inputValue(formHtml, 'code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(formHtml.match(/<script/g)).toHaveLength(1);
    expect(formHtml).not.toContain('<img');

    const message = await browser.get(authorizeUrl({ response_type: 'token id_token', response_mode: 'web_message', prompt: 'none', state: HOSTILE, nonce: 'n' }));
    expect(message.status).toBe(200);
    expect(message.headers.get('x-frame-options')).toBeNull();
    expect(message.headers.get('content-security-policy')).toContain(`frame-ancestors ${new URL(fx.web.callback).origin}`);
    const page = await message.text();
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toContain('</script><script>');
    expect(page).toContain('"authorization_response"');
    expect(page).toContain(JSON.stringify(new URL(fx.web.callback).origin));
  });

  it('answers prompt=none without a session with login_required, and sends errors back with state in the response mode', async () => {
    const browser = new CookieClient(server.url);
    const none = await browser.get(authorizeUrl({ response_type: 'token id_token', prompt: 'none', state: 'st', nonce: 'n', response_mode: 'web_message' }));
    expect(none.status).toBe(200);
    const page = await none.text();
    expect(page).toContain('"error":"login_required"');
    expect(page).toContain('"state":"st"');

    const cases: [Record<string, string>, string][] = [
      [{ response_type: 'code token id_token bogus' }, 'unsupported_response_type'],
      [{ response_type: 'id_token', scope: 'openid' }, 'invalid_request'],
      [{ response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ response_type: 'code', code_challenge: 'short' , code_challenge_method: 'S256' }, 'invalid_request'],
      [{ response_type: 'code', prompt: 'none login' }, 'invalid_request'],
      [{ response_type: 'code', audience: 'https://unknown.example/' }, 'access_denied'],
      [{ response_type: 'code', connection: 'no-such-connection' }, 'invalid_request'],
      [{ response_type: 'code', max_age: '-1' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const response = await browser.get(authorizeUrl({ ...params, state: HOSTILE }));
      expect(response.status, JSON.stringify(params)).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      const answer = params.response_type === 'code' ? location.searchParams : new URLSearchParams(location.hash.slice(1));
      expect(answer.get('error'), JSON.stringify(params)).toBe(error);
      expect(answer.get('state')).toBe(HOSTILE);
      expect(answer.get('error_description')).toBeTruthy();
    }
    const queryTokens = await browser.get(authorizeUrl({ response_type: 'token', response_mode: 'query', state: 's' }));
    expect(new URL(queryTokens.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
  });

  it('forces a new login with prompt=login and with max_age, and the ID token says when the user logged in', async () => {
    const { browser } = await login({ response_type: 'code', state: 'x' });
    const forced = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'login' }));
    expect(new URL(forced.headers.get('location') ?? '', server.url).pathname).toBe('/u/login');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const aged = await browser.get(authorizeUrl({ response_type: 'code', max_age: '0' }));
    expect(new URL(aged.headers.get('location') ?? '', server.url).pathname).toBe('/u/login');
    const agedNone = await browser.get(authorizeUrl({ response_type: 'code', max_age: '0', prompt: 'none', state: 'a' }));
    expect(new URL(agedNone.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
    const fresh = await browser.get(authorizeUrl({ response_type: 'id_token', max_age: '3600', prompt: 'none', nonce: 'n', scope: 'openid' }));
    const idToken = new URLSearchParams(new URL(fresh.headers.get('location') ?? '').hash.slice(1)).get('id_token') ?? '';
    expect(Math.abs(Number(decodeJwt(idToken).auth_time) - Date.now() / 1000)).toBeLessThan(30);
  });

  it('escapes hostile login_hint and ext- parameters on the login page', async () => {
    const browser = new CookieClient(server.url);
    const start = await browser.get(authorizeUrl({ response_type: 'code', login_hint: HOSTILE, 'ext-note': HOSTILE, ui_locales: HOSTILE }));
    const html = await (await browser.get(start.headers.get('location') ?? '')).text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(inputValue(html, 'username')).toBe(HOSTILE);
  });

  it('logs out with /v2/logout to an allowed URL only, ending the session', async () => {
    const { browser } = await login({ response_type: 'code', state: 'x' });
    const refused = await browser.get(`/v2/logout?client_id=${fx.web.clientId}&returnTo=${encodeURIComponent('https://evil.example/')}`);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const stillIn = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'none', state: 's' }));
    expect(new URL(stillIn.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();

    const tenantLevel = await browser.get(`/v2/logout?returnTo=${encodeURIComponent('https://app.example.com/logged-out')}`);
    expect(tenantLevel.status).toBe(400);
    const out = await browser.get(`/v2/logout?client_id=${fx.web.clientId}&returnTo=${encodeURIComponent('https://app.example.com/logged-out')}&federated`);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('https://app.example.com/logged-out');
    expect(browser.cookies.has('lk_session')).toBe(false);
    const after = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'none', state: 's' }));
    expect(new URL(after.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');

    await managementApi(server)('PATCH', '/tenants/settings', { allowed_logout_urls: ['https://portal.example.com/bye'] });
    const tenantOk = await new CookieClient(server.url).get(`/v2/logout?returnTo=${encodeURIComponent('https://portal.example.com/bye')}`);
    expect(tenantOk.status).toBe(302);
    expect((await new CookieClient(server.url).get('/v2/logout')).status).toBe(200);
  });

  it('logs out with /oidc/logout: id_token_hint, post_logout_redirect_uri and state', async () => {
    const { browser } = await login({ response_type: 'code', state: 'x' });
    const hinted = await browser.get(authorizeUrl({ response_type: 'id_token', prompt: 'none', nonce: 'n', scope: 'openid' }));
    const idToken = new URLSearchParams(new URL(hinted.headers.get('location') ?? '').hash.slice(1)).get('id_token') ?? '';
    const bad = await browser.get(`/oidc/logout?id_token_hint=${idToken}&post_logout_redirect_uri=${encodeURIComponent('https://evil.example/')}`);
    expect(bad.status).toBe(400);
    expect((await browser.get(`/oidc/logout?id_token_hint=not.a.token`)).status).toBe(400);
    const out = await browser.get(`/oidc/logout?id_token_hint=${idToken}&post_logout_redirect_uri=${encodeURIComponent('https://app.example.com/logged-out')}&state=${encodeURIComponent(HOSTILE)}`);
    expect(out.status).toBe(302);
    const target = new URL(out.headers.get('location') ?? '');
    expect(`${target.origin}${target.pathname}`).toBe('https://app.example.com/logged-out');
    expect(target.searchParams.get('state')).toBe(HOSTILE);
    const after = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'none', state: 's' }));
    expect(new URL(after.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
  });
});
