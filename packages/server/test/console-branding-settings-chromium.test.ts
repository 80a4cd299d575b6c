import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPT_LANGUAGES as CONSOLE_LANGUAGES, PROMPT_SCREENS as CONSOLE_SCREENS } from '../../console/src/catalogue.js';
import { ADMINISTRATOR_CONNECTION } from '../src/services/console-setup.js';
import { PROMPT_LANGUAGES } from '../src/services/prompts/languages.js';
import { PROMPT_SCREENS } from '../src/services/rendering/catalogue.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const CALLBACK = 'https://storefront.example.com/callback';

/** What a page shows once it has loaded, or undefined while it navigates (the preview reloads after each save). */
async function settled<T>(page: Page, read: (page: Page) => Promise<T>): Promise<T | undefined> {
  try {
    await page.waitForLoadState('load');
    return await read(page);
  } catch {
    return undefined;
  }
}

const buttonColour = (page: Page) => page.locator('button[type="submit"]').first().evaluate((button) => getComputedStyle(button).backgroundColor);
const heading = (page: Page) => page.locator('h1').first().textContent({ timeout: 2_000 });

/** The `kid` in a JWT's header. */
const kidOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;

describe('console Branding and Settings in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let storefront: string;

  /** A token minted now (the harness caches its own, which a revoked key would leave refused). */
  async function freshToken(): Promise<string> {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }
  const jwksKids = async () => ((await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid).sort();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    const created = await api('POST', '/clients', { name: 'Storefront', app_type: 'regular_web', callbacks: [CALLBACK] });
    storefront = String(created.body.client_id);
    const connection = (await api('GET', `/connections?name=${ADMINISTRATOR_CONNECTION}`)).body[0] as { id: string; enabled_clients: string[] };
    expect((await api('PATCH', `/connections/${connection.id}`, { enabled_clients: [...connection.enabled_clients, storefront] })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('carries the platform prompts, screens and custom-text languages the server knows', () => {
    expect(CONSOLE_SCREENS).toEqual(PROMPT_SCREENS);
    expect([...CONSOLE_LANGUAGES].sort()).toEqual([...PROMPT_LANGUAGES].sort());
  });

  it('branding, custom texts and a rendering configuration change the real hosted login page, seen in the preview window', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await page.getByRole('link', { name: 'Branding' }).click();
      await page.getByRole('heading', { name: 'Universal login' }).waitFor();

      // The preview: Storefront's real login page in a window of its own, which cannot reach the console.
      await page.getByLabel('Application', { exact: true }).selectOption({ label: 'Storefront' });
      const [preview] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Open preview' }).click()]);
      await preview.waitForURL(/\/u\/login/);
      expect(new URL(preview.url()).origin).toBe(server.url);
      expect(await preview.evaluate(() => window.opener === null)).toBe(true);
      expect(await buttonColour(preview)).toBe('rgb(29, 78, 216)');
      const framing = await fetch(preview.url());
      expect(framing.headers.get('x-frame-options')).toBe('DENY');

      await page.getByLabel('Primary colour', { exact: true }).fill('#0a7d33');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByRole('status').filter({ hasText: 'The preview window reloaded' }).waitFor();
      await expect.poll(() => settled(preview, buttonColour)).toBe('rgb(10, 125, 51)');
      expect((await api('GET', '/branding')).body).toEqual({ colors: { primary: '#0a7d33' } });

      // A refusal of the API, in its words: a logo must be served over HTTPS.
      await page.getByLabel('Logo URL').fill('http://storefront.example.com/logo.png');
      await page.getByRole('button', { name: 'Save branding' }).click();
      expect(await page.getByRole('alert').textContent()).toMatch(/logo_url/);
      await page.getByLabel('Logo URL').fill('');
      await expectAccessible(page);
      await screenshot(page, 'branding');

      // Custom texts of the login prompt, in English.
      await page.getByRole('link', { name: 'Custom texts' }).click();
      await page.getByRole('heading', { name: 'Texts of login in en' }).waitFor();
      await page.getByRole('button', { name: 'Add a text to login' }).click();
      await page.locator('#login-key-0').fill('title');
      await page.locator('#login-text-0').fill('Welcome to the Storefront');
      await page.getByRole('button', { name: 'Add a text to login' }).click();
      await page.locator('#login-key-1').fill('buttonText');
      await page.locator('#login-text-1').fill('Sign me in');
      await page.getByRole('button', { name: 'Save texts' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await expect.poll(() => settled(preview, heading)).toBe('Welcome to the Storefront');
      expect(await preview.locator('button[type="submit"]').first().textContent()).toBe('Sign me in');
      expect((await api('GET', '/prompts/login/custom-text/en')).body).toEqual({ login: { title: 'Welcome to the Storefront', buttonText: 'Sign me in' } });
      await expectAccessible(page);
      await screenshot(page, 'branding-texts');

      // A rendering configuration of the login screen: advanced, with a head tag, for Storefront only.
      await page.getByRole('link', { name: 'Rendering' }).click();
      await page.getByRole('heading', { name: 'Rendering', exact: true }).waitFor();
      await page.getByText('Page 1 of 1 (0 configurations)').waitFor();
      await page.getByRole('button', { name: 'Configure' }).click();
      await page.getByRole('heading', { name: 'login / login' }).waitFor();
      await page.getByRole('radio', { name: /^Advanced/ }).check();
      await page.getByRole('button', { name: 'Add a head tag' }).click();
      await page.getByLabel('Attributes of head tag 1').fill('name=storefront-build\ncontent=2024.11');
      await page.getByLabel('Requests').selectOption('includes_any');
      await page.getByLabel('Applications', { exact: true }).fill(storefront);
      await page.getByLabel('Context data', { exact: true }).fill('tenant.friendly_name\ntenant.secret');
      await page.getByRole('button', { name: 'Save render settings' }).click();
      expect(await page.getByRole('alert').textContent()).toMatch(/context_configuration/);
      await page.getByLabel('Context data', { exact: true }).fill('tenant.friendly_name');
      await page.getByRole('button', { name: 'Save render settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await expect.poll(() => settled(preview, (shown) => shown.locator('meta[name="storefront-build"]').getAttribute('content', { timeout: 2_000 }))).toBe('2024.11');
      expect(await preview.evaluate(() => (window as unknown as { universal_login_context: { tenant: unknown } }).universal_login_context.tenant)).toMatchObject({ friendly_name: expect.any(String) });
      expect((await api('GET', '/prompts/login/screen/login/rendering')).body).toMatchObject({
        rendering_mode: 'advanced',
        context_configuration: ['tenant.friendly_name'],
        head_tags: [{ tag: 'meta', attributes: { name: 'storefront-build', content: '2024.11' } }],
        filters: { match_type: 'includes_any', clients: [{ id: storefront }] },
      });
      await expectAccessible(page);
      await screenshot(page, 'branding-rendering-screen');

      // Thirty more configurations: the list pages on the server, and its filters apply within each page, as the API's do.
      const others = Object.entries(PROMPT_SCREENS)
        .flatMap(([prompt, screens]) => screens.map((screen) => ({ prompt, screen, rendering_mode: 'standard' })))
        .filter((config) => config.prompt !== 'login')
        .slice(0, 30);
      expect((await api('PATCH', '/prompts/rendering', { configs: others })).status).toBe(200);
      await page.getByRole('link', { name: '← Rendering' }).click();
      await page.getByText('Page 1 of 2 (31 configurations)').waitFor();
      expect(await page.getByRole('row', { name: /login \/ login/ }).textContent()).toContain('Only 1 listed');
      await page.getByLabel('Rendering mode').selectOption('advanced');
      await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2 of 2 (31 configurations)').waitFor();
      await page.getByText('No configured screen on this page.').waitFor();
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByRole('link', { name: 'login / login' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'branding-rendering');

      // Restoring the defaults asks first; then the standard page (with the custom texts) is back.
      await page.getByRole('link', { name: 'login / login' }).click();
      await page.getByRole('button', { name: 'Restore defaults' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', '/prompts/login/screen/login/rendering')).body.rendering_mode).toBe('advanced');
      await page.getByRole('button', { name: 'Restore defaults' }).click();
      expect(await page.getByRole('dialog').textContent()).toContain('standard page');
      await page.getByRole('dialog').getByRole('button', { name: 'Restore defaults' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await expect.poll(() => settled(preview, heading)).toBe('Welcome to the Storefront');
      expect(await preview.locator('meta[name="storefront-build"]').count()).toBe(0);

      // Removing every text asks first; then Latchkey's own words are back.
      await page.getByRole('link', { name: 'Custom texts' }).click();
      await page.getByRole('button', { name: 'Remove all texts' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove all' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await expect.poll(() => settled(preview, heading)).toBe('Log in');
      expect((await api('GET', '/prompts/login/custom-text/en')).body).toEqual({});
    } finally {
      await context.close();
    }
  }, 90_000);

  it('tenant settings show on the hosted page; rotating the signing key changes the JWKS and new tokens, revoking asks first', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Tenant settings' }).waitFor();
      await page.getByLabel('Friendly name').fill('Storefront Incorporated');
      // A refusal in the API's words: a session cannot last zero hours.
      await page.getByLabel('Idle session lifetime (hours)').fill('0');
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await page.getByRole('alert').textContent()).toMatch(/idle_session_lifetime/);
      expect((await api('GET', '/tenants/settings')).body.friendly_name).not.toBe('Storefront Incorporated');
      await page.getByLabel('Idle session lifetime (hours)').fill('12');
      await page.getByLabel('French (fr)').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await api('GET', '/tenants/settings')).body).toMatchObject({ friendly_name: 'Storefront Incorporated', idle_session_lifetime: 12, enabled_locales: ['en', 'fr'] });
      await expectAccessible(page);
      await screenshot(page, 'settings');

      // A flag the server reads: with advanced customizations off, the rendering pages carry the API's refusal.
      await page.getByLabel(/^Advanced customizations/).uncheck();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await page.getByRole('link', { name: 'Branding' }).click();
      await page.getByRole('link', { name: 'Rendering' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('This tenant does not have Advanced Customizations enabled. (feature_disabled)');
      expect((await api('PATCH', '/tenants/settings', { flags: { enable_advanced_customizations: true } })).status).toBe(200);
      await page.getByRole('link', { name: 'Settings' }).click();

      const hosted = await context.newPage();
      const query = new URLSearchParams({ client_id: storefront, redirect_uri: CALLBACK, response_type: 'code', prompt: 'login', ui_locales: 'fr' });
      await hosted.goto(`${server.url}/authorize?${query.toString()}`);
      expect(await hosted.locator('html').getAttribute('lang')).toBe('fr');
      expect(await hosted.locator('header').textContent()).toContain('Storefront Incorporated');
      await hosted.close();

      // Signing keys: rotate (asking first), then the JWKS and a new token carry the new key.
      await page.getByRole('link', { name: 'Signing keys' }).click();
      await page.getByRole('heading', { name: 'Signing keys' }).waitFor();
      const before = (await api('GET', '/keys/signing')).body as unknown as { kid: string; current: boolean; next: boolean }[];
      const [oldCurrent, oldNext] = [before.find((key) => key.current)?.kid ?? '', before.find((key) => key.next)?.kid ?? ''];
      expect(await jwksKids()).toEqual([oldCurrent, oldNext].sort());
      await page.getByRole('button', { name: 'Rotate signing key' }).click();
      expect(await page.getByRole('dialog').textContent()).toContain(`${oldNext} signs every token from now on`);
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect(await jwksKids()).toEqual([oldCurrent, oldNext].sort());
      await page.getByRole('button', { name: 'Rotate signing key' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
      await page.getByRole('status').filter({ hasText: `Rotated: ${oldNext} now signs new tokens.` }).waitFor();
      const after = (await (await fetch(`${server.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${await freshToken()}` } })).json()) as { kid: string; next: boolean }[];
      const newNext = after.find((key) => key.next)?.kid ?? '';
      expect(await jwksKids()).toEqual([oldCurrent, oldNext, newNext].sort());
      expect(kidOf(await freshToken())).toBe(oldNext);
      expect(await page.getByRole('row', { name: new RegExp(oldCurrent) }).textContent()).toContain('Previous');
      await expectAccessible(page);
      await screenshot(page, 'signing-keys');

      // Revoking the previous key asks first, naming the consequence; the console's own token was signed with it,
      // so the console signs in again (the hosted session still stands) and lands back here. On a phone's width too.
      await page.setViewportSize({ width: 390, height: 800 });
      await page.getByRole('button', { name: `Revoke ${oldCurrent}` }).click();
      const dialog = page.getByRole('dialog', { name: `Revoke ${oldCurrent}?` });
      expect(await dialog.textContent()).toContain('Your own console session was signed with it');
      await dialog.getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('row', { name: new RegExp(oldCurrent) }).filter({ hasText: 'Revoked' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/admin/settings/signing-keys');
      expect(await jwksKids()).toEqual([oldNext, newNext].sort());
      const refused = await fetch(`${server.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${await server.token()}` } });
      expect(refused.status).toBe(401);
    } finally {
      await context.close();
    }
  }, 90_000);
});
