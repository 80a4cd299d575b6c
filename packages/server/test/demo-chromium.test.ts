import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';

/**
 * The development demo at /demo/ in Chromium, against a running Latchkey over a real socket: it drives only the
 * browser library's public API (sign up, embedded, redirect, popup and passwordless login, profile, user_metadata,
 * silent renewal, logout). In production it is not served.
 */
describe('demo application', () => {
  let server: TestServer;
  let browser: Browser;
  const email = 'demo-user@example.com';
  const password = 'Demo-passw0rd-long!';

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_DEMO: 'on' } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const status = (page: Page) => page.locator('#status');

  async function demo(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/demo/`);
    await expect.poll(() => status(page).textContent()).toBe('Not logged in.');
    return page;
  }

  it('signs up, logs in embedded, edits user_metadata, renews silently, survives a reload and logs out', async () => {
    const page = await demo();
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('#signup');
    await expect.poll(() => page.textContent('#message')).toBe('Signed up: now log in.');

    await page.click('#login-embedded');
    await expect.poll(() => status(page).textContent(), { timeout: 15_000 }).toBe(`Logged in as ${email}`);
    await expect.poll(() => page.textContent('#profile')).toContain(`"email": "${email}"`);

    await page.fill('#metadata', '{"theme": "dark", "plan": "free"}');
    await page.click('#save-metadata');
    await expect.poll(() => page.textContent('#message')).toBe('Saved.');
    await expect.poll(() => page.textContent('#profile')).toContain('"theme": "dark"');
    await page.fill('#metadata', '{"plan": null}');
    await page.click('#save-metadata');
    await expect.poll(async () => JSON.parse((await page.textContent('#profile')) ?? '{}').user_metadata).toEqual({ theme: 'dark' });

    await page.click('#renew');
    await expect.poll(() => page.textContent('#message')).toBe('');
    await page.reload();
    await expect.poll(() => status(page).textContent(), { timeout: 15_000 }).toBe(`Logged in as ${email}`);

    await page.click('#logout');
    await page.waitForURL(`${server.url}/demo/`);
    await expect.poll(() => status(page).textContent(), { timeout: 15_000 }).toBe('Not logged in.');
    await page.context().close();
  });

  /** The hosted login page, in the demo's tab or in its popup. */
  async function signInOnHostedPage(page: Page) {
    await page.waitForSelector('input[name="username"]');
    await page.fill('input[name="username"]', email);
    await page.fill('input[name="password"]', password);
    await page.click('button[type="submit"]');
  }

  it('logs in by redirect through the hosted page and through a popup', async () => {
    const page = await demo();
    await page.click('#login-redirect');
    await signInOnHostedPage(page);
    await expect.poll(() => status(page).textContent(), { timeout: 15_000 }).toBe(`Logged in as ${email}`);
    await page.context().close();

    const popupPage = await demo();
    const opened = popupPage.waitForEvent('popup');
    await popupPage.click('#login-popup');
    await signInOnHostedPage(await opened);
    await expect.poll(() => status(popupPage).textContent(), { timeout: 15_000 }).toBe(`Logged in as ${email}`);
    await popupPage.context().close();
  });

  it('logs in with an e-mailed code', async () => {
    const page = await demo();
    const address = 'demo-passwordless@example.com';
    await page.fill('#passwordless-email', address);
    await page.click('#send-code');
    await expect.poll(() => page.textContent('#message')).toBe('Code sent: enter it below.');
    const message = (await server.registry.outbox.recent()).find((entry) => entry.message.to === address);
    const code = /\b(\d{6})\b/.exec(message?.channel === 'email' ? message.message.text : '')?.[1] ?? '';
    await page.fill('#code', code);
    await page.click('#verify-code');
    await expect.poll(() => status(page).textContent(), { timeout: 15_000 }).toBe(`Logged in as ${address}`);
    await page.context().close();
  });

  it('is not served in production', async () => {
    const production = await startTestServer({ dialect: 'sqlite', env: { LATCHKEY_DEMO: 'on', NODE_ENV: 'production' } });
    try {
      expect((await production.app.inject({ method: 'GET', url: '/demo/' })).statusCode).toBe(404);
      expect(await production.registry.storage.clients.get(production.registry.tenantId, 'latchkey-demo')).toBeUndefined();
    } finally {
      await production.close();
    }
  });
});
