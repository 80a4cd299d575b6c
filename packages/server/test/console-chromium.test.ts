import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR_CONNECTION, ADMINISTRATOR_ROLE, CONSOLE_CLIENT_ID } from '../src/services/console-setup.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { runCli } from './support/processes.js';

const PASSWORD = 'Console-user-passw0rd!';

describe('admin console in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates the console client, the administrator role and the bootstrap administrator at first start', async () => {
    expect(administrator.console).toBe(`${server.url}/admin/`);
    const client = await api('GET', `/clients/${CONSOLE_CLIENT_ID}`);
    expect(client.body).toMatchObject({ name: 'Latchkey Console', app_type: 'spa', callbacks: [`${server.url}/admin/`], token_endpoint_auth_method: 'none' });
    const roles = await api('GET', `/users/${encodeURIComponent(administrator.user_id)}/roles`);
    expect(roles.body).toEqual([expect.objectContaining({ name: ADMINISTRATOR_ROLE })]);
    // A second start on the same database creates no second administrator and writes no new file.
    const second = await startTestServer({ dialect: 'sqlite', shareWith: server });
    try {
      expect(second.registry.consoleCredentialsFile).toBeUndefined();
      const holders = await api('GET', `/roles/${String((roles.body[0] as { id: string }).id)}/users`);
      expect(holders.body).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });

  it('serves /admin: hashed assets cached as immutable, a strict CSP, the page for every path below it', async () => {
    const bare = await fetch(`${server.url}/admin`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/admin/');
    const deep = await fetch(`${server.url}/admin/users/auth0%7Cabc`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toContain('text/html');
    const csp = deep.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await deep.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${server.url}/admin/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  it('signs the bootstrap administrator in through the hosted login page; Get started and Applications', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await page.getByRole('heading', { name: 'Get started' }).waitFor();
      await page.getByLabel('Address of your application').fill('http://localhost:5173/');
      await page.getByRole('button', { name: 'Create my first application' }).click();
      const clientId = await page.getByTestId('client-id').textContent();
      expect(clientId).toMatch(/^[A-Za-z0-9]{32}$/);
      // The application's own origin is allowed to come back to and to call Latchkey from.
      expect((await api('GET', `/clients/${String(clientId)}`)).body).toMatchObject({ callbacks: ['http://localhost:5173'], web_origins: ['http://localhost:5173'], allowed_logout_urls: ['http://localhost:5173'] });
      // The tenant's connections are switched on for it, so that its login page has a way in.
      const connections = (await api('GET', '/connections?fields=name,enabled_clients')).body as unknown as { name: string; enabled_clients: string[] }[];
      expect(connections.length).toBeGreaterThan(0);
      expect(connections.filter((connection) => !connection.enabled_clients.includes(String(clientId))).map((connection) => connection.name)).toEqual([]);
      expect(await page.locator('pre.snippet').textContent()).toContain(`clientID: '${clientId}'`);
      await page.getByLabel('SPA SDK').check();
      expect(await page.locator('pre.snippet').textContent()).toContain(`domain: '${server.url}'`);
      await expectAccessible(page);
      await screenshot(page, 'get-started');

      await page.getByRole('link', { name: 'Applications' }).click();
      await page.getByRole('button', { name: 'Create application' }).click();
      await page.getByLabel('Name').fill('Billing portal');
      await page.getByLabel('Regular web application').check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Billing portal' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Billing <portal>');
      await page.getByRole('button', { name: 'Save changes' }).click();
      // The API's refusal is shown in its own words.
      expect(await page.getByRole('alert').textContent()).toMatch(/name/i);
      await page.getByLabel('Name', { exact: true }).fill('Billing portal');
      await page.getByLabel('Allowed callback URLs').fill('https://billing.example.com/callback');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await page.getByRole('button', { name: 'Show' }).click();
      const secret = (await page.getByTestId('client-secret').textContent()) ?? '';
      const stored = (await api('GET', '/clients?fields=client_id,name,callbacks')).body.find((client) => (client as { name: string }).name === 'Billing portal') as
        | { client_id: string; callbacks: string[] }
        | undefined;
      expect(stored?.callbacks).toEqual(['https://billing.example.com/callback']);
      // The secret shown once is the application's: it gets a token for an API it was granted.
      expect((await api('POST', '/client-grants', { client_id: stored?.client_id, audience: server.audience, scope: ['read:users'] })).status).toBe(201);
      const exchange = (clientSecret: string) =>
        fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: stored?.client_id, client_secret: clientSecret, audience: server.audience }),
        });
      expect((await exchange(secret)).status).toBe(200);
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
      await expect.poll(() => page.getByTestId('client-secret').textContent()).not.toBe(secret);
      const rotated = (await page.getByTestId('client-secret').textContent()) ?? '';
      expect((await exchange(secret)).status).toBe(401);
      expect((await exchange(rotated)).status).toBe(200);
      await page.getByRole('button', { name: 'Hide' }).click();
      await expectAccessible(page);
      await screenshot(page, 'application');

      await page.getByRole('link', { name: '← Applications' }).click();
      await page.getByRole('link', { name: 'Billing portal' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'applications');

      await page.getByRole('link', { name: 'Billing portal' }).click();
      await page.getByRole('button', { name: 'Delete application' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete Billing portal?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/clients/${stored?.client_id ?? ''}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete application' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Applications' }).waitFor();
      expect((await api('GET', `/clients/${stored?.client_id ?? ''}`)).status).toBe(404);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('finds a user among 200 with the query syntax, pages, shows the profile and blocks them', async () => {
    const connection = (await api('GET', `/connections?name=${ADMINISTRATOR_CONNECTION}`)).body[0] as { id: string };
    const users = Array.from({ length: 200 }, (_, i) => ({ email: `member-${String(i).padStart(3, '0')}@example.com`, name: `Member ${i}`, user_metadata: { team: i % 2 ? 'blue' : 'red' } }));
    const form = new FormData();
    form.append('users', new Blob([JSON.stringify(users)]), 'users.json');
    form.append('connection_id', connection.id);
    const job = (await (await fetch(`${server.url}/api/v2/jobs/users-imports`, { method: 'POST', headers: { authorization: `Bearer ${await server.token()}` }, body: form })).json()) as { id: string };
    await expect.poll(async () => (await api('GET', `/jobs/${job.id}`)).body.status, { timeout: 20_000 }).toBe('completed');

    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByText('Page 1 of 9 (201 users)').waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2 of 9 (201 users)').waitFor();
      await page.getByLabel('Search users').fill('email:"member-137@example.com"');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 users)').waitFor();
      await page.getByLabel('Search users').fill('member-13');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (10 users)').waitFor();
      await expectAccessible(page);
      await screenshot(page, 'users');
      // A query the syntax cannot parse: the API's words, not silence.
      await page.getByLabel('Search users').fill('email:(');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('alert').waitFor();

      await page.getByLabel('Search users').fill('email:"member-137@example.com"');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: 'member-137@example.com' }).click();
      await page.getByRole('heading', { name: 'member-137@example.com' }).waitFor();
      expect(await page.getByLabel('user_metadata', { exact: true }).inputValue()).toContain('"team": "blue"');
      await page.getByRole('button', { name: 'Block' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Block' }).click();
      await page.getByRole('status').filter({ hasText: 'blocked' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'user');
      const found = (await api('GET', `/users-by-email?email=member-137@example.com`)).body[0] as { blocked: boolean };
      expect(found.blocked).toBe(true);
      await page.getByRole('button', { name: 'Unblock' }).click();
      await page.getByRole('status').filter({ hasText: 'unblocked' }).waitFor();
      expect(((await api('GET', `/users-by-email?email=member-137@example.com`)).body[0] as { blocked: boolean }).blocked).toBe(false);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('refuses a normal user: their console token carries no Management API permission', async () => {
    const created = await api('POST', '/users', { connection: ADMINISTRATOR_CONNECTION, email: 'normal@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, 'normal@example.com', PASSWORD);
      await page.getByRole('heading', { name: 'Not an administrator' }).waitFor();
      const session = JSON.parse((await page.evaluate(() => sessionStorage.getItem('latchkey-console.session'))) ?? '{}') as { accessToken: string; scopes: string[] };
      expect(session.scopes.filter((scope) => scope.includes(':'))).toEqual([]);
      const refused = await fetch(`${server.url}/api/v2/users`, { headers: { authorization: `Bearer ${session.accessToken}` } });
      expect(refused.status).toBe(403);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('latchkey admin create adds an administrator who signs in to the console', async () => {
    const created = await runCli(['admin', 'create', 'ops@example.com'], { ...server.env, LATCHKEY_ISSUER: server.url });
    expect(created.code, created.output).toBe(0);
    const password = created.output.trim().split('\n').at(-1) ?? '';
    expect(created.output).toContain(`sign in at ${server.url}/admin/ as ops@example.com`);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, 'ops@example.com', password);
      await page.getByRole('heading', { name: 'Get started' }).waitFor();
      expect(await page.getByText('ops@example.com').count()).toBe(1);
    } finally {
      await context.close();
    }
    expect((await runCli(['admin', 'create', 'not-an-email'], { ...server.env, LATCHKEY_ISSUER: server.url })).code).toBe(2);
  }, 60_000);

  it('gives the administrator role\u2019s permissions to console sign-ins only, never to another application\u2019s user token', async () => {
    const other = await api('POST', '/clients', {
      name: 'Another first-party app',
      app_type: 'regular_web',
      grant_types: ['http://auth0.com/oauth/grant-type/password-realm'],
    });
    const clientId = String(other.body.client_id);
    const connection = (await api('GET', `/connections?name=${ADMINISTRATOR_CONNECTION}`)).body[0] as { id: string; enabled_clients: string[] };
    expect((await api('PATCH', `/connections/${connection.id}`, { enabled_clients: [...connection.enabled_clients, clientId] })).status).toBe(200);
    const body = JSON.stringify({
      grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
      realm: ADMINISTRATOR_CONNECTION,
      username: administrator.email,
      password: administrator.password,
      client_id: clientId,
      client_secret: String(other.body.client_secret),
      audience: server.audience,
      scope: 'openid read:users delete:users read:current_user',
    });
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const tokens = (await response.json()) as { scope?: string; access_token?: string };
    expect(response.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens.scope).toBe('openid');
    expect((await fetch(`${server.url}/api/v2/users`, { headers: { authorization: `Bearer ${tokens.access_token ?? ''}` } })).status).toBe(403);

    // Nor through an Action: addScope on the Management API stops at what the token may hold.
    const action = await api('POST', '/actions/actions', {
      name: 'try-to-elevate',
      supported_triggers: [{ id: 'post-login', version: 'v3' }],
      code: "exports.onExecutePostLogin = async (event, api) => { api.accessToken.addScope('delete:users'); api.accessToken.addScope('read:current_user'); };",
    });
    expect(action.status, JSON.stringify(action.body)).toBe(201);
    expect((await api('POST', `/actions/actions/${String(action.body.id)}/deploy`)).status).toBeLessThan(300);
    const bound = await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [{ ref: { type: 'action_id', value: action.body.id } }] });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    try {
      const again = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const elevated = (await again.json()) as { scope?: string };
      expect(again.status, JSON.stringify(elevated)).toBe(200);
      expect(elevated.scope).toBe('openid read:current_user');
    } finally {
      await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [] });
    }
  });
});
