import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundleOrigin, type BundleOrigin } from './support/acul-bundles.js';
import { configureAculBundle } from './support/acul-screens.js';
import { startCallbackServer } from './support/callback-server.js';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { freshCode } from './support/totp.js';
import { PLATFORM, SECURITY_KEY, type VirtualAuthenticator } from './support/webauthn-page.js';

const PASSWORD = 'A second factor in Chromium 123!';



/** What the MFA bundle (test/fixtures/acul/mfa.ts) read through the SDK's screen class. */
interface SdkView {
  name: string;
  data: Record<string, unknown> | null;
  publicKey: Record<string, unknown> | null;
  webAuthnType: string | null;
  enrolledFactors: string[] | null;
  submittedFormData: Record<string, unknown> | null;
  errors: { code: string; message: string }[];
  state: string;
}

/** A browser context (a user's browser), with a virtual authenticator attached to its page when given. */
interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId?: string;
}

/**
 * The hosted multi-factor screens in Chromium, on a server over a real socket at http://localhost:<port> (a secure
 * context; the RP ID is `localhost`). The standard pages run their own WebAuthn ceremony against CDP virtual
 * authenticators (a USB security key, a platform authenticator with user verification); a tenant bundle written with
 * the platform's Advanced Customizations SDK runs the SDK's MFA screen classes unmodified (their constructors check the
 * screen name; their methods post what the platform's screens take). The HTTP suite (mfa-hosted.test.ts) covers both
 * dialects; the browser parts run on SQLite.
 */
