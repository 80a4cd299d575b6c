import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './support/harness.js';
import { startHostedLoginWorld, type HostedLoginWorld } from './support/hosted-login-browser.js';
import type { LoginFixture } from './support/login-fixture.js';
import type { ManagementApi } from './support/management-api.js';

/**
 * The standard (not customized) hosted screens of the platform's prompt model, in a real browser: identifier first
 * (login-id, then login-password), the link that changes the identifier, signup in two steps, a passwordless
 * e-mail login with its code read from the development outbox, and the pages' language and custom text. Every
 * login ends with a code at the application's callback, exchanged for tokens.
 */
describe('standard hosted screens in Chromium', () => {
  let world: HostedLoginWorld;
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  /** An application whose only connection is passwordless (e-mail): no database connection. */
  let otpClient: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    world = await startHostedLoginWorld();
    ({ server, fx, api, otpClient } = world);
  }, 60_000);
  afterAll(async () => world?.close());

  const identifierFirst = async (on: boolean) => {
    const answer = await api('PATCH', '/prompts', { identifier_first: on });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.identifier_first).toBe(on);
  };
  const enabledLocales = async (locales: string[]) => {
    const answer = await api('PATCH', '/tenants/settings', { enabled_locales: locales });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };

  const open = (clientId: string, params: Record<string, string> = {}) => world.open(clientId, params);

  const screenOf = (page: Page) => page.getAttribute('main', 'data-screen');
  /** The password rules under the field, as the user reads them (nested items indented by one space). */
  const rulesOf = (page: Page) =>
    page.$$eval('#password-rules > ul > li', (items) =>
      items.flatMap((item) => [(item.firstChild?.textContent ?? '').trim(), ...Array.from(item.querySelectorAll('li')).map((inner) => ` ${inner.textContent ?? ''}`)]),
    );
  const pathOf = (page: Page) => new URL(page.url()).pathname;

  /** Submits the page's form with `button` (its main button by default) and waits for the next document. */
  async function submit(page: Page, button = 'button[type="submit"]:not([name])'): Promise<void> {
    await Promise.all([page.waitForNavigation(), page.click(button)]);
  }

  /** The code at the application's callback, exchanged for tokens; the ID token's claims. */
  async function loggedIn(page: Page, client: { clientId: string; clientSecret: string }): Promise<Record<string, unknown>> {
    const tokens = await world.exchangeAtCallback(page, client);
    const payload = String(tokens.id_token).split('.')[1] ?? '';
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  }

  it('identifier first: login-id, then login-password (which refuses a wrong password), then a code at the callback', async () => {
    await identifierFirst(true);
    const { page, close } = await open(fx.web.clientId);
    expect(pathOf(page)).toBe('/u/login/identifier');
    expect(await screenOf(page)).toBe('login-id');
    const state = new URL(page.url()).searchParams.get('state') ?? '';
    expect(state).not.toBe('');
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(1);

    // The password screen is not reached before an identifier: it sends the browser back.
    await page.goto(`${server.url}/u/login/password?state=${encodeURIComponent(state)}`);
    expect(pathOf(page)).toBe('/u/login/identifier');

    await submit(page);
    expect(await screenOf(page)).toBe('login-id');
    expect(await page.textContent('#page-error')).toContain('Enter your e-mail address.');

    const field = page.getByLabel('E-mail address', { exact: true });
    expect(await field.getAttribute('name')).toBe('username');
    await field.fill(fx.user.email);
    await submit(page);
    expect(pathOf(page)).toBe('/u/login/password');
    expect(await screenOf(page)).toBe('login-password');
    expect(await page.textContent('h1')).toBe('Enter your password');
    expect(await page.textContent('.identifier > span')).toBe(fx.user.email);

    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await submit(page);
    expect(await screenOf(page)).toBe('login-password');
    expect(await page.textContent('#page-error')).toContain('The e-mail address or password is not correct.');
    expect(await page.getAttribute('#field-password', 'aria-invalid')).toBe('true');

    await page.getByLabel('Password', { exact: true }).fill(fx.user.password);
    await submit(page);
    const claims = await loggedIn(page, fx.web);
    expect(claims.sub).toBe(fx.user.userId);
    await close();
  });

  it('the edit-identifier link of login-password goes back to login-id, and the password is checked for the new identifier', async () => {
    await identifierFirst(true);
    const { page, close } = await open(fx.web.clientId);
    await page.getByLabel('E-mail address', { exact: true }).fill('someone-else@example.com');
    await submit(page);
    expect(await page.textContent('.identifier > span')).toBe('someone-else@example.com');

    await Promise.all([page.waitForURL(/\/u\/login\/identifier\?state=/), page.getByRole('link', { name: 'Change the e-mail address' }).click()]);
    expect(await screenOf(page)).toBe('login-id');
    const field = page.getByLabel('E-mail address', { exact: true });
    expect(await field.inputValue()).toBe('someone-else@example.com');
    await field.fill(fx.user.email);
    await submit(page);
    expect(await screenOf(page)).toBe('login-password');
    expect(await page.textContent('.identifier > span')).toBe(fx.user.email);
    await page.getByLabel('Password', { exact: true }).fill(fx.user.password);
    await submit(page);
    expect((await loggedIn(page, fx.web)).sub).toBe(fx.user.userId);
    await close();
  });

  it('signs up in two steps (signup-id, then signup-password with the rules listed) and logs the new user in', async () => {
    await identifierFirst(true);
    const email = `two-step-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { page, close } = await open(fx.web.clientId, { screen_hint: 'signup' });
    expect(pathOf(page)).toBe('/u/signup/identifier');
    expect(await screenOf(page)).toBe('signup-id');
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    await page.getByLabel('E-mail address', { exact: true }).fill('first-try@example.com');
    await submit(page);
    expect(pathOf(page)).toBe('/u/signup/password');
    expect(await screenOf(page)).toBe('signup-password');
    expect(await page.textContent('.identifier > span')).toBe('first-try@example.com');

    // Its edit link goes back to signup-id with the address kept.
    await Promise.all([page.waitForURL(/\/u\/signup\/identifier\?state=/), page.getByRole('link', { name: 'Change the e-mail address' }).click()]);
    expect(await screenOf(page)).toBe('signup-id');
    const field = page.getByLabel('E-mail address', { exact: true });
    expect(await field.inputValue()).toBe('first-try@example.com');
    await field.fill(email);
    await submit(page);
    expect(await screenOf(page)).toBe('signup-password');
    expect(await page.textContent('.identifier > span')).toBe(email);
    expect(await page.isVisible('#password-rules')).toBe(true);
    expect(await page.getAttribute('#field-password', 'aria-describedby')).toBe('password-rules');

    await page.getByLabel('Password', { exact: true }).fill('Two-step-passw0rd!');
    await submit(page);
    const claims = await loggedIn(page, fx.web);
    expect(claims.email).toBe(email);
    const users = await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`);
    expect(users.body.map((user) => user.user_id)).toEqual([claims.sub]);
    // Only the address the user settled on got an account.
    expect((await api('GET', `/users-by-email?email=${encodeURIComponent('first-try@example.com')}`)).body).toEqual([]);
    await close();
  });

  it('logs in with only a passwordless e-mail connection: login-id, then the code from the outbox (resend sends a new one), then the callback', async () => {
    // Identifier first is off: an application without a database connection starts at login-id all the same.
    await identifierFirst(false);
    const address = `otp-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { page, close } = await open(otpClient.clientId);
    expect(pathOf(page)).toBe('/u/login/identifier');
    expect(await screenOf(page)).toBe('login-id');
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Trouble logging in?' }).count()).toBe(0);
    await page.getByLabel('E-mail address', { exact: true }).fill(address);
    await submit(page);
    expect(pathOf(page)).toBe('/u/login/passwordless-email-challenge');
    expect(await screenOf(page)).toBe('login-passwordless-email-code');
    expect(await page.textContent('header > p')).toBe(`We sent a code to ${address}. Enter it below.`);
    // The address is shown with a link that reads "Change", is named for screen readers, and leads back to login-id.
    expect(await page.textContent('.identifier > span')).toBe(address);
    const change = page.getByRole('link', { name: 'Change the e-mail address', exact: true });
    expect(await change.textContent()).toBe('Change');
    const state = new URL(page.url()).searchParams.get('state') ?? '';
    expect(await change.getAttribute('href')).toBe(`/u/login/identifier?state=${encodeURIComponent(state)}`);

    /** The codes sent to the address, newest first, as the development outbox page shows them. */
    const outbox = await page.context().newPage();
    const codesSent = async () => {
      await outbox.goto(`${server.url}/dev/outbox`);
      const bodies = await outbox.locator('article', { has: outbox.locator('dd', { hasText: address }) }).locator('.body').allTextContents();
      return bodies.map((body) => /\b(\d{6})\b/.exec(body)?.[1] ?? '');
    };
    const [first] = await codesSent();
    expect(first).toMatch(/^\d{6}$/);

    await submit(page, 'button[name="action"][value="resend"]');
    expect(await screenOf(page)).toBe('login-passwordless-email-code');
    expect(await page.locator('#page-error').count()).toBe(0);
    const codes = await codesSent();
    expect(codes).toHaveLength(2);
    const second = codes[0] ?? '';
    expect(second).toMatch(/^\d{6}$/);
    expect(second).not.toBe(first);

    // The new code replaced the first one.
    await page.getByLabel('Code', { exact: true }).fill(first ?? '');
    await submit(page);
    expect(await screenOf(page)).toBe('login-passwordless-email-code');
    expect(await page.textContent('#page-error')).toContain('This code is not valid.');

    await page.getByLabel('Code', { exact: true }).fill(second);
    await submit(page);
    const claims = await loggedIn(page, otpClient);
    expect(claims.email).toBe(address);
    await close();

    // Another login follows the link back to login-id, where the user can give a different address.
    const other = await open(otpClient.clientId);
    await other.page.getByLabel('E-mail address', { exact: true }).fill(`otp-other-${Math.random().toString(36).slice(2, 8)}@example.com`);
    await submit(other.page);
    expect(await screenOf(other.page)).toBe('login-passwordless-email-code');
    await Promise.all([other.page.waitForURL(/\/u\/login\/identifier\?state=/), other.page.getByRole('link', { name: 'Change the e-mail address' }).click()]);
    expect(await screenOf(other.page)).toBe('login-id');
    expect(await other.page.getByLabel('E-mail address', { exact: true }).count()).toBe(1);
    await other.close();
  });

  it('speaks French with ui_locales=fr once the tenant enables French, and English before', async () => {
    await identifierFirst(true);
    const before = await open(fx.web.clientId, { ui_locales: 'fr' });
    expect(await before.page.getAttribute('html', 'lang')).toBe('en');
    expect(await before.page.textContent('h1')).toBe('Log in');
    await before.close();

    await enabledLocales(['en', 'fr']);
    try {
      const { page, close } = await open(fx.web.clientId, { ui_locales: 'fr-CA fr' });
      expect(await page.getAttribute('html', 'lang')).toBe('fr');
      expect(await screenOf(page)).toBe('login-id');
      expect(await page.textContent('h1')).toBe('Connexion');
      expect(await page.textContent('button[type="submit"]')).toBe('Continuer');
      expect(await page.getByRole('link', { name: 'Créer un compte' }).count()).toBe(1);
      await page.getByLabel('Adresse e-mail', { exact: true }).fill(fx.user.email);
      await submit(page);
      expect(await screenOf(page)).toBe('login-password');
      expect(await page.textContent('h1')).toBe('Saisissez votre mot de passe');
      await page.getByLabel('Mot de passe', { exact: true }).fill('pas le mot de passe');
      await submit(page);
      expect(await page.textContent('#page-error')).toContain('L’adresse e-mail ou le mot de passe est incorrect.');
      await page.getByLabel('Mot de passe', { exact: true }).fill(fx.user.password);
      await submit(page);
      expect((await loggedIn(page, fx.web)).sub).toBe(fx.user.userId);
      await close();

      // Without ui_locales the page is in the tenant's first enabled language.
      const plain = await open(fx.web.clientId);
      expect(await plain.page.getAttribute('html', 'lang')).toBe('en');
      await plain.close();
    } finally {
      await enabledLocales(['en']);
    }
  });

  it('lists the password rules of the signup page in French, before the first attempt and under a weak password\'s message', async () => {
    await identifierFirst(false);
    await enabledLocales(['en', 'fr']);
    try {
      const { page, close } = await open(fx.web.clientId, { screen_hint: 'signup', ui_locales: 'fr' });
      expect(pathOf(page)).toBe('/u/signup');
      expect(await page.getAttribute('html', 'lang')).toBe('fr');
      expect(await page.textContent('#password-rules > p')).toBe('Votre mot de passe doit respecter ces règles :');
      // The connection's policy is the default (good): its rules and their numbers, in the page's language.
      const french = [
        'Au moins 8 caractères',
        'Au moins 3 de ces 4 types de caractères :',
        ' Lettres minuscules (a-z)',
        ' Lettres majuscules (A-Z)',
        ' Chiffres (0-9)',
        ' Caractères spéciaux (par exemple !@#$%^&*)',
      ];
      expect(await rulesOf(page)).toEqual(french);

      await page.getByLabel('Adresse e-mail', { exact: true }).fill(`french-${Math.random().toString(36).slice(2, 8)}@example.com`);
      await page.getByLabel('Mot de passe', { exact: true }).fill('court');
      await submit(page);
      expect(await screenOf(page)).toBe('signup');
      expect(await page.textContent('#page-error > p:not(.detail)')).toBe('Ce mot de passe est trop faible.');
      expect(await page.locator('#page-error > p.detail').allTextContents()).toEqual(french.map((rule) => (rule.startsWith(' ') ? ` *${rule}` : `* ${rule}`)));
      expect(await rulesOf(page)).toEqual(french);
      await close();
    } finally {
      await enabledLocales(['en']);
    }
  });

  it('shows the tenant\'s custom text of login-id (placeholders filled) in its language only, and the default once removed', async () => {
    await identifierFirst(true);
    await enabledLocales(['en', 'fr']);
    try {
      const put = await api('PUT', '/prompts/login-id/custom-text/en', { 'login-id': { title: 'Welcome back to ${clientName}', buttonText: 'Next step' } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const clientName = String((await api('GET', `/clients/${fx.web.clientId}`)).body.name);
      const { page, close } = await open(fx.web.clientId);
      expect(await screenOf(page)).toBe('login-id');
      expect(await page.textContent('h1')).toBe(`Welcome back to ${clientName}`);
      expect(await page.textContent('button[type="submit"]')).toBe('Next step');
      // The keys not overridden keep their default text.
      expect(await page.textContent('header > p')).toContain('Log in with your');
      await page.getByLabel('E-mail address', { exact: true }).fill(fx.user.email);
      await submit(page);
      // The override is for login-id only.
      expect(await page.textContent('h1')).toBe('Enter your password');
      expect(await page.textContent('button[type="submit"]')).toBe('Continue');
      await close();

      const french = await open(fx.web.clientId, { ui_locales: 'fr' });
      expect(await french.page.textContent('h1')).toBe('Connexion');
      await french.close();

      expect((await api('PUT', '/prompts/login-id/custom-text/en', {})).status).toBe(200);
      const after = await open(fx.web.clientId);
      expect(await after.page.textContent('h1')).toBe('Log in');
      await after.close();
    } finally {
      await enabledLocales(['en']);
    }
  });
});
