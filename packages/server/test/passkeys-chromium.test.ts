import { decodeJwt } from 'jose';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedLoginWorld, type HostedLoginWorld } from './support/hosted-login-browser.js';

type StoredCredential = { credentialId: string; isResidentCredential: boolean; privateKey: string; rpId?: string; userHandle?: string; signCount: number };

/** A browser context with one virtual platform authenticator (CTAP2, internal, resident keys, user verification). */
interface Device {
  context: BrowserContext;
  page: Page;
  credentials(): Promise<StoredCredential[]>;
  /** Puts a credential of another device's authenticator in this one (the same passkey, synced or kept). */
  adopt(credential: StoredCredential): Promise<void>;
}

/**
 * Passkeys on the hosted pages in Chromium with a CDP virtual authenticator: a signup with a passkey (an account
 * without a password) then a login with it in a new browser context (no session, the passkey button on login-id);
 * a password login offered a passkey (progressive enrollment) once per login until declined for good, then a
 * passkey login by that user. The ID tokens' amr say how.
 */
describe('passkeys on the hosted pages (Chromium)', () => {
  let world: HostedLoginWorld;
  let connectionId: string;
  const devices: Device[] = [];

  async function device(): Promise<Device> {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    const cdp: CDPSession = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const made: Device = {
      context,
      page,
      credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as StoredCredential[],
      adopt: async (credential) => {
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
      },
    };
    devices.push(made);
    return made;
  }

  const authorize = (page: Page, params: Record<string, string> = {}) => {
    const query = new URLSearchParams({ client_id: world.fx.web.clientId, redirect_uri: world.fx.web.callback, response_type: 'code', scope: 'openid email', state: 'app-state', ...params });
    return page.goto(`${world.server.url}/authorize?${query.toString()}`);
  };
  const screen = (page: Page) => page.locator('main.widget').getAttribute('data-screen');
  const idToken = async (page: Page) => decodeJwt(String((await world.exchangeAtCallback(page, world.fx.web)).id_token));

  /** A password login on the identifier-first screens: where it lands (a screen name, or the callback). */
  async function passwordLogin(page: Page, email: string, password: string) {
    await authorize(page, { prompt: 'login' });
    await page.fill('#field-username', email);
    await page.click('form:not([data-passkey-login]) button[type=submit]');
    await page.waitForURL(/\/u\/login\/password/);
    await page.fill('#field-password', password);
    await page.click('form button[type=submit]');
    await page.waitForURL((url) => url.pathname === '/u/passkey-enrollment' || url.pathname === '/callback');
  }

  /**
   * Logs in with the passkey button on login-id: the claims of the ID token the application gets. The passkey comes
   * into the device's authenticator once the page is shown: the autofill request the page started finds none, so
   * it is the button that logs in.
   */
  async function passkeyLogin(on: Device, credential: StoredCredential) {
    await authorize(on.page, { prompt: 'login' });
    expect(await screen(on.page)).toBe('login-id');
    // The browser offers its passkeys under the identifier field too (conditional UI).
    expect(await on.page.getAttribute('#field-username', 'autocomplete')).toBe('username webauthn');
    await on.adopt(credential);
    await on.page.click('#passkey-login');
    return idToken(on.page);
  }

  beforeAll(async () => {
    world = await startHostedLoginWorld();
    expect((await world.api('PATCH', '/prompts', { identifier_first: true })).status).toBe(200);
    const connections = await world.api('GET', `/connections?name=${world.fx.connection}`);
    connectionId = String((connections.body as unknown as { id: string }[])[0]?.id);
    const options = {
      authentication_methods: { password: { enabled: true }, passkey: { enabled: true } },
      passkey_options: { challenge_ui: 'both', progressive_enrollment_enabled: true, local_enrollment_enabled: false },
    };
    const patched = await world.api('PATCH', `/connections/${connectionId}`, { options });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const made of devices) await made.context.close();
    await world?.close();
  });

  it('signs up with a passkey (no password), then logs in with it from a new browser context', async () => {
    const first = await device();
    const email = 'passkey-signup@example.com';
    await authorize(first.page, { screen_hint: 'signup' });
    expect(await screen(first.page)).toBe('signup-id');
    await first.page.fill('#field-email', email);
    await first.page.click('form button[type=submit]');
    await first.page.waitForURL(/\/u\/passkey-enrollment/);
    expect(await screen(first.page)).toBe('passkey-enrollment');
    await first.page.click('form[data-webauthn] button[type=submit]:not([name])');
    const signedUp = await idToken(first.page);
    // A passkey with user verification is two factors, phishing-resistant: amr has the key and mfa, no password,
    // and acr names the multi-factor policy it satisfies.
    expect(signedUp.amr).toEqual(['hwk', 'mfa']);
    expect(signedUp.acr).toBe('http://schemas.openid.net/pape/policies/2007/06/multi-factor');
    const userId = String(signedUp.sub);
    const [created] = await first.credentials();
    expect(created?.isResidentCredential).toBe(true);
    const methods = await world.api('GET', `/users/${encodeURIComponent(userId)}/authentication-methods`);
    expect(methods.body).toEqual([expect.objectContaining({ type: 'passkey' })]);
    // No password was set: a password login of this account is refused, whatever the password.
    const attempt = await fetch(`${world.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'http://auth0.com/oauth/grant-type/password-realm', realm: world.fx.connection, username: email, password: 'any password at all', client_id: world.fx.web.clientId, client_secret: world.fx.web.clientSecret, scope: 'openid' }),
    });
    expect(attempt.status).toBe(403);

    const loggedIn = await passkeyLogin(await device(), created as StoredCredential);
    expect(loggedIn.sub).toBe(userId);
    expect(loggedIn.amr).toEqual(['hwk', 'mfa']);
  }, 60_000);

  it('offers a passkey after a password login once per login until declined for good; a passkey created then logs in', async () => {
    const { email, password, userId } = world.fx.user;
    const phone = await device();
    // Offered, and declined for this login only: the login goes on to the application.
    await passwordLogin(phone.page, email, password);
    expect(await screen(phone.page)).toBe('passkey-enrollment');
    await phone.page.click('button[value="abort-passkey-enrollment"]');
    // A password alone: the ID token shows no amr (it does once a second factor is among it).
    expect((await idToken(phone.page)).amr).toBeUndefined();
    // The next login offers it again; this time the user creates one.
    await passwordLogin(phone.page, email, password);
    expect(await screen(phone.page)).toBe('passkey-enrollment');
    await phone.page.click('form[data-webauthn] button[type=submit]:not([name])');
    const enrolled = await idToken(phone.page);
    expect(enrolled.sub).toBe(userId);
    // Creating a passkey proves nothing more about the user: the login is still a password one.
    expect(enrolled.amr).toBeUndefined();
    // On login-id, the browser holding the passkey offers it by autofill (conditional mediation, which the virtual
    // authenticator answers at once): the page logs in with it without a click.
    await authorize(phone.page, { prompt: 'login' });
    const autofilled = await idToken(phone.page);
    expect(autofilled.sub).toBe(userId);
    expect(autofilled.amr).toEqual(['hwk', 'mfa']);
    // With a passkey, no more offers after a password (from a browser without the passkey, which has no autofill).
    const kiosk = await device();
    await passwordLogin(kiosk.page, email, password);
    expect(kiosk.page.url()).toContain('/callback');
    const [credential] = await phone.credentials();
    const loggedIn = await passkeyLogin(await device(), credential as StoredCredential);
    expect(loggedIn.sub).toBe(userId);
    expect(loggedIn.amr).toEqual(['hwk', 'mfa']);
  }, 60_000);

  it("remembers 'don't show again' (dontShowAgain=on, as the SDK posts it) in the user's app_metadata", async () => {
    const email = 'declines-passkeys@example.com';
    const password = 'A password I keep 4 now!';
    const created = await world.api('POST', '/users', { connection: world.fx.connection, email, password, email_verified: true });
    expect(created.status).toBe(201);
    const browser = await device();
    await passwordLogin(browser.page, email, password);
    expect(await screen(browser.page)).toBe('passkey-enrollment');
    await browser.page.evaluate(() => {
      const form = document.querySelector('form[data-webauthn]');
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = 'dontShowAgain';
      field.value = 'on';
      form?.append(field);
    });
    await browser.page.click('button[value="abort-passkey-enrollment"]');
    await idToken(browser.page);
    const user = await world.api('GET', `/users/${encodeURIComponent(String(created.body.user_id))}`);
    expect(user.body.app_metadata).toEqual({ passkey_enrollment_declined: true });
    await passwordLogin(browser.page, email, password);
    expect(browser.page.url()).toContain('/callback');
  }, 60_000);
});