describe('hosted MFA screens in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let bundles: BundleOrigin;
  /**
   * The applications' callback page. (A route cannot answer an https callback that does not exist: the browser
   * follows the screens' redirect to it itself, and Playwright's routes never see a redirect's target.)
   */
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  /** Standard pages. */
  let fx: LoginFixture;
  /** An application whose MFA screens run the SDK bundle. */
  let acul: LoginFixture;
  const devices: Device[] = [];
  const used = new Set<string>();

  const enableOnly = async (...factors: string[]) => {
    for (const factor of ['otp', 'sms', 'email', 'recovery-code', 'webauthn-roaming', 'webauthn-platform']) {
      const answer = await api('PUT', `/guardian/factors/${factor}`, { enabled: factors.includes(factor) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
  };

  async function newUser(app: LoginFixture, name: string): Promise<string> {
    const email = `${name}-${Date.now()}@mfa-chromium.example`;
    const created = await api('POST', '/users', { connection: app.connection, email, password: PASSWORD, email_verified: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return email;
  }

  /** A new browser (context), with a virtual authenticator when given. */
  async function device(authenticator?: VirtualAuthenticator): Promise<Device> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const opened: Device = { context, page, cdp };
    if (authenticator) opened.authenticatorId = await addAuthenticator(opened, authenticator);
    devices.push(opened);
    return opened;
  }

  async function addAuthenticator(on: Device, authenticator: VirtualAuthenticator): Promise<string> {
    await on.cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await on.cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', automaticPresenceSimulation: true, ...authenticator },
    });
    return authenticatorId;
  }

  /** /authorize with prompt=login, then the standard login page with the password: the page after it. */
  async function passwordLogin(page: Page, app: LoginFixture, email: string): Promise<void> {
    const query = new URLSearchParams({ client_id: app.web.clientId, redirect_uri: app.web.callback, response_type: 'code', scope: 'openid email', state: 'app-state', prompt: 'login' });
    await page.goto(`${server.url}/authorize?${query.toString()}`);
    await page.fill('input[name="username"]', email);
    await page.fill('input[name="password"]', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }

  const screenOf = (page: Page) => page.getAttribute('main[data-screen]', 'data-screen');
  const pageError = (page: Page) => page.textContent('#page-error p');

  /** Submits the standard page's form with its main button (on the WebAuthn screens: the ceremony first). */
  const submit = (page: Page) => Promise.all([page.waitForNavigation(), page.click('form button[type="submit"]:not([name])')]);

  /** The code the page reached the application's callback with, exchanged: the ID token's claims. */
  async function claimsAtCallback(page: Page, app: LoginFixture): Promise<Record<string, unknown>> {
    await page.waitForURL(`${app.web.callback}?**`);
    const url = new URL(page.url());
    expect(url.searchParams.get('state')).toBe('app-state');
    const code = url.searchParams.get('code');
    expect(code, url.href).toEqual(expect.any(String));
    const answer = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: app.web.callback, client_id: app.web.clientId, client_secret: app.web.clientSecret }),
    });
    const tokens = (await answer.json()) as Record<string, unknown>;
    expect(answer.status, JSON.stringify(tokens)).toBe(200);
    return decodeJwt(String(tokens.id_token));
  }

  /** Waits until the bundle constructed the SDK's class for `screen`: what the class read. */
  async function sdkScreen(page: Page, screen: string): Promise<SdkView> {
    await page.waitForSelector('body[data-acul-ready]', { timeout: 10_000 });
    const ready = await page.getAttribute('body', 'data-acul-ready');
    expect(ready, ready === 'true' ? '' : ((await page.textContent('#acul-fatal')) ?? '')).toBe('true');
    const view = await page.evaluate(() => (window as unknown as { aculMfa: { view: SdkView } }).aculMfa.view);
    expect(view.name).toBe(screen);
    expect(view.state).toEqual(expect.any(String));
    expect(view.state.length).toBeGreaterThan(0);
    return view;
  }

  /** Calls a method of the SDK's screen class; it posts a form: waits for the next document. */
  async function sdkAct(page: Page, method: string, argument?: unknown): Promise<void> {
    await Promise.all([
      page.waitForNavigation(),
      page.evaluate(([name, value]) => (window as unknown as { aculMfa: { act(method: unknown, argument: unknown): void } }).aculMfa.act(name, value), [method, argument] as const),
    ]);
  }

  beforeAll(async () => {
    [server, browser, bundles, callback] = await Promise.all([startTestServer({ dialect: 'sqlite', listen: true }), launchChromium(), startBundleOrigin(), startCallbackServer()]);
    api = managementApi(server, 'socket');
    fx = await provisionLogin(server, { callbackBase: callback.origin });
    acul = await provisionLogin(server, { callbackBase: callback.origin });
    expect((await api('PUT', '/guardian/policies', ['all-applications'])).status).toBe(200);
    const screens = [
      ['mfa', 'mfa-begin-enroll-options'],
      ['mfa', 'mfa-login-options'],
      ['mfa-otp', 'mfa-otp-enrollment-qr'],
      ['mfa-otp', 'mfa-otp-enrollment-code'],
      ['mfa-otp', 'mfa-otp-challenge'],
      ['mfa-recovery-code', 'mfa-recovery-code-enrollment'],
      ['mfa-recovery-code', 'mfa-recovery-code-challenge'],
      ['mfa-recovery-code', 'mfa-recovery-code-challenge-new-code'],
      ['mfa-webauthn', 'mfa-webauthn-roaming-enrollment'],
      ['mfa-webauthn', 'mfa-webauthn-roaming-challenge'],
      ['mfa-webauthn', 'mfa-webauthn-platform-enrollment'],
      ['mfa-webauthn', 'mfa-webauthn-platform-challenge'],
    ] as const;
    await configureAculBundle(api, bundles.mfaUrl, screens, [acul.web.clientId]);
  }, 60_000);
  afterAll(async () => {
    for (const opened of devices) await opened.context.close().catch(() => undefined);
    await browser?.close();
    await bundles?.close();
    await callback?.close();
    await server?.close();
  });

  describe('standard pages with a virtual authenticator', () => {
    it('enrolls a security key (then a recovery code), is challenged for it at the next login, and shows webauthn-failed when another key is used', async () => {
      await enableOnly('webauthn-roaming', 'recovery-code');
      const email = await newUser(fx, 'key');
      const user = await device(SECURITY_KEY);
      await passwordLogin(user.page, fx, email);
      expect(await screenOf(user.page)).toBe('mfa-webauthn-roaming-enrollment');
      expect(new URL(user.page.url()).pathname).toBe('/u/mfa-webauthn-roaming-enrollment');
      await submit(user.page);
      const credentials = (await user.cdp.send('WebAuthn.getCredentials', { authenticatorId: user.authenticatorId ?? '' })).credentials;
      expect(credentials).toHaveLength(1);
      expect(credentials[0]?.rpId).toBe('localhost');

      expect(await screenOf(user.page)).toBe('mfa-recovery-code-enrollment');
      expect(await user.page.textContent('#mfa-text-code')).toMatch(/^[A-Z0-9]{24}$/);
      await user.page.check('input[name="saved"]');
      await submit(user.page);
      const enrolled = await claimsAtCallback(user.page, fx);
      expect(enrolled.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'hwk']));

      await passwordLogin(user.page, fx, email);
      expect(await screenOf(user.page)).toBe('mfa-webauthn-roaming-challenge');
      await submit(user.page);
      expect((await claimsAtCallback(user.page, fx)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'hwk']));
      expect((await user.cdp.send('WebAuthn.getCredentials', { authenticatorId: user.authenticatorId ?? '' })).credentials[0]?.signCount).toBeGreaterThan(0);

      // Another browser with another key: the browser finds no credential it may use, the page reports the failure.
      const other = await device(SECURITY_KEY);
      await passwordLogin(other.page, fx, email);
      expect(await screenOf(other.page)).toBe('mfa-webauthn-roaming-challenge');
      await submit(other.page);
      expect(new URL(other.page.url()).pathname).toBe('/u/mfa-webauthn-roaming-challenge');
      expect(await screenOf(other.page)).toBe('mfa-webauthn-roaming-challenge');
      expect(await pageError(other.page)).toBe('Your key could not be verified. Try again.');
    });

    it('enrolls this device\'s platform authenticator with user verification, and fails the challenge while the user is not verified', async () => {
      await enableOnly('webauthn-platform');
      const email = await newUser(fx, 'platform');
      const user = await device(PLATFORM);
      await passwordLogin(user.page, fx, email);
      expect(await screenOf(user.page)).toBe('mfa-webauthn-platform-enrollment');
      await submit(user.page);
      // No recovery code factor: straight to the application.
      expect((await claimsAtCallback(user.page, fx)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'hwk']));

      await passwordLogin(user.page, fx, email);
      expect(await screenOf(user.page)).toBe('mfa-webauthn-platform-challenge');
      await user.cdp.send('WebAuthn.setUserVerified', { authenticatorId: user.authenticatorId ?? '', isUserVerified: false });
      await submit(user.page);
      expect(await screenOf(user.page)).toBe('mfa-webauthn-platform-challenge');
      expect(await pageError(user.page)).toBe('Your key could not be verified. Try again.');
      // Verified again: the new challenge of the same screen is answered.
      await user.cdp.send('WebAuthn.setUserVerified', { authenticatorId: user.authenticatorId ?? '', isUserVerified: true });
      await submit(user.page);
      expect((await claimsAtCallback(user.page, fx)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    });
  });

  describe('the Advanced Customizations SDK\'s MFA screen classes, unmodified', () => {
    it('enrolls an authenticator app and a recovery code, remembers the browser, and takes the recovery code elsewhere', async () => {
      await enableOnly('otp', 'sms', 'recovery-code');
      const email = await newUser(acul, 'sdk-otp');
      const user = await device();
      await passwordLogin(user.page, acul, email);

      const options = await sdkScreen(user.page, 'mfa-begin-enroll-options');
      expect(options.enrolledFactors).toEqual([]);
      // The SDK passes this screen's data through as the server gives it: the factors to offer.
      expect(options.data).toEqual({ factors: ['otp', 'sms'] });
      await sdkAct(user.page, 'enroll', { action: 'otp' });

      const qr = await sdkScreen(user.page, 'mfa-otp-enrollment-qr');
      expect(qr.data?.qr_code).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
      await sdkAct(user.page, 'toggleView');

      const text = await sdkScreen(user.page, 'mfa-otp-enrollment-code');
      const secret = String(text.data?.text_code);
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      await sdkAct(user.page, 'continue', { code: freshCode(secret, used) });

      const unconfirmed = await sdkScreen(user.page, 'mfa-recovery-code-enrollment');
      expect(unconfirmed.data?.textCode).toMatch(/^[A-Z0-9]{24}$/);
      // Not copied: the SDK posts no `saved`, the screen asks again (with a new code).
      await sdkAct(user.page, 'continue', { isCodeCopied: false });
      const recovery = await sdkScreen(user.page, 'mfa-recovery-code-enrollment');
      expect(recovery.errors.map((error) => error.code)).toEqual(['no-confirmation']);
      const recoveryCode = String(recovery.data?.textCode);
      expect(recoveryCode).toMatch(/^[A-Z0-9]{24}$/);
      await sdkAct(user.page, 'continue', { isCodeCopied: true });
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));

      // The next login: the challenge, with "remember this device".
      await passwordLogin(user.page, acul, email);
      const challenge = await sdkScreen(user.page, 'mfa-otp-challenge');
      expect(challenge.data?.showRememberDevice).toBe(true);
      expect(challenge.enrolledFactors).toEqual(expect.arrayContaining(['otp', 'recovery-code']));
      await sdkAct(user.page, 'continue', { code: freshCode(secret, used), rememberDevice: true });
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['mfa', 'otp']));
      // Remembered: the password alone reaches the application.
      await passwordLogin(user.page, acul, email);
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));

      // Another browser is asked; it picks the recovery code, and records the next one.
      const elsewhere = await device();
      await passwordLogin(elsewhere.page, acul, email);
      await sdkScreen(elsewhere.page, 'mfa-otp-challenge');
      await sdkAct(elsewhere.page, 'tryAnotherMethod');
      const choices = await sdkScreen(elsewhere.page, 'mfa-login-options');
      expect(choices.data?.enrolled_factors).toEqual(expect.arrayContaining(['otp', 'recovery-code']));
      await sdkAct(elsewhere.page, 'enroll', { action: 'recovery-code' });
      await sdkScreen(elsewhere.page, 'mfa-recovery-code-challenge');
      await sdkAct(elsewhere.page, 'continue', { code: recoveryCode });
      const next = await sdkScreen(elsewhere.page, 'mfa-recovery-code-challenge-new-code');
      expect(next.data?.textCode).toMatch(/^[A-Z0-9]{24}$/);
      expect(next.data?.textCode).not.toBe(recoveryCode);
      await sdkAct(elsewhere.page, 'continue');
      expect((await claimsAtCallback(elsewhere.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    });

    it('enrolls a security key with MfaWebAuthnRoamingEnrollment.enroll() and proves it with MfaWebAuthnRoamingChallenge.verify()', async () => {
      await enableOnly('webauthn-roaming');
      const email = await newUser(acul, 'sdk-key');
      const user = await device(SECURITY_KEY);
      await passwordLogin(user.page, acul, email);

      const enrollment = await sdkScreen(user.page, 'mfa-webauthn-roaming-enrollment');
      expect(enrollment.webAuthnType).toBe('webauthn-roaming');
      expect(enrollment.publicKey).toMatchObject({ rp: { id: 'localhost' }, challenge: expect.any(String), user: { id: expect.any(String) } });
      await sdkAct(user.page, 'enroll', {});
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'hwk']));

      await passwordLogin(user.page, acul, email);
      const challenge = await sdkScreen(user.page, 'mfa-webauthn-roaming-challenge');
      expect(challenge.data).toEqual({ webAuthnType: 'webauthn-roaming', showRememberDevice: true });
      expect(challenge.publicKey).toMatchObject({ challenge: expect.any(String), allowCredentials: [expect.objectContaining({ id: expect.any(String) })] });
      // verify() posts to /u/mfa-webauthn-challenge, its state in the body.
      const posted = user.page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/u/mfa-webauthn-challenge');
      await sdkAct(user.page, 'verify', {});
      const request = await posted;
      expect(new URL(request.url()).search).toBe('');
      expect(new URLSearchParams(request.postData() ?? '').get('state')).toBe(challenge.state);
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'hwk']));
    });

    it('enrolls this device with MfaWebAuthnPlatformEnrollment.submitPasskeyCredential() and remembers the browser after MfaWebAuthnPlatformChallenge.verify()', async () => {
      await enableOnly('webauthn-platform');
      const email = await newUser(acul, 'sdk-platform');
      const user = await device(PLATFORM);
      await passwordLogin(user.page, acul, email);
      const enrollment = await sdkScreen(user.page, 'mfa-webauthn-platform-enrollment');
      expect(enrollment.publicKey).toMatchObject({ authenticatorSelection: { authenticatorAttachment: 'platform', userVerification: 'required' } });
      await sdkAct(user.page, 'submitPasskeyCredential');
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));

      await passwordLogin(user.page, acul, email);
      const challenge = await sdkScreen(user.page, 'mfa-webauthn-platform-challenge');
      expect(challenge.data).toEqual({ showRememberDevice: true });
      expect(challenge.publicKey).toMatchObject({ challenge: expect.any(String), userVerification: 'required' });
      await sdkAct(user.page, 'verify', { rememberDevice: true });
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
      // Remembered: the next login does not ask.
      await passwordLogin(user.page, acul, email);
      expect((await claimsAtCallback(user.page, acul)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    });
  });
});
