import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

/**
 * What a new user meets on the hosted pages, in a real browser: the login field says what the connection accepts,
 * the signup and reset pages list the password rules before the first attempt, the development outbox is a
 * readable page whose links work, and the "password changed" page leads back to the application.
 */
describe('hosted pages for a new user in Chromium', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let browser: Browser;
  /** A second connection of the web application: user names, and a strict policy with every extra rule. */
  const strict = `strict-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    const created = await managementApi(server)('POST', '/connections', {
      name: strict,
      strategy: 'auth0',
      enabled_clients: [fx.web.clientId],
      options: {
        requires_username: true,
        passwordPolicy: 'excellent',
        password_complexity_options: { min_length: 12 },
        password_dictionary: { enable: true },
        password_no_personal_info: { enable: true },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(params: Record<string, string>): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', ...params });
    await page.goto(`${server.url}/authorize?${query.toString()}`);
    return { page, close: () => context.close() };
  }

  /** The rules list under the password field, as the user reads it (nested items indented by one space). */
  const rulesOf = (page: Page) =>
    page.$$eval('#password-rules > ul > li', (items) =>
      items.flatMap((item) => [
        (item.firstChild?.textContent ?? '').trim(),
        ...Array.from(item.querySelectorAll('li')).map((inner) => ` ${inner.textContent ?? ''}`),
      ]),
    );

  it('labels the login field "E-mail address" on an e-mail connection and says so when the password is wrong', async () => {
    const { page, close } = await open({});
    const field = page.getByLabel('E-mail address', { exact: true });
    expect(await field.getAttribute('type')).toBe('email');
    expect(await field.getAttribute('name')).toBe('username');
    expect(await page.getByLabel('Username or e-mail address').count()).toBe(0);
    await field.fill(fx.user.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(new URL(page.url()).pathname).toBe('/u/login');
    expect(await page.getAttribute('main', 'data-screen')).toBe('login');
    expect(await page.textContent('#page-error')).toContain('The e-mail address or password is not correct.');
    // The typed address is kept for the next attempt, the password never.
    expect(await field.inputValue()).toBe(fx.user.email);
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await close();
  });

  it('labels it "Username or e-mail address" where the connection has user names', async () => {
    const { page, close } = await open({ connection: strict });
    const field = page.getByLabel('Username or e-mail address', { exact: true });
    expect(await field.getAttribute('type')).toBe('text');
    await close();
  });

  it('lists the password rules of the connection on the signup page before the first attempt', async () => {
    const standard = await open({ screen_hint: 'signup' });
    expect(await standard.page.locator('#page-error').count()).toBe(0);
    expect(await standard.page.isVisible('#password-rules')).toBe(true);
    expect(await standard.page.getAttribute('#field-password', 'aria-describedby')).toBe('password-rules');
    expect(await rulesOf(standard.page)).toEqual([
      'At least 8 characters',
      'At least 3 of these 4 kinds of characters:',
      ' Lower-case letters (a-z)',
      ' Upper-case letters (A-Z)',
      ' Digits (0-9)',
      ' Special characters (such as !@#$%^&*)',
    ]);
    await standard.close();

    const strictPage = await open({ screen_hint: 'signup', connection: strict });
    const rules = await rulesOf(strictPage.page);
    expect(rules[0]).toBe('At least 12 characters');
    expect(rules.slice(-3)).toEqual([
      'No character more than 2 times in a row (so not "aaa")',
      'Not a commonly used password',
      'Not based on your name, username or e-mail address',
    ]);
    await strictPage.close();
  });

  it('shows the reset e-mail in a readable outbox whose link opens the reset page, which leads back to the application', async () => {
    const { page, close } = await open({});
    await Promise.all([page.waitForURL(/\/u\/reset-password\/request\//), page.getByRole('link', { name: 'Forgot your password?' }).click()]);
    // The request screen is the one of the login's database connection.
    expect(new URL(page.url()).pathname).toBe(`/u/reset-password/request/${encodeURIComponent(fx.connection)}`);
    await page.getByLabel('E-mail address').fill(fx.user.email);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.getAttribute('main', 'data-screen')).toBe('reset-password-email');
    expect(await page.textContent('h1')).toBe('Check your e-mail');

    await page.goto(`${server.url}/dev/outbox`);
    const message = page.locator('article').first();
    expect(await message.locator('h2').textContent()).toBe('Reset your password');
    expect(await message.locator('dd').first().textContent()).toBe(fx.user.email);
    const link = message.getByRole('link', { name: /\/u\/reset-password\?ticket=/ });
    await Promise.all([page.waitForURL(/\/u\/reset-password\?ticket=/), link.click()]);

    expect(await page.getAttribute('main', 'data-screen')).toBe('reset-password');
    expect(await rulesOf(page)).toContain('At least 8 characters');
    expect(await page.getAttribute('#field-password-reset', 'aria-describedby')).toBe('password-rules');
    await page.getByLabel('New password', { exact: true }).fill('Brand-new-passw0rd');
    await page.getByLabel('New password again', { exact: true }).fill('Brand-new-passw0rd');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(new URL(page.url()).pathname).toBe('/u/reset-password');
    expect(await page.getAttribute('main', 'data-screen')).toBe('reset-password-success');
    expect(await page.textContent('h1')).toBe('Your password was changed');
    const back = page.getByRole('link', { name: /^Back to Web / });
    expect(await back.getAttribute('href')).toBe('https://app.example.com/');
    await close();
  });

  it('answers /favicon.ico with an icon, which the hosted pages link', async () => {
    const icon = await fetch(`${server.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const { page, close } = await open({});
    expect(await page.getAttribute('link[rel="icon"]', 'href')).toBe('/favicon.ico');
    await close();
  });
});
