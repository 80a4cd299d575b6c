import { gunzipSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, signInOnHostedPage, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const NEW_PASSWORD = 'Created-user-passw0rd!';

describe('admin console: the Users area in Chromium (postgres)', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let fx: LoginFixture;
  let userPath: string;
  let secondUserId: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'postgres', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    fx = await provisionLogin(server, { suffix: 'console' });
    userPath = `/users/${encodeURIComponent(fx.user.userId)}`;
    const ok = async (pending: ReturnType<ManagementApi>, status: number) => {
      const response = await pending;
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      return response.body;
    };
    await ok(api('POST', '/roles', { name: 'Support', description: 'Answers the help desk' }), 200);
    await ok(api('POST', `${userPath}/authentication-methods`, { type: 'totp', name: 'Phone app', totp_secret: 'JBSWY3DPEHPK3PXPJBSWY3DP' }), 201);
    const organization = await ok(api('POST', '/organizations', { name: 'acme', display_name: 'Acme' }), 201);
    await ok(api('POST', `/organizations/${String(organization.id)}/members`, { members: [fx.user.userId] }), 204);
    secondUserId = String((await ok(api('POST', '/users', { connection: fx.connection, email: 'second@example.com', password: NEW_PASSWORD }), 201)).user_id);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const token = async (form: Record<string, string>) => {
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  const authorizeUrl = (params: Record<string, string>) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, state: 'st', ...params }).toString()}`;

  /** The fixture's user logs in to the web application: a login session in `browser`, and a refresh token. */
  async function userLogsIn() {
    const userBrowser = new CookieClient(server.url);
    const callback = await signInOnHostedPage(userBrowser, server, fx, authorizeUrl({ response_type: 'code', scope: 'openid email offline_access read:things', audience: fx.api.identifier }));
    const issued = await token({ grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code: callback.searchParams.get('code') ?? '', redirect_uri: fx.web.callback });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(decodeJwt(issued.body.id_token ?? '').sid).toEqual(expect.any(String));
    const refresh = () => token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: issued.body.refresh_token ?? '' });
    /** prompt=none in the user's browser: a code while the session lives, login_required once it is revoked. */
    const silently = async () => {
      const location = new URL((await userBrowser.get(authorizeUrl({ response_type: 'code', prompt: 'none', scope: 'openid' }))).headers.get('location') ?? '');
      return location.searchParams.get('error') ?? (location.searchParams.has('code') ? 'code' : 'nothing');
    };
    return { refresh, silently };
  }

  const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'User sections' }).getByRole('link', { name }).click();
  const confirm = (page: Page, button: string) => page.getByRole('dialog').getByRole('button', { name: button, exact: true }).click();
  const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const look = async (page: Page, name: string) => {
    await expectAccessible(page);
    await screenshot(page, `users-${name}`);
  };

  it('an administrator manages a user who logged in: metadata, links, roles, MFA, sessions revoked for real, logs; creates, imports and exports users', async () => {
    const user = await userLogsIn();
    expect(await user.silently()).toBe('code');
    expect((await user.refresh()).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Users' }).click();
      await page.getByLabel('Search users').fill(fx.user.email);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Page 1 of 1 (1 users)').waitFor();
      await look(page, 'list');
      await page.getByRole('link', { name: fx.user.email }).click();
      await page.getByRole('heading', { name: fx.user.email }).waitFor();

      // Metadata: JSON that does not parse is refused in words before anything is sent; valid JSON is stored as written.
      const userMetadata = page.getByLabel('user_metadata', { exact: true });
      await userMetadata.fill('{"plan": ');
      await page.getByRole('button', { name: 'Save metadata' }).click();
      await page.getByRole('alert').filter({ hasText: 'user_metadata is not valid JSON' }).waitFor();
      expect(await userMetadata.getAttribute('aria-invalid')).toBe('true');
      expect((await api('GET', userPath)).body.user_metadata).toEqual({});
      await userMetadata.fill('{"plan": "pro", "seats": 3}');
      await page.getByLabel('app_metadata', { exact: true }).fill('{"tier": "gold"}');
      await page.getByRole('button', { name: 'Save metadata' }).click();
      await status(page, 'Metadata saved.');
      expect((await api('GET', userPath)).body).toMatchObject({ user_metadata: { plan: 'pro', seats: 3 }, app_metadata: { tier: 'gold' } });
      await userMetadata.fill('{"plan": "team"}');
      await page.getByRole('button', { name: 'Save metadata' }).click();
      await status(page, 'Metadata saved.');
      expect((await api('GET', userPath)).body.user_metadata).toEqual({ plan: 'team' });

      // A verification e-mail, and a password-change link shown once, that opens the reset page.
      const mailsBefore = (await server.registry.outbox.recent(100)).filter((entry) => entry.message.to === fx.user.email).length;
      await page.getByRole('button', { name: 'Send verification e-mail' }).click();
      await status(page, `A verification e-mail is on its way to ${fx.user.email}.`);
      expect((await server.registry.outbox.recent(100)).filter((entry) => entry.message.to === fx.user.email)).toHaveLength(mailsBefore + 1);
      await page.getByRole('button', { name: 'Create password-change link' }).click();
      const link = await page.getByLabel('Link for the user').inputValue();
      expect(link.startsWith(`${server.url}/`)).toBe(true);
      expect((await fetch(link)).status).toBe(200);
      await look(page, 'details');

      // Identities: the API's refusal in its own words, then a real link and an unlink that asks first.
      await section(page, 'Identities');
      const secondary = page.getByLabel('User ID of the account to link');
      await secondary.fill('auth0|nobody');
      await page.getByRole('button', { name: 'Link', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'does not exist' }).waitFor();
      await secondary.fill(secondUserId);
      await page.getByRole('button', { name: 'Link', exact: true }).click();
      await status(page, `${secondUserId} is linked into this user.`);
      expect((await api('GET', userPath)).body.identities).toHaveLength(2);
      await look(page, 'identities');
      await page.getByRole('button', { name: `Unlink ${secondUserId}` }).click();
      await confirm(page, 'Unlink');
      await status(page, 'is a user of its own again');
      expect((await api('GET', userPath)).body.identities).toHaveLength(1);

      // Roles and direct permissions.
      await section(page, 'Roles and permissions');
      await page.getByLabel('Role name').fill('supp');
      await page.getByRole('button', { name: 'Find roles' }).click();
      await page.getByRole('button', { name: 'Assign role Support' }).click();
      await status(page, 'Support is assigned.');
      await page.getByRole('cell', { name: 'Answers the help desk' }).waitFor();
      expect((await api('GET', `${userPath}/roles`)).body.map((role) => role.name)).toEqual(['Support']);
      await page.getByLabel('API', { exact: true }).selectOption({ label: 'API console' });
      await page.getByLabel('read:things').check();
      await page.getByRole('button', { name: 'Assign permissions' }).click();
      await status(page, 'read:things is assigned.');
      await page.getByRole('cell', { name: 'Direct' }).waitFor();
      await look(page, 'roles');
      await page.getByRole('button', { name: 'Remove read:things' }).click();
      await confirm(page, 'Remove');
      await status(page, 'read:things is removed.');
      expect((await api('GET', `${userPath}/permissions`)).body).toEqual([]);
      await page.getByRole('button', { name: 'Remove Support' }).click();
      await confirm(page, 'Cancel');
      expect((await api('GET', `${userPath}/roles`)).body).toHaveLength(1);
      await page.getByRole('button', { name: 'Remove Support' }).click();
      await confirm(page, 'Remove');
      await status(page, 'Support is removed.');
      expect((await api('GET', `${userPath}/roles`)).body).toEqual([]);

      await section(page, 'Organizations');
      await page.getByRole('cell', { name: 'Acme', exact: true }).waitFor();
      await look(page, 'organizations');
      await page.getByRole('button', { name: 'Remove from Acme' }).click();
      await confirm(page, 'Remove');
      await page.getByText('The user belongs to no organization.').waitFor();
      expect((await api('GET', `${userPath}/organizations`)).body).toEqual([]);

      // Multi-factor: reset asks first, then every method is gone.
      await section(page, 'Multi-factor');
      await page.getByRole('cell', { name: 'Phone app' }).waitFor();
      await look(page, 'mfa');
      await page.getByRole('button', { name: 'Reset MFA' }).click();
      await confirm(page, 'Reset MFA');
      await page.getByText('The user has no second factor.').waitFor();
      expect((await api('GET', `${userPath}/authentication-methods`)).body).toEqual([]);

      // Sessions and refresh tokens: revoked in the console, refused for real.
      await section(page, 'Sessions');
      const tokenButton = page.getByRole('button', { name: /^Revoke refresh token issued/ });
      await tokenButton.waitFor();
      await page.getByRole('button', { name: /^Revoke session started/ }).waitFor();
      // Both name the application by its name, read from the API.
      expect(await page.getByRole('cell', { name: 'Web console', exact: true }).count()).toBe(2);
      await look(page, 'sessions');
      // On a phone the row's button stays within reach, beside what names the row.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await tokenButton.isVisible()).toBe(true);
      await look(page, 'sessions-phone');
      await page.setViewportSize({ width: 1200, height: 900 });
      await tokenButton.click();
      await confirm(page, 'Revoke');
      await status(page, 'The refresh token is revoked.');
      expect((await user.refresh()).body.error).toBe('invalid_grant');
      expect(await user.silently()).toBe('code');
      await page.getByRole('button', { name: /^Revoke session started/ }).click();
      await confirm(page, 'Revoke');
      await status(page, 'The session is revoked');
      await page.getByText('No live session.').waitFor();
      expect(await user.silently()).toBe('login_required');

      await server.registry.events.flush();
      await section(page, 'Logs');
      await page.getByRole('cell', { name: /Successful login/ }).first().waitFor();
      await look(page, 'logs');

      // Back on the list: a user created (the API's refusal of a duplicate in words), then deleted after asking.
      await page.getByRole('link', { name: '← Users' }).click();
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.getByLabel('Connection').selectOption({ label: fx.connection });
      await page.getByLabel('E-mail address').fill('second@example.com');
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'already exists' }).waitFor();
      await page.getByLabel('E-mail address').fill('created@example.com');
      await look(page, 'create');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'created@example.com' }).waitFor();
      const created = (await api('GET', '/users-by-email?email=created@example.com')).body[0] as { user_id: string };
      await page.getByRole('button', { name: 'Delete user' }).click();
      await confirm(page, 'Cancel');
      expect((await api('GET', `/users/${encodeURIComponent(created.user_id)}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete user' }).click();
      await confirm(page, 'Delete');
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      expect((await api('GET', `/users/${encodeURIComponent(created.user_id)}`)).status).toBe(404);

      // An import followed to its end, its refused record in words; then an export to download.
      await page.getByRole('button', { name: 'Import users' }).click();
      await page.getByLabel('Into the connection').selectOption({ label: fx.connection });
      const records = [{ email: 'imported@example.com', name: 'Imported', user_metadata: { source: 'file' } }, { email: 'not-an-address' }];
      await page.getByLabel('Users file (JSON)').setInputFiles({ name: 'users.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(records)) });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await status(page, 'Completed. 1 inserted, 0 updated, 1 failed, of 2.');
      await page.getByText('not-an-address: email must be an e-mail address.').waitFor();
      expect(((await api('GET', '/users-by-email?email=imported@example.com')).body[0] as { user_metadata: unknown }).user_metadata).toEqual({ source: 'file' });
      await page.getByRole('link', { name: 'imported@example.com' }).waitFor();
      await look(page, 'import');
      await page.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Export users' }).click();
      await page.getByLabel('Users of').selectOption({ label: fx.connection });
      await page.getByLabel('JSON lines').check();
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const download = page.getByRole('link', { name: 'Download the export' });
      await download.waitFor();
      await look(page, 'export');
      const file = await fetch((await download.getAttribute('href')) ?? '');
      expect(file.status).toBe(200);
      const exported = gunzipSync(Buffer.from(await file.arrayBuffer())).toString('utf8').trim().split('\n').map((line) => (JSON.parse(line) as { email: string }).email);
      expect(exported.sort()).toEqual([fx.user.email, 'imported@example.com', 'second@example.com'].sort());
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
