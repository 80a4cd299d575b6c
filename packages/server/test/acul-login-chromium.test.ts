import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundleOrigin, type BundleOrigin } from './support/acul-bundles.js';
import { configureAculBundle, renderedBySdk, sdkErrors, shownJson, submitThroughSdk } from './support/acul-screens.js';
import type { TestServer } from './support/harness.js';
import { startHostedLoginWorld, type HostedLoginWorld } from './support/hosted-login-browser.js';
import type { LoginFixture } from './support/login-fixture.js';
import type { ManagementApi } from './support/management-api.js';

/**
 * Tenant bundles written with the platform's Advanced Customizations SDK (`@auth0/auth0-acul-js`, and its React
 * wrapper), built and served from their own origin as a tenant ships them, run unmodified on Latchkey's hosted
 * login in Chromium: each flow ends with a code at the application's callback, exchanged for tokens.
 */
const HOSTILE = `"><script>window.__pwned=1</script></script>\u2028'\${x}{{ tenant.name }}`;

describe('tenant bundles written with the platform SDK on the hosted login, in Chromium', () => {
  let world: HostedLoginWorld;
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let bundles: BundleOrigin;
  let callback: HostedLoginWorld['callback'];
  /** An application whose only connection is passwordless (e-mail). */
  let otpClient: { clientId: string; clientSecret: string };
  /** An application whose only connection is passwordless (SMS). */
  let smsClient: { clientId: string; clientSecret: string };

  const SCREENS = [
    ['login-id', 'login-id'],
    ['login-password', 'login-password'],
    ['login', 'login'],
    ['signup-id', 'signup-id'],
    ['signup-password', 'signup-password'],
    ['signup', 'signup'],
    ['reset-password', 'reset-password-request'],
    ['reset-password', 'reset-password-email'],
    ['reset-password', 'reset-password'],
    ['reset-password', 'reset-password-success'],
    ['login-passwordless', 'login-passwordless-email-code'],
    ['login-passwordless', 'login-passwordless-sms-otp'],
    ['email-verification', 'email-verification-result'],
    ['logout', 'logout'],
    ['logout', 'logout-complete'],
    ['logout', 'logout-aborted'],
  ] as const;

  /** Every screen runs `bundleUrl` for the web and the passwordless applications; other applications get standard pages. */
  const configureBundle = (bundleUrl: string) => configureAculBundle(api, bundleUrl, SCREENS, [fx.web.clientId, otpClient.clientId, smsClient.clientId]);

  const identifierFirst = async (on: boolean) => expect((await api('PATCH', '/prompts', { identifier_first: on })).status).toBe(200);

  beforeAll(async () => {
    world = await startHostedLoginWorld();
    ({ server, fx, api, callback, otpClient } = world);
    const created = await api('POST', '/clients', { name: 'SMS app', app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: ['authorization_code'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    smsClient = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    expect((await api('POST', '/connections', { name: 'sms-acul', strategy: 'sms', enabled_clients: [smsClient.clientId] })).status).toBe(201);
    bundles = await startBundleOrigin();
    await configureBundle(bundles.vanillaUrl);
  }, 120_000);
  afterAll(async () => {
    await bundles?.close();
    await world?.close();
  });

  const open = (clientId: string, params: Record<string, string> = {}) => world.open(clientId, params);

  const rendered = renderedBySdk;
  const submit = submitThroughSdk;

  const exchange = (page: Page, client: { clientId: string; clientSecret: string }) => world.exchangeAtCallback(page, client);

  const errorsOf = sdkErrors;
  const lastMessageTo = async (to: string) => {
    const entry = (await server.registry.outbox.recent(200)).find((candidate) => candidate.message.to === to && candidate.channel === 'email');
    return entry?.channel === 'email' ? entry.message.text : '';
  };

  it('logs in identifier first (login-id, then login-password), with a wrong password read back through getErrors()', async () => {
    await identifierFirst(true);
    const { page, close } = await open(fx.web.clientId);
    await rendered(page, 'login-id');
    expect(new URL(page.url()).pathname).toBe('/u/login/identifier');
    await page.fill('#username', fx.user.email);
    await submit(page);
    await rendered(page, 'login-password');
    expect(new URL(page.url()).pathname).toBe('/u/login/password');
    expect(await page.inputValue('#username')).toBe(fx.user.email);
    await page.fill('#password', 'not the password');
    await submit(page);
    await rendered(page, 'login-password');
    const errors = await errorsOf(page);
    expect(errors?.map((error) => error.code)).toEqual(['wrong-email-credentials']);
    expect(errors?.[0]?.message).toBe('The e-mail address or password is not correct.');
    await page.fill('#password', fx.user.password);
    await submit(page);
    await exchange(page, fx.web);
    await close();
  });

  it('logs in with both fields on one screen (login) when identifier first is off', async () => {
    await identifierFirst(false);
    const { page, close } = await open(fx.web.clientId);
    await rendered(page, 'login');
    const texts = JSON.parse((await page.textContent('#acul-texts')) ?? '{}') as Record<string, string>;
    expect(texts.title).toBe('Log in');
    await page.fill('#username', fx.user.email);
    await page.fill('#password', fx.user.password);
    await submit(page);
    await exchange(page, fx.web);
    await close();
  });

  it('signs up on signup-id then signup-password, and on the one-screen signup', async () => {
    await identifierFirst(true);
    const first = await open(fx.web.clientId, { screen_hint: 'signup' });
    await rendered(first.page, 'signup-id');
    await first.page.fill('#email', `acul-two-step-${Date.now()}@example.com`);
    await submit(first.page);
    await rendered(first.page, 'signup-password');
    await first.page.fill('#password', 'A long and new passw0rd!');
    await submit(first.page);
    await exchange(first.page, fx.web);
    await first.close();

    await identifierFirst(false);
    const second = await open(fx.web.clientId, { screen_hint: 'signup' });
    await rendered(second.page, 'signup');
    await second.page.fill('#email', `acul-one-step-${Date.now()}@example.com`);
    await second.page.fill('#password', 'short');
    await submit(second.page);
    await rendered(second.page, 'signup');
    expect((await errorsOf(second.page))?.map((error) => error.code)).toEqual(['password-too-weak']);
    await second.page.fill('#email', `acul-one-step-${Date.now()}@example.com`);
    await second.page.fill('#password', 'A long and new passw0rd!');
    await submit(second.page);
    await exchange(second.page, fx.web);
    await second.close();
  });

  it('requests a password reset, resends it, completes it from the e-mailed link, and logs in with the new password', async () => {
    const user = { email: `acul-reset-${Date.now()}@example.com`, password: 'Original passw0rd!' };
    expect((await api('POST', '/users', { connection: fx.connection, email: user.email, password: user.password })).status).toBe(201);
    await identifierFirst(false);
    const { page, close } = await open(fx.web.clientId);
    await rendered(page, 'login');
    await Promise.all([page.waitForNavigation(), page.click('#reset-password-link')]);
    await rendered(page, 'reset-password-request');
    expect(new URL(page.url()).pathname).toBe(`/u/reset-password/request/${fx.connection}`);
    await page.fill('#username', user.email);
    await submit(page);
    await rendered(page, 'reset-password-email');
    const before = (await server.registry.outbox.recent(200)).length;
    await submit(page, '#resend');
    await rendered(page, 'reset-password-email');
    expect((await server.registry.outbox.recent(200)).length).toBe(before + 1);
    const link = /https?:\/\/\S+\/u\/reset-password\?ticket=[\w-]+/.exec(await lastMessageTo(user.email))?.[0];
    expect(link).toBeTruthy();
    await page.goto(link ?? '');
    await rendered(page, 'reset-password');
    await page.fill('#new-password', 'Brand-new passw0rd!');
    await page.fill('#confirm-password', 'Something else 123!');
    await submit(page);
    await rendered(page, 'reset-password');
    expect((await errorsOf(page))?.map((error) => error.code)).toEqual(['password-mismatch']);
    await page.fill('#new-password', 'Brand-new passw0rd!');
    await page.fill('#confirm-password', 'Brand-new passw0rd!');
    await submit(page);
    await rendered(page, 'reset-password-success');
    await close();

    const again = await open(fx.web.clientId);
    await rendered(again.page, 'login');
    await again.page.fill('#username', user.email);
    await again.page.fill('#password', 'Brand-new passw0rd!');
    await submit(again.page);
    await exchange(again.page, fx.web);
    await again.close();
  });

  it('logs in passwordless: login-id sends an e-mailed code that login-passwordless-email-code takes', async () => {
    await identifierFirst(false);
    const email = `acul-otp-${Date.now()}@example.com`;
    const { page, close } = await open(otpClient.clientId);
    // Only a passwordless connection: the identifier comes first whatever the prompt settings say.
    await rendered(page, 'login-id');
    await page.fill('#username', email);
    await submit(page);
    await rendered(page, 'login-passwordless-email-code');
    expect(new URL(page.url()).pathname).toBe('/u/login/passwordless-email-challenge');
    await page.fill('#code', '000000');
    await submit(page);
    await rendered(page, 'login-passwordless-email-code');
    expect((await errorsOf(page))?.map((error) => error.code)).toEqual(['invalid-verification-code']);
    const code = /\b(\d{6})\b/.exec(await lastMessageTo(email))?.[1];
    expect(code).toBeTruthy();
    await page.fill('#code', code ?? '');
    await submit(page);
    const tokens = await exchange(page, otpClient);
    const claims = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims.email).toBe(email);
    await close();
  });

  it('logs in passwordless by SMS: login-id texts a code that login-passwordless-sms-otp takes (a wrong code, a resend through the SDK)', async () => {
    const phone = '+15557654321';
    const codesSent = async () =>
      (await server.registry.outbox.recent(200)).flatMap((entry) => (entry.channel === 'sms' && entry.message.to === phone ? [/\b(\d{6})\b/.exec(entry.message.body)?.[1] ?? ''] : []));
    const { page, close } = await open(smsClient.clientId);
    await rendered(page, 'login-id');
    await page.fill('#username', phone);
    await submit(page);
    await rendered(page, 'login-passwordless-sms-otp');
    expect(new URL(page.url()).pathname).toBe('/u/login/passwordless-sms-challenge');
    expect(await shownJson(page, '#acul-data')).toMatchObject({ phone_number: phone });
    expect(new URL((await page.getAttribute('#back-link', 'href')) ?? '', server.url).pathname).toBe('/u/login/identifier');
    await page.fill('#code', '000000');
    await submit(page);
    await rendered(page, 'login-passwordless-sms-otp');
    expect((await errorsOf(page))?.map((error) => error.code)).toEqual(['invalid-verification-code']);
    await submit(page, '#resend');
    await rendered(page, 'login-passwordless-sms-otp');
    const codes = await codesSent();
    expect(codes).toHaveLength(2);
    // The outbox lists the newest first: the resent code.
    await page.fill('#code', codes[0] ?? '');
    await submit(page);
    const tokens = await exchange(page, smsClient);
    const claims = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims.sub).toMatch(/^sms\|/);
    await close();
  });

  it('verifies a new signup\'s address on email-verification-result: the SDK reads the status and loginLink', async () => {
    await identifierFirst(false);
    const email = `acul-verify-${Date.now()}@example.com`;
    const { page, close } = await open(fx.web.clientId, { screen_hint: 'signup' });
    await rendered(page, 'signup');
    await page.fill('#email', email);
    await page.fill('#password', 'A long and new passw0rd!');
    await submit(page);
    const tokens = await exchange(page, fx.web);
    const userId = String(JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1] ?? '', 'base64url').toString()).sub);
    expect((await api('GET', `/users/${encodeURIComponent(userId)}`)).body).toMatchObject({ email_verified: false });
    const link = /https?:\/\/\S+\/u\/email-verification\?ticket=[^\s#]+/.exec(await lastMessageTo(email))?.[0];
    expect(link).toBeTruthy();

    await page.goto(link ?? '');
    await rendered(page, 'email-verification-result');
    expect(await shownJson(page, '#acul-data')).toEqual({ status: 'success' });
    // Back to the application (the site of its callback), where the user logs in.
    expect(await page.getAttribute('#login-link', 'href')).toBe(`${callback.origin}/`);
    expect((await api('GET', `/users/${encodeURIComponent(userId)}`)).body).toMatchObject({ email_verified: true });

    // A spent ticket names no application, so no bundle is chosen for it: the standard page says so.
    await page.goto(link ?? '');
    expect(await page.getAttribute('main.widget', 'data-screen')).toBe('email-verification-result');
    expect(await page.textContent('main.widget h1')).toBe('Not verified');
    await close();
  });

  it('runs the React wrapper bundle the same way (login-id, login-password)', async () => {
    await configureBundle(bundles.reactUrl);
    try {
      await identifierFirst(true);
      const { page, close } = await open(fx.web.clientId);
      await rendered(page, 'login-id');
      expect(await page.getAttribute('body', 'data-acul-flavour')).toBe('react');
      await page.fill('#username', fx.user.email);
      await submit(page);
      await rendered(page, 'login-password');
      await page.fill('#password', 'wrong again');
      await submit(page);
      await rendered(page, 'login-password');
      await page.waitForFunction(() => (document.getElementById('acul-hook-errors')?.textContent ?? '').includes('wrong-email-credentials'));
      await page.fill('#password', fx.user.password);
      await submit(page);
      await exchange(page, fx.web);
      await close();
    } finally {
      await configureBundle(bundles.vanillaUrl);
    }
  });

  it('runs the bundle only for the applications its filters name; others get the standard pages', async () => {
    await identifierFirst(false);
    const { page, close } = await open(fx.spa.clientId, { code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    await page.waitForSelector('main.widget');
    expect(await page.getAttribute('main.widget', 'data-screen')).toBe('login');
    expect(await page.$('body[data-acul-ready]')).toBeNull();
    await close();
  });

  it('keeps hostile request values inert in the context and reads them back exactly', async () => {
    await identifierFirst(true);
    const { page, close } = await open(fx.web.clientId, { login_hint: HOSTILE, 'ext-theme': HOSTILE });
    await rendered(page, 'login-id');
    const seen = await page.evaluate(() => {
      const context = (window as unknown as { universal_login_context: { untrusted_data: { authorization_params: Record<string, string> } } }).universal_login_context;
      return { params: context.untrusted_data.authorization_params, pwned: (window as unknown as { __pwned?: number }).__pwned ?? null };
    });
    expect(seen).toEqual({ params: { login_hint: HOSTILE, 'ext-theme': HOSTILE }, pwned: null });
    await close();
  });

  describe('the logout question of /oidc/logout without id_token_hint', () => {
    const loggedOutUrl = () => `${callback.origin}/logged-out`;
    const logoutUrl = (clientId: string, params: Record<string, string> = {}) =>
      `${server.url}/oidc/logout?${new URLSearchParams({ client_id: clientId, ...params }).toString()}`;

    /** A browser logged in through the bundle's login screen, left at the application's callback. */
    async function loggedIn() {
      await identifierFirst(false);
      const opened = await open(fx.web.clientId);
      await rendered(opened.page, 'login');
      await opened.page.fill('#username', fx.user.email);
      await opened.page.fill('#password', fx.user.password);
      await submit(opened.page);
      await exchange(opened.page, fx.web);
      return opened;
    }

    /** What a silent authorization (`prompt=none`) answers in this browser: a code while the session lives. */
    async function silently(page: Page): Promise<URLSearchParams> {
      const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', state: 'silent', prompt: 'none' });
      await page.goto(`${server.url}/authorize?${query.toString()}`);
      await page.waitForURL(`${callback.origin}/**`);
      return new URL(page.url()).searchParams;
    }

    it('renders the SDK’s logout screen; deny keeps the session, accept ends it and lands at the logout URL', async () => {
      const { page, close } = await loggedIn();
      const url = logoutUrl(fx.web.clientId, { post_logout_redirect_uri: loggedOutUrl(), state: 'bye' });
      await page.goto(url);
      await rendered(page, 'logout');
      const texts = JSON.parse((await page.textContent('#acul-texts')) ?? '{}') as Record<string, string>;
      expect(texts).toMatchObject({ acceptButtonText: 'Log out', declineButtonText: 'Stay logged in', userSalute: 'Hello Test User,' });
      await submit(page, '#logout-deny');
      await rendered(page, 'logout-aborted');
      expect((await silently(page)).get('code')).toBeTruthy();

      await page.goto(url);
      await rendered(page, 'logout');
      await Promise.all([page.waitForURL(`${loggedOutUrl()}**`), page.click('#logout-accept')]);
      expect(new URL(page.url()).searchParams.get('state')).toBe('bye');
      expect((await silently(page)).get('error')).toBe('login_required');
      await close();
    });

    it('asks on the standard page for an application no bundle is configured for: both buttons, then logout-complete', async () => {
      const { page, close } = await loggedIn();
      // The rendering configurations name the web application only: the single-page application gets standard pages.
      await page.goto(logoutUrl(fx.spa.clientId));
      expect(await page.getAttribute('main.widget', 'data-screen')).toBe('logout');
      expect(await page.textContent('main.widget .salute')).toBe('Hello Test User,');
      await Promise.all([page.waitForNavigation(), page.click('button[value="deny"]')]);
      expect(await page.getAttribute('main.widget', 'data-screen')).toBe('logout-aborted');
      expect((await silently(page)).get('code')).toBeTruthy();

      await page.goto(logoutUrl(fx.spa.clientId));
      await Promise.all([page.waitForNavigation(), page.click('button[value="accept"]')]);
      expect(await page.getAttribute('main.widget', 'data-screen')).toBe('logout-complete');
      expect(await page.textContent('main.widget h1')).toBe('You are logged out');
      expect((await silently(page)).get('error')).toBe('login_required');
      await close();
    });

    it('refuses a forged answer (a wrong token, or the right one posted from another origin) with 403, the session kept', async () => {
      const { page, close } = await loggedIn();
      const url = logoutUrl(fx.web.clientId, { post_logout_redirect_uri: loggedOutUrl() });
      await page.goto(url);
      await rendered(page, 'logout');
      const token = await page.evaluate(() => (window as unknown as { universal_login_context: { transaction: { state: string } } }).universal_login_context.transaction.state);
      /** Posts an answer as a plain HTML form from the page's current document; gives the answer's status. */
      const post = async (fields: Record<string, string>) => {
        const [response] = await Promise.all([
          page.waitForNavigation(),
          page.evaluate(
            ({ action, fields }) => {
              const form = Object.assign(document.createElement('form'), { method: 'POST', action });
              for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
              document.body.append(form);
              form.submit();
            },
            { action: url, fields },
          ),
        ]);
        return response?.status();
      };
      expect(await post({ action: 'accept', state: 'not-the-token' })).toBe(403);
      expect(await page.getAttribute('main.widget', 'data-screen')).toBe('error');
      // Another origin posting the right token: a page of the same site (localhost, another port), so the browser
      // sends the session cookie along, and only the Origin gives the post away.
      const sameSite = new URL(callback.origin);
      sameSite.hostname = new URL(server.url).hostname;
      await page.goto(`${sameSite.origin}/elsewhere`);
      expect(await post({ action: 'accept', state: token })).toBe(403);
      expect((await silently(page)).get('code')).toBeTruthy();
      await close();
    });
  });
});
