import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppPages } from './support/app-page-server.js';
import { launchChromiumProfile } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

type Outcome = { err: Record<string, unknown> | null; res: unknown };

/**
 * The official browser library (npm auth0-js v10, unmodified) in Chromium, on an application page of another
 * site (https://127.0.0.1) against Latchkey over HTTPS (https://localhost): embedded login through
 * /co/authenticate and /authorize?login_ticket with third-party cookies allowed and blocked, the verification
 * page path, signup and changePassword, and the library's error objects for each failure.
 */
describe('auth0-js v10 embedded login, signup and password reset in Chromium', () => {
  let certDir: string;
  let server: TestServer;
  let app: Awaited<ReturnType<typeof startAppPages>>;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  let allowing: Awaited<ReturnType<typeof launchChromiumProfile>>;
  let blocking: Awaited<ReturnType<typeof launchChromiumProfile>>;

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'latchkey-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
    const tls = { cert: readFileSync(join(certDir, 'cert.pem')), key: readFileSync(join(certDir, 'key.pem')) };
    setGlobalDispatcher(new Agent({ connect: { ca: tls.cert } }));
    server = await startTestServer({ dialect: 'sqlite', listen: true, https: tls });
    app = await startAppPages(
      () => ({ domain: new URL(server.url).host, clientID: fx.spa.clientId, redirectUri: `${app.origin}/callback`, responseType: 'token id_token', scope: 'openid profile email' }),
      tls,
    );
    fx = await provisionLogin(server, { callbackBase: app.origin });
    api = managementApi(server);
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
    expect((await api('POST', '/connections', { name: 'email', strategy: 'email', enabled_clients: [fx.spa.clientId] })).status).toBe(201);
    allowing = await launchChromiumProfile({ thirdPartyCookies: true });
    blocking = await launchChromiumProfile({ thirdPartyCookies: false });
  }, 60_000);
  afterAll(async () => {
    await allowing?.close();
    await blocking?.close();
    await app?.close();
    await server?.close();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  async function appPage(context: BrowserContext): Promise<Page> {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${app.origin}/`);
    return page;
  }

  /** Calls `webAuth.<method>(options, cb)` in the page and returns what the callback got. */
  const call = (page: Page, method: string, options: Record<string, unknown>) =>
    page.evaluate(
      ([name, args]) =>
        new Promise<Outcome>((resolve) => {
          const webAuth = (window as unknown as { webAuth: Record<string, (options: unknown, cb: (err: unknown, res: unknown) => void) => void> }).webAuth;
          webAuth[name]?.(args, (err, res) => resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome));
        }),
      [method, options] as const,
    );

  /** `webAuth.login` with the fixture's user; success leaves the page for /authorize and then the callback. */
  async function loginAndParse(page: Page): Promise<Outcome> {
    const navigated = page.waitForURL(`${app.origin}/callback#**`, { timeout: 20_000 });
    void page.evaluate(
      ([realm, username, password]) =>
        (window as unknown as { webAuth: { login(options: unknown, cb: (err: unknown) => void): void } }).webAuth.login({ realm, username, password }, () => undefined),
      [fx.connection, fx.user.email, fx.user.password] as const,
    );
    await navigated;
    return page.evaluate(
      () =>
        new Promise<Outcome>((resolve) => {
          (window as unknown as { webAuth: { parseHash(cb: (err: unknown, res: unknown) => void): void } }).webAuth.parseHash((err, res) =>
            resolve(JSON.parse(JSON.stringify({ err: err ?? null, res: res ?? null })) as Outcome),
          );
        }),
    );
  }

  it('signup creates the user and reports the platform errors as the library objects', async () => {
    const page = await appPage(allowing.context);
    const email = `js-signup@example.com`;
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

    expect((await api('POST', '/users', { connection: fx.connection, email: 'js-leaked@example.com', password: 'qwerty123' })).status).toBe(201);
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { enabled: true })).status).toBe(200);
    expect((await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 2 })).status).toBe(200);
    try {
      const leaked = await login('js-leaked@example.com', 'qwerty123');
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

  it('third-party cookies blocked: without a verification page the application gets access_denied', async () => {
    const page = await appPage(blocking.context);
    const parsed = await loginAndParse(page);
    expect(parsed.res).toBeNull();
    expect(parsed.err).toMatchObject({ error: 'access_denied' });
    expect(String(parsed.err?.errorDescription)).toContain('cross_origin_loc');
    await page.close();
  });

  it('the verification page reads the verifier through the application page; where even that is blocked, access_denied', async () => {
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_loc: `${app.origin}/verify` })).status).toBe(200);
    try {
      // A browser that dropped our third-party cookie but lets the application's frame read its own storage.
      const page = await appPage(allowing.context);
      await page.route('**/co/authenticate', async (route) => {
        const response = await route.fetch();
        const headers = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => name.toLowerCase() !== 'set-cookie'));
        await route.fulfill({ response, headers });
      });
      const verified = await loginAndParse(page);
      expect(verified.err).toBeNull();
      expect(verified.res).toMatchObject({ idTokenPayload: { sub: fx.user.userId } });
      await page.close();

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
