import { decodeJwt, SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CO_VERIFIER_COOKIE } from '../src/http/login/cookies.js';
import { latchkeyLibrary, REFERENCE_LIBRARY, startAppPages, type AppLibrary } from './support/app-page-server.js';
import { localTls } from './support/certificates.js';
import { launchChromium, launchChromiumProfile } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

type Outcome = { err: Record<string, unknown> | null; res: unknown };
type Result = { err: Record<string, unknown> | null; res: Record<string, unknown> | null };

const CURRENT_USER_SCOPES = ['read:current_user', 'update:current_user_metadata', 'create:current_user_metadata', 'update:current_user_identities'];

/**
 * The browser library in Chromium, ours (served by Latchkey at its versioned URL with its SRI hash) and the
 * official reference library (npm auth0-js v10, unmodified) alike, on an application page of another site
 * (https://127.0.0.1) against Latchkey over HTTPS (https://localhost): every method and option of the spec's
 * tables and each failure path. Both libraries must pass the very same scenarios (wire compatibility).
 */
// Chromium, launched once for both libraries (each launch costs about a second of CPU): a profile that allows
// third-party cookies, one that blocks them, and a plain browser for contexts of their own (a clock set ahead).
// Each library's scenarios have their own server and application page, so their origins and storage differ.
let allowing: Awaited<ReturnType<typeof launchChromiumProfile>>;
let blocking: Awaited<ReturnType<typeof launchChromiumProfile>>;
let plain: Browser;

beforeAll(async () => {
  [allowing, blocking, plain] = await Promise.all([launchChromiumProfile({ thirdPartyCookies: true }), launchChromiumProfile({ thirdPartyCookies: false }), launchChromium()]);
}, 60_000);
afterAll(async () => {
  await allowing?.close();
  await blocking?.close();
  await plain?.close();
});

describe.each(['latchkey', 'auth0-js'] as const)('browser library (%s) in Chromium', (library) => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof startAppPages>>;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  let audience: string;

  beforeAll(async () => {
    const tls = localTls();
    setGlobalDispatcher(new Agent({ connect: { ca: tls.cert } }));
    server = await startTestServer({ dialect: 'sqlite', listen: true, https: tls });
    audience = server.audience;
    const loaded: AppLibrary = library === 'latchkey' ? await latchkeyLibrary(server.url) : REFERENCE_LIBRARY;
    app = await startAppPages(
      () => ({
        domain: new URL(server.url).host,
        clientID: fx.spa.clientId,
        redirectUri: `${app.origin}/callback`,
        responseType: 'token id_token',
        scope: `openid profile email ${CURRENT_USER_SCOPES.join(' ')}`,
        audience,
        leeway: 30,
        _disableDeprecationWarnings: true,
      }),
      tls,
      loaded,
    );
    fx = await provisionLogin(server, { callbackBase: app.origin });
    api = managementApi(server);
    const spaSettings = {
      cross_origin_authentication: true,
      callbacks: [`${app.origin}/callback`, `${app.origin}/popup-callback`],
      grant_types: ['authorization_code', 'implicit', 'refresh_token', 'http://auth0.com/oauth/grant-type/password-realm'],
    };
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, spaSettings)).status).toBe(200);
    expect((await api('POST', '/client-grants', { client_id: fx.spa.clientId, audience, scope: CURRENT_USER_SCOPES })).status).toBe(201);
    expect((await api('POST', '/connections', { name: 'email', strategy: 'email', enabled_clients: [fx.spa.clientId] })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  async function appPage(context: BrowserContext, path = '/'): Promise<Page> {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${app.origin}${path}`);
    return page;
  }

  /** Calls `webAuth.<method>(options, cb)` (a dotted path such as `client.login` reaches nested objects). */
  const call = (page: Page, method: string, options: unknown) =>
    page.evaluate(
      ([path, args]) =>
        new Promise<Outcome>((resolve) => {
          const names = path.split('.');
          let target = (window as unknown as { webAuth: Record<string, unknown> }).webAuth;
          for (const name of names.slice(0, -1)) target = target[name] as Record<string, unknown>;
          const done = (err: unknown, res: unknown) => resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome);
          (target[names[names.length - 1] ?? ''] as (options: unknown, cb: typeof done) => void).call(target, args, done);
        }),
      [method, options] as const,
    );

  /** `webAuth.parseHash(options)` on the current page. */
  const parse = (page: Page, options: Record<string, unknown> = {}) =>
    page.evaluate(
      (args) =>
        new Promise<Result>((resolve) => {
          (window as unknown as { webAuth: { parseHash(options: unknown, cb: (err: unknown, res: unknown) => void): void } }).webAuth.parseHash(args, (err, res) =>
            resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Result),
          );
        }),
      options,
    );

  /** Starts a method that leaves the page (redirect) and waits for the navigation to `url`. */
  async function leaveWith(page: Page, url: string, method: string, options: Record<string, unknown>) {
    const navigated = page.waitForURL(url, { timeout: 20_000 });
    void page
      .evaluate(
        ([name, args]) => (window as unknown as { webAuth: Record<string, (options: unknown, cb?: () => void) => void> }).webAuth[name]?.(args, () => undefined),
        [method, options] as const,
      )
      .catch(() => undefined);
    await navigated;
  }

  /** The hosted login page: the fixture user signs in. */
  async function signInOnHostedPage(page: Page, email = fx.user.email) {
    await page.waitForSelector('input[name="username"]');
    await page.fill('input[name="username"]', email);
    await page.fill('input[name="password"]', fx.user.password);
    await page.click('button[type="submit"]');
  }

  /** `webAuth.login` with the fixture's user; success leaves the page for /authorize and then the callback. */
  async function loginAndParse(page: Page): Promise<Result> {
    await leaveWith(page, `${app.origin}/callback#**`, 'login', { realm: fx.connection, username: fx.user.email, password: fx.user.password });
    return parse(page);
  }

  /** The fixture user's tokens by the password-realm grant (`client.login`), as a hash a redirect would carry. */
  async function tokenHash(page: Page, state: string) {
    const login = await call(page, 'client.login', { realm: fx.connection, username: fx.user.email, password: fx.user.password, scope: 'openid profile email' });
    expect(login.err).toBeNull();
    const tokens = login.res as { accessToken: string; idToken: string; expiresIn: number };
    return { ...tokens, hash: `#access_token=${tokens.accessToken}&id_token=${tokens.idToken}&token_type=Bearer&expires_in=${tokens.expiresIn}&state=${state}` };
  }

  it('authorize: hosted login, then parseHash returns the authResult with appState; userInfo and the current-user calls work with its tokens', async () => {
    const page = await appPage(allowing.context);
    await page.evaluate(() =>
      (window as unknown as { webAuth: { authorize(options: unknown): void } }).webAuth.authorize({ appState: { returnTo: '/orders' }, prompt: 'login' }),
    );
    await signInOnHostedPage(page);
    await page.waitForURL(`${app.origin}/callback#**`);
    const parsed = await parse(page);
    expect(parsed.err).toBeNull();
    expect(parsed.res).toMatchObject({
      accessToken: expect.any(String),
      idToken: expect.any(String),
      idTokenPayload: { sub: fx.user.userId, email: fx.user.email, aud: fx.spa.clientId, nonce: expect.any(String) },
      appState: { returnTo: '/orders' },
      tokenType: 'Bearer',
      state: expect.any(String),
    });
    expect(Number((parsed.res as { expiresIn: unknown }).expiresIn)).toBeGreaterThan(0);
    // A second parse of the same hash finds no transaction: the response cannot be replayed into the page.
    expect((await parse(page)).err).toMatchObject({ error: 'invalid_token' });

    const accessToken = String(parsed.res?.accessToken);
    const profile = await call(page, 'client.userInfo', accessToken);
    expect(profile).toMatchObject({ err: null, res: { sub: fx.user.userId, email: fx.user.email } });

    const management = (method: string, args: unknown[]) =>
      page.evaluate(
        ([namespace, domain, token, name, params]) =>
          new Promise<Outcome>((resolve) => {
            const ns = (window as unknown as Record<string, { Management: new (options: unknown) => Record<string, (...args: unknown[]) => void> }>)[namespace];
            const client = new ns!.Management({ domain, token });
            client[name]!(...params, (err: unknown, res: unknown) => resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome));
          }),
        [library === 'latchkey' ? 'latchkey' : 'auth0', new URL(server.url).host, accessToken, method, args] as const,
      );
    expect(await management('getUser', [fx.user.userId])).toMatchObject({ err: null, res: { user_id: fx.user.userId, email: fx.user.email } });
    const patched = await management('patchUserMetadata', [fx.user.userId, { theme: 'dark', library }]);
    expect(patched).toMatchObject({ err: null, res: { user_metadata: { theme: 'dark', library } } });
    const other = await management('getUser', ['auth0|000000000000000000000000']);
    expect(other.err).toMatchObject({ statusCode: 403 });
    // The reference library reads the Management API's `error` (the reason phrase); ours its `message`.
    if (library === 'latchkey') expect(other.err).toMatchObject({ description: 'User to be acted on does not match subject in bearer token.' });

    const attributes = await management('patchUserAttributes', [fx.user.userId, { name: 'Someone Else' }]);
    expect(attributes.err).toMatchObject({ statusCode: 403 });

    const secondaryEmail = `linked-${library}@example.com`;
    expect((await api('POST', '/users', { connection: fx.connection, email: secondaryEmail, password: fx.user.password })).status).toBe(201);
    const secondary = await call(page, 'client.login', { realm: fx.connection, username: secondaryEmail, password: fx.user.password, scope: 'openid' });
    const linked = await management('linkUser', [fx.user.userId, (secondary.res as { idToken: string }).idToken]);
    expect(linked.err).toBeNull();
    expect((linked.res as unknown[]).length).toBe(2);
    await page.close();
  });

  it('popup.authorize signs in through a popup; a popup closed first reports it', async () => {
    const page = await appPage(allowing.context);
    const popupOpened = page.waitForEvent('popup');
    const result = call(page, 'popup.authorize', { redirectUri: `${app.origin}/popup-callback` });
    const popup = await popupOpened;
    await signInOnHostedPage(popup);
    const outcome = await result;
    expect(outcome.err).toBeNull();
    expect(outcome.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { sub: fx.user.userId } });

    const closedOpened = page.waitForEvent('popup');
    const closedResult = call(page, 'popup.authorize', { redirectUri: `${app.origin}/popup-callback`, prompt: 'login' });
    await (await closedOpened).close();
    expect((await closedResult).err).toMatchObject({ original: 'User closed the popup window' });
    await page.close();
  });

  it('popup.preload opens the popup in the click that asks for it; popup.authorize given it as popupHandler signs in through that window', async () => {
    type PopupApi = { preload(): unknown; authorize(options: unknown, cb: (err: unknown, res: unknown) => void): void };
    const page = await appPage(allowing.context);
    await page.evaluate(() => {
      const button = document.createElement('button');
      button.id = 'log-in';
      button.textContent = 'Log in';
      const state = window as unknown as { webAuth: { popup: PopupApi }; preloaded?: unknown };
      button.addEventListener('click', () => (state.preloaded = state.webAuth.popup.preload()));
      document.body.append(button);
    });
    const popupOpened = page.waitForEvent('popup');
    await page.click('#log-in');
    const popup = await popupOpened;
    expect(popup.url()).toBe('about:blank');
    const popups: string[] = [];
    page.on('popup', (other) => popups.push(other.url()));
    const authorizeUrls: string[] = [];
    popup.on('request', (request) => void (request.url().startsWith(`${server.url}/authorize`) && authorizeUrls.push(request.url())));
    const result = page.evaluate(
      (redirectUri) =>
        new Promise<Outcome>((resolve) => {
          const state = window as unknown as { webAuth: { popup: PopupApi }; preloaded?: unknown };
          state.webAuth.popup.authorize({ redirectUri, popupHandler: state.preloaded }, (err, res) =>
            resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome),
          );
        }),
      `${app.origin}/popup-callback`,
    );
    await popup.waitForURL(`${server.url}/u/login**`);
    // The handler steers the library only; nothing of it reaches /authorize.
    expect(authorizeUrls).toHaveLength(1);
    const sent = new URL(authorizeUrls[0] ?? '').searchParams;
    expect([...sent.keys()].filter((name) => /handler|window/i.test(name))).toEqual([]);
    expect([...sent.values()].filter((value) => value.includes('[object'))).toEqual([]);
    await signInOnHostedPage(popup);
    const outcome = await result;
    expect(outcome.err).toBeNull();
    expect(outcome.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { sub: fx.user.userId } });
    expect(popups).toEqual([]);
    await page.close();
  });

  it('checkSession called twice answers both times; our library warns that it is polled more often than every 15 minutes', async () => {
    const page = await appPage(allowing.context);
    const warnings: string[] = [];
    page.on('console', (message) => void (message.type() === 'warning' && warnings.push(message.text())));
    const options = { domain: new URL(server.url).host, clientID: fx.spa.clientId, redirectUri: `${app.origin}/callback`, responseType: 'token id_token', scope: 'openid' };
    const errors = await page.evaluate(
      ([namespace, webAuthOptions]) => {
        type Check = (options: unknown, cb: (err: { error?: string } | null) => void) => void;
        const Library = (window as unknown as Record<string, { WebAuth: new (options: unknown) => { checkSession: Check } }>)[namespace];
        const webAuth = new (Library as { WebAuth: new (options: unknown) => { checkSession: Check } }).WebAuth(webAuthOptions);
        const check = () => new Promise<string | undefined>((resolve) => webAuth.checkSession({}, (err) => resolve(err?.error)));
        return check().then(async (first) => [first, await check()]);
      },
      [library === 'latchkey' ? 'latchkey' : 'auth0', options] as const,
    );
    expect(errors).toEqual(['login_required', 'login_required']);
    const pollingWarnings = warnings.filter((text) => text.includes('15 minutes'));
    // The reference library does not warn; ours does, once, on the second call (the warnings are not disabled here).
    expect(pollingWarnings).toHaveLength(library === 'latchkey' ? 1 : 0);
    await page.close();
  });

  it('checkSession: login_required without a session; with one, fresh tokens whose nonce is the one given', async () => {
    const page = await appPage(allowing.context);
    const none = await call(page, 'checkSession', {});
    expect(none.err).toMatchObject({ error: 'login_required' });

    await page.evaluate(() => (window as unknown as { webAuth: { authorize(options: unknown): void } }).webAuth.authorize({}));
    await signInOnHostedPage(page);
    await page.waitForURL(`${app.origin}/callback#**`);
    // The reference library keeps no transaction for a custom nonce, so the application gives the state too.
    const renewed = await call(page, 'checkSession', { nonce: 'my-own-nonce-123', state: 'my-own-state-456' });
    expect(renewed.err).toBeNull();
    expect(renewed.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { sub: fx.user.userId, nonce: 'my-own-nonce-123' } });
    await page.close();
  });

  it('parseHash refuses a foreign state, a wrong nonce, a token expired beyond leeway and an HS256 token (invalid_token)', async () => {
    const page = await appPage(allowing.context, '/callback');
    const { hash } = await tokenHash(page, 'state-1');
    expect((await parse(page, { hash })).err).toMatchObject({ error: 'invalid_token', errorDescription: '`state` does not match.' });
    expect((await parse(page, { hash, state: 'state-1' })).err).toBeNull();
    const wrongNonce = await parse(page, { hash, state: 'state-1', nonce: 'expected-nonce' });
    expect(wrongNonce.err).toMatchObject({ error: 'invalid_token' });
    expect(String(wrongNonce.err?.errorDescription)).toContain('Nonce (nonce) claim');

    await page.close();

    // Eleven hours on, past the ten-hour ID token and any leeway (a context of its own: the clock is per context).
    const later = await plain.newContext({ ignoreHTTPSErrors: true });
    try {
      await later.clock.setFixedTime(Date.now() + 11 * 3600 * 1000);
      const latePage = await later.newPage();
      await latePage.goto(`${app.origin}/callback`);
      const expired = await parse(latePage, { hash, state: 'state-1' });
      expect(expired.err).toMatchObject({ error: 'invalid_token' });
      expect(String(expired.err?.errorDescription)).toContain('Expiration Time (exp)');
    } finally {
      await later.close();
    }

    const fresh = await appPage(allowing.context, '/callback');
    const jwksReads: string[] = [];
    fresh.on('request', (request) => {
      if (request.url().includes('/.well-known/jwks.json')) jwksReads.push(request.url());
    });
    const now = Math.floor(Date.now() / 1000);
    const hs256 = await new SignJWT({ nonce: 'n' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(`${server.url}/`)
      .setAudience(fx.spa.clientId)
      .setSubject(fx.user.userId)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode('a-client-secret-the-browser-must-never-have'));
    const refused = await parse(fresh, { hash: `#access_token=opaque&id_token=${hs256}&state=s-hs&token_type=Bearer`, state: 's-hs', nonce: 'n' });
    expect(refused.err).toMatchObject({ error: 'invalid_token' });
    if (library === 'latchkey') expect(jwksReads).toEqual([]);
    await fresh.close();
  });

  it('responseType code with responseMode query answers the code in the query string', async () => {
    const page = await appPage(allowing.context);
    await page.evaluate(() => (window as unknown as { webAuth: { authorize(options: unknown): void } }).webAuth.authorize({ responseType: 'code', responseMode: 'query' }));
    await signInOnHostedPage(page);
    await page.waitForURL(`${app.origin}/callback?**`);
    const answer = new URL(page.url());
    expect(answer.searchParams.get('code')).toMatch(/.{20,}/);
    expect(answer.searchParams.get('state')).toMatch(/.{16,}/);
    await page.close();
  });

  it('popup.loginWithCredentials signs in without leaving the page; passwordlessVerify completes a code by redirect', async () => {
    const page = await appPage(allowing.context);
    const silent = await call(page, 'popup.loginWithCredentials', { realm: fx.connection, username: fx.user.email, password: fx.user.password });
    expect(silent.err).toBeNull();
    expect(silent.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { sub: fx.user.userId } });
    expect(page.url()).toBe(`${app.origin}/`);
    const wrong = await call(page, 'popup.loginWithCredentials', { realm: fx.connection, username: fx.user.email, password: 'not it' });
    expect(wrong.err).toMatchObject({ code: 'access_denied' });

    const email = `verify-${library}@example.com`;
    expect((await call(page, 'passwordlessStart', { connection: 'email', send: 'code', email })).err).toBeNull();
    const message = (await server.registry.outbox.recent()).find((entry) => entry.message.to === email);
    const code = /\b(\d{6})\b/.exec(message?.channel === 'email' ? message.message.text : '')?.[1] ?? '';
    await leaveWith(page, `${app.origin}/callback#**`, 'passwordlessVerify', { connection: 'email', email, verificationCode: code });
    const parsed = await parse(page);
    expect(parsed.err).toBeNull();
    expect(parsed.res).toMatchObject({ idTokenPayload: { email } });
    await page.close();
  });

  it('client.buildAuthorizeUrl carries the options; logout returns to an allowed URL', async () => {
    const page = await appPage(allowing.context);
    const url = new URL(
      await page.evaluate(() =>
        (window as unknown as { webAuth: { client: { buildAuthorizeUrl(options: unknown): string } } }).webAuth.client.buildAuthorizeUrl({
          clientID: 'abc',
          responseType: 'code',
          redirectUri: 'https://app.example.com/cb',
          state: 'st',
          nonce: 'no',
        }),
      ),
    );
    expect(url.origin + url.pathname).toBe(`${server.url}/authorize`);
    expect(Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'auth0Client'))).toMatchObject({
      client_id: 'abc',
      response_type: 'code',
      redirect_uri: 'https://app.example.com/cb',
      state: 'st',
      nonce: 'no',
      scope: expect.stringContaining('openid'),
    });
    await leaveWith(page, `${app.origin}/logged-out`, 'logout', { returnTo: `${app.origin}/logged-out`, clientID: fx.spa.clientId });
    expect(await page.textContent('#path')).toBe('/logged-out');
    await page.close();
  });

  it('an application origin no client allows cannot log in', async () => {
    for (const client of [fx.spa.clientId, fx.web.clientId]) {
      expect((await api('PATCH', `/clients/${client}`, { web_origins: [], allowed_origins: [] })).status).toBe(200);
    }
    try {
      const page = await appPage(allowing.context);
      const refused = await call(page, 'login', { realm: fx.connection, username: fx.user.email, password: fx.user.password });
      expect(refused.err).toMatchObject({ code: 'request_error' });
      await page.close();
    } finally {
      for (const client of [fx.spa.clientId, fx.web.clientId]) await api('PATCH', `/clients/${client}`, { web_origins: [app.origin], allowed_origins: [app.origin] });
    }
  });

  it('signup creates the user and reports the platform errors as the library objects', async () => {
    const page = await appPage(allowing.context);
    const email = `js-signup-${library}@example.com`;
    const created = await call(page, 'signup', { connection: fx.connection, email, password: 'Str0ng-enough!', userMetadata: { plan: 'gold' } });
    expect(created.err).toBeNull();
    expect(created.res).toMatchObject({ email, emailVerified: false });
    const exists = await call(page, 'signup', { connection: fx.connection, email, password: 'Str0ng-enough!' });
    expect(exists.err).toMatchObject({ statusCode: 400, code: 'user_exists', description: 'The user already exists.', name: 'BadRequestError' });
    const weak = await call(page, 'signup', { connection: fx.connection, email: 'js-weak@example.com', password: 'weak' });
    expect(weak.err).toMatchObject({ statusCode: 400, code: 'invalid_password', name: 'PasswordStrengthError' });
    expect(String(weak.err?.policy)).toContain('At least 8 characters in length');
    expect((weak.err?.description as { rules: unknown[] }).rules.length).toBeGreaterThan(0);
    await page.close();
  });

  it('signupAndAuthorize creates the user and signs it in; validateToken accepts its ID token and refuses a forged one', async () => {
    const page = await appPage(allowing.context);
    const email = `js-signup-login-${library}@example.com`;
    const signedUp = await call(page, 'signupAndAuthorize', { connection: fx.connection, email, password: 'Str0ng-enough!', scope: 'openid profile email' });
    expect(signedUp.err).toBeNull();
    const tokens = signedUp.res as { accessToken: string; idToken: string };
    expect(tokens.accessToken).toEqual(expect.any(String));
    const users = (await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`)).body as unknown as { user_id: string }[];
    expect(users).toHaveLength(1);

    const validate = (token: string) =>
      page.evaluate(
        (idToken) =>
          new Promise<Outcome>((resolve) => {
            const webAuth = (window as unknown as { webAuth: { validateToken(token: string, nonce: string | undefined, cb: (err: unknown, res: unknown) => void): void } }).webAuth;
            webAuth.validateToken(idToken, undefined, (err, res) => resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome));
          }),
        token,
      );
    const valid = await validate(tokens.idToken);
    expect(valid.err).toBeNull();
    expect(valid.res).toMatchObject({ sub: users[0]?.user_id, aud: fx.spa.clientId, email });
    const [header, payload, signature] = tokens.idToken.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = [header, Buffer.from(JSON.stringify({ ...claims, sub: fx.user.userId })).toString('base64url'), signature].join('.');
    expect((await validate(forged)).err).toMatchObject({ error: 'invalid_token' });

    // The signup errors come back before any login is tried.
    const again = await call(page, 'signupAndAuthorize', { connection: fx.connection, email, password: 'Str0ng-enough!' });
    expect(again.err).toMatchObject({ statusCode: 400, code: 'user_exists' });
    await page.close();
  });

  it('popup.signupAndLogin creates the user and signs it in on the page; when only the login fails, errorInfo says so', async () => {
    const page = await appPage(allowing.context);
    const email = `popup-signup-${library}@example.com`;
    const done = await call(page, 'popup.signupAndLogin', { connection: fx.connection, email, password: 'Str0ng-enough!' });
    expect(done.err).toBeNull();
    expect(done.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { email } });
    expect(page.url()).toBe(`${app.origin}/`);
    // Created in the connection, then a login against a realm that does not exist.
    const other = `popup-signup-realm-${library}@example.com`;
    const failed = await call(page, 'popup.signupAndLogin', { connection: fx.connection, realm: 'no-such-realm', email: other, password: 'Str0ng-enough!' });
    expect(failed.err).toMatchObject({ errorInfo: { error_code: 'login_error' } });
    expect((await api('GET', `/users-by-email?email=${encodeURIComponent(other)}`)).body).toHaveLength(1);
    await page.close();
  });

  it('renewAuth: a hidden frame with prompt=none returns fresh tokens for the session, login_required without one', async () => {
    const page = await appPage(allowing.context);
    const none = await call(page, 'renewAuth', { timeout: 10_000 });
    expect(none.err).toMatchObject({ error: 'login_required' });
    await page.evaluate(() => (window as unknown as { webAuth: { authorize(options: unknown): void } }).webAuth.authorize({}));
    await signInOnHostedPage(page);
    await page.waitForURL(`${app.origin}/callback#**`);
    const renewed = await call(page, 'renewAuth', { timeout: 10_000 });
    expect(renewed.err).toBeNull();
    expect(renewed.res).toMatchObject({ accessToken: expect.any(String), idTokenPayload: { sub: fx.user.userId } });
    await page.close();
  });

  it("loginWithDefaultDirectory signs in by the password grant against the tenant's default directory", async () => {
    const page = await appPage(allowing.context);
    const credentials = { username: fx.user.email, password: fx.user.password, scope: 'openid' };
    // Not granted to the client yet: the platform's error object.
    const refused = await call(page, 'client.loginWithDefaultDirectory', credentials);
    expect(refused.err).toMatchObject({ code: 'unauthorized_client', statusCode: 400 });
    await api('PATCH', `/clients/${fx.spa.clientId}`, { grant_types: ['authorization_code', 'implicit', 'refresh_token', 'http://auth0.com/oauth/grant-type/password-realm', 'password'] });
    await api('PATCH', '/tenants/settings', { default_directory: fx.connection });
    try {
      const login = await call(page, 'client.loginWithDefaultDirectory', credentials);
      expect(login.err).toBeNull();
      const tokens = login.res as { idToken: string; accessToken: string; tokenType: string };
      expect(tokens.tokenType).toBe('Bearer');
      expect(decodeJwt(tokens.idToken).sub).toBe(fx.user.userId);
    } finally {
      await api('PATCH', '/tenants/settings', { default_directory: '' });
      await api('PATCH', `/clients/${fx.spa.clientId}`, { grant_types: ['authorization_code', 'implicit', 'refresh_token', 'http://auth0.com/oauth/grant-type/password-realm'] });
    }
    await page.close();
  });

  it('changePassword answers the same text for any address', async () => {
    const page = await appPage(allowing.context);
    const known = await call(page, 'changePassword', { connection: fx.connection, email: fx.user.email });
    const unknown = await call(page, 'changePassword', { connection: fx.connection, email: 'nobody@example.com' });
    expect(known).toEqual({ err: null, res: "We've just sent you an email to reset your password." });
    expect(unknown).toEqual(known);
    await page.close();
  });

  it('login errors reach the application as the library error objects', async () => {
    const page = await appPage(allowing.context);
    const wrong = await call(page, 'login', { realm: fx.connection, username: fx.user.email, password: 'wrong password' });
    expect(wrong.err).toMatchObject({ code: 'access_denied', description: 'Wrong email or password.', error: 'access_denied', error_description: 'Wrong email or password.' });
    const unknownRealm = await call(page, 'login', { realm: 'nope', username: fx.user.email, password: fx.user.password });
    expect(unknownRealm.err).toMatchObject({ code: 'invalid_request', description: 'Unknown realm' });
    await page.close();
  });

  it('attack-protection refusals reach the application as the library error objects', async () => {
    const page = await appPage(allowing.context);
    const login = (username: string, password: string) => call(page, 'login', { realm: fx.connection, username, password });
    expect((await api('POST', '/users', { connection: fx.connection, email: 'js-blocked@example.com', password: fx.user.password, blocked: true })).status).toBe(201);
    expect((await login('js-blocked@example.com', fx.user.password)).err).toMatchObject({ code: 'blocked_user', description: 'user is blocked' });

    expect((await api('POST', '/users', { connection: fx.connection, email: 'js-leaked@example.com', password: 'P@ssw0rd' })).status).toBe(201);
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { enabled: true })).status).toBe(200);
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 2 })).status).toBe(200);
    try {
      const leaked = await login('js-leaked@example.com', 'P@ssw0rd');
      expect(leaked.err).toMatchObject({ code: 'password_leaked', error: 'password_leaked' });
      expect(String(leaked.err?.description)).toContain('data breach');

      expect((await api('POST', '/users', { connection: fx.connection, email: 'js-guessed@example.com', password: fx.user.password })).status).toBe(201);
      for (let i = 0; i < 2; i += 1) expect((await login('js-guessed@example.com', 'wrong guess')).err).toMatchObject({ code: 'access_denied' });
      const blocked = await login('js-guessed@example.com', fx.user.password);
      expect(blocked.err).toMatchObject({ code: 'too_many_attempts', error: 'too_many_attempts' });
      expect(String(blocked.err?.description)).toContain('blocked after multiple consecutive login attempts');
    } finally {
      await api('PATCH', '/attack-protection/breached-password-detection', { enabled: false });
      await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 10 });
      await api('DELETE', '/user-blocks?identifier=js-guessed%40example.com');
    }
    await page.close();
  });

  it('third-party cookies allowed: login signs in through the login ticket without a page', async () => {
    const page = await appPage(allowing.context);
    const parsed = await loginAndParse(page);
    expect(parsed.err).toBeNull();
    expect(parsed.res).toMatchObject({ idTokenPayload: { sub: fx.user.userId, email: fx.user.email }, tokenType: 'Bearer', accessToken: expect.any(String) });
    await page.close();
  });

  it('passwordlessStart e-mails a code and passwordlessLogin signs in with it', async () => {
    const page = await appPage(allowing.context);
    const email = 'js-passwordless@example.com';
    const started = await call(page, 'passwordlessStart', { connection: 'email', send: 'code', email });
    expect(started.err).toBeNull();
    expect(started.res).toMatchObject({ email, emailVerified: false });
    const message = (await server.registry.outbox.recent()).find((entry) => entry.message.to === email);
    const code = /\b(\d{6})\b/.exec(message?.channel === 'email' ? message.message.text : '')?.[1] ?? '';
    const wrong = await call(page, 'passwordlessLogin', { connection: 'email', email, verificationCode: code === '000000' ? '111111' : '000000' });
    expect(wrong.err).toMatchObject({ code: 'access_denied', description: 'Wrong email or verification code.' });

    const navigated = page.waitForURL(`${app.origin}/callback#**`, { timeout: 20_000 });
    void page.evaluate(
      ([verificationCode, address]) =>
        (window as unknown as { webAuth: { passwordlessLogin(options: unknown, cb: (err: unknown) => void): void } }).webAuth.passwordlessLogin(
          { connection: 'email', email: address, verificationCode },
          () => undefined,
        ),
      [code, email] as const,
    );
    await navigated;
    const parsed = await page.evaluate(
      () =>
        new Promise<Outcome>((resolve) => {
          (window as unknown as { webAuth: { parseHash(cb: (err: unknown, res: unknown) => void): void } }).webAuth.parseHash((err, res) =>
            resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome),
          );
        }),
    );
    expect(parsed.err).toBeNull();
    expect(parsed.res).toMatchObject({ idTokenPayload: { email, email_verified: true } });
    await page.close();
  });

  it('passwordlessStart sends a magic link that carries the redirect URI and response type; without them none is sent', async () => {
    const page = await appPage(allowing.context);
    const email = `js-magic-link-${library}@example.com`;
    // The instance has the redirect URI and `token id_token`.
    const started = await call(page, 'passwordlessStart', { connection: 'email', email, send: 'link' });
    expect(started.err).toBeNull();
    const message = (await server.registry.outbox.recent()).find((entry) => entry.message.to === email);
    const link = new URL(/https:\/\/\S+\/passwordless\/verify_redirect\?\S+/.exec(message?.channel === 'email' ? message.message.text : '')?.[0] ?? 'x:');
    expect([link.searchParams.get('redirect_uri'), link.searchParams.get('response_type')]).toEqual([`${app.origin}/callback`, 'token id_token']);

    const bare = await page.evaluate(
      ([namespace, options]) =>
        new Promise<unknown>((resolve) => {
          type Start = (options: unknown, cb: (err: unknown) => void) => void;
          const Library = (window as unknown as Record<string, { WebAuth: new (options: unknown) => { passwordlessStart: Start } }>)[namespace];
          try {
            new Library!.WebAuth(options).passwordlessStart({ connection: 'email', email: 'js-no-redirect@example.com', send: 'link' }, (err) => resolve(JSON.parse(JSON.stringify(err ?? null))));
          } catch (thrown) {
            resolve({ thrown: String(thrown) });
          }
        }),
      [library === 'latchkey' ? 'latchkey' : 'auth0', { domain: new URL(server.url).host, clientID: fx.spa.clientId }] as const,
    );
    // Neither sends it: the reference throws for the missing response type; ours answers the spec's check by callback.
    if (library === 'latchkey') expect(bare).toMatchObject({ code: 'invalid_request', description: 'redirectUri option is required to send a link' });
    else expect(bare).toEqual({ thrown: 'Error: responseType is required' });
    expect((await server.registry.outbox.recent()).some((entry) => entry.message.to === 'js-no-redirect@example.com')).toBe(false);
    await page.close();
  });

  it('third-party cookies blocked: without a verification page the application gets access_denied', async () => {
    const page = await appPage(blocking.context);
    const parsed = await loginAndParse(page);
    expect(parsed.res).toBeNull();
    expect(parsed.err).toMatchObject({ error: 'access_denied' });
    expect(String(parsed.err?.errorDescription)).toContain('cross_origin_loc');
    await page.close();
  });

  it('the verification page reads the verifier through the application page (also under the former method name); where even that is blocked, access_denied', async () => {
    try {
      for (const verifyPath of ['/verify', '/verify-legacy']) {
        expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_loc: `${app.origin}${verifyPath}` })).status).toBe(200);
        // A browser that dropped our third-party cookie but lets the application's frame read its own storage:
        // /authorize arrives without the verifier cookie that /co/authenticate set.
        const page = await appPage(allowing.context);
        const verifyRequests: string[] = [];
        page.on('request', (request) => void (request.url().startsWith(`${app.origin}/verify`) && verifyRequests.push(new URL(request.url()).pathname)));
        let dropped = false;
        await page.route(`${server.url}/authorize?**`, async (route) => {
          // Only the first /authorize loses it; the one after our verification page carries what /co/verify set.
          // (Chromium adds cookies after interception, from the jar: clearing the jar is what drops it.)
          if (!dropped) await allowing.context.clearCookies({ name: CO_VERIFIER_COOKIE });
          dropped = true;
          await route.continue();
        });
        const verified = await loginAndParse(page);
        expect(verified.err).toBeNull();
        expect(verified.res).toMatchObject({ idTokenPayload: { sub: fx.user.userId } });
        expect(verifyRequests).toEqual([verifyPath]);
        await page.close();
      }

      // Third-party cookies blocked: the frame cannot read the application's cookie either; the page gives up.
      const blockedPage = await appPage(blocking.context);
      const refused = await loginAndParse(blockedPage);
      expect(refused.err).toMatchObject({ error: 'access_denied' });
      expect(String(refused.err?.errorDescription)).toContain('verification page did not hand over the verifier');
      await blockedPage.close();
    } finally {
      await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_loc: null });
    }
  });
});
