import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_API_NAME } from '../src/services/bootstrap.js';
import { latchkeyLibrary, startAppPages } from './support/app-page-server.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { ADMINISTRATOR_CONNECTION } from '../src/services/console-setup.js';

const ORDERS_API = 'https://orders.example.com/';
const CUSTOMER = { email: 'customer@example.com', password: 'Orders-customer-passw0rd!' };

/**
 * The console's APIs area and the application detail in Chromium, as an administrator drives them: an API with
 * permissions and RBAC, a machine-to-machine application authorized for it (a real client-credentials token shows
 * the granted scope), a single-page application that a user then signs in to with the browser library, its
 * connections, token, organization and SAML settings, each checked through the API or the wire.
 */
describe('admin console: APIs and applications in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let app: Awaited<ReturnType<typeof startAppPages>>;
  let spaClientId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    // The single-page application's own pages, on another site, loading the browser library Latchkey serves.
    app = await startAppPages(
      () => ({ domain: server.url, clientID: spaClientId, redirectUri: `${app.origin}/callback`, responseType: 'token id_token', scope: 'openid profile email' }),
      undefined,
      await latchkeyLibrary(server.url),
    );
    const connection = await api('POST', '/connections', { name: 'orders-customers', strategy: 'auth0' });
    expect(connection.status).toBe(201);
    expect((await api('POST', '/users', { connection: 'orders-customers', ...CUSTOMER, email_verified: true })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
  });

  async function consolePage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await signInThroughHostedPage(page, server, administrator.email, administrator.password);
    return page;
  }

  const clientCredentials = (clientId: string, secret: string, basic = false) =>
    fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(basic ? { authorization: `Basic ${btoa(`${clientId}:${secret}`)}` } : {}) },
      body: JSON.stringify({ grant_type: 'client_credentials', audience: ORDERS_API, ...(basic ? {} : { client_id: clientId, client_secret: secret }) }),
    });
  const grantedScope = async (response: Response) => {
    const body = (await response.json()) as { scope?: string; error?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.scope;
  };
  const ordersApi = async () => (await api('GET', `/resource-servers/${encodeURIComponent(ORDERS_API)}`)).body;

  it('creates an API with permissions and RBAC, refuses a duplicate in words, shows the system API read-only, and authorizes a machine-to-machine application for it', async () => {
    const page = await consolePage();
    try {
      await page.getByRole('link', { name: 'APIs', exact: true }).click();
      await page.getByRole('button', { name: 'Create API' }).click();
      await page.getByLabel('Name').fill('Orders API');
      await page.getByLabel('Identifier').fill(ORDERS_API);
      expect(await page.getByLabel('Signing algorithm').inputValue()).toBe('RS256');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Orders API' }).waitFor();

      for (const [value, description] of [
        ['read:orders', 'Read orders'],
        ['write:orders', 'Change orders'],
        ['delete:orders', 'Delete orders'],
      ] as const) {
        await page.getByLabel('Permission', { exact: true }).fill(value);
        await page.getByLabel('Description', { exact: true }).fill(description);
        await page.getByRole('button', { name: 'Add permission' }).click();
        await page.getByRole('status').filter({ hasText: `Added ${value}.` }).waitFor();
      }
      // The same permission twice is refused in words, before anything is saved.
      await page.getByLabel('Permission', { exact: true }).fill('read:orders');
      await page.getByRole('button', { name: 'Add permission' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('already has the permission read:orders');
      await page.getByRole('button', { name: 'Remove delete:orders' }).click();
      await page.getByRole('dialog', { name: 'Remove delete:orders?' }).getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('status').filter({ hasText: 'Removed delete:orders.' }).waitFor();

      await page.getByLabel('Token lifetime (seconds)').fill('3600');
      await page.getByLabel('Allow offline access').check();
      await page.locator('#api-settings').getByRole('button', { name: 'Save' }).click();
      await page.locator('#api-settings').getByRole('status').waitFor();
      await page.getByLabel('Enable RBAC').check();
      await page.getByLabel('Access token with permissions').check();
      await page.locator('#rbac').getByRole('button', { name: 'Save' }).click();
      await page.locator('#rbac').getByRole('status').waitFor();
      expect(await ordersApi()).toMatchObject({
        name: 'Orders API',
        signing_alg: 'RS256',
        token_lifetime: 3600,
        allow_offline_access: true,
        enforce_policies: true,
        token_dialect: 'access_token_authz',
        scopes: [
          { value: 'read:orders', description: 'Read orders' },
          { value: 'write:orders', description: 'Change orders' },
        ],
      });
      await expectAccessible(page);
      await screenshot(page, 'apis-api');

      await page.getByRole('link', { name: '← APIs' }).click();
      await page.getByRole('button', { name: 'Create API' }).click();
      await page.getByLabel('Name').fill('Orders again');
      await page.getByLabel('Identifier').fill(ORDERS_API);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      // The API's refusal, in its own words and code.
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('A resource server with the same identifier already exists');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: 'Orders API' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'apis-list');

      await page.getByRole('link', { name: MANAGEMENT_API_NAME }).click();
      await page.getByText('This is a system API').waitFor();
      await page.getByText(/Page 1 of \d+ \(\d+ permissions\)/).waitFor();
      await page.getByLabel('Filter permissions').fill('read:users');
      await page.getByText('Page 1 of').waitFor({ state: 'detached' });
      expect(await page.getByRole('cell', { name: 'read:users', exact: true }).count()).toBeGreaterThan(0);
      expect(await page.getByRole('button').filter({ hasText: /Add permission|Delete API|Save|Remove/ }).count()).toBe(0);
      await expectAccessible(page);
      await screenshot(page, 'apis-system-api');

      // A machine-to-machine application, authorized for the API in the console, gets tokens with what it was granted.
      await page.getByRole('link', { name: 'Applications', exact: true }).click();
      await page.getByRole('button', { name: 'Create application' }).click();
      await page.getByLabel('Name').fill('Orders worker');
      await page.getByLabel('Machine to machine').check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Orders worker' }).waitFor();
      await page.getByRole('button', { name: 'Show' }).click();
      const secret = (await page.getByTestId('client-secret').textContent()) ?? '';
      const clientId = (await page.locator('#credentials code').first().textContent()) ?? '';
      expect((await clientCredentials(clientId, secret)).status).toBe(403);

      await page.getByRole('button', { name: 'Authorize an API' }).click();
      await page.getByLabel('API', { exact: true }).selectOption(ORDERS_API);
      await page.getByLabel('read:orders').check();
      await page.getByRole('button', { name: 'Authorize', exact: true }).click();
      await page.getByTestId('granted-scopes').filter({ hasText: 'read:orders' }).waitFor();
      expect(await grantedScope(await clientCredentials(clientId, secret))).toBe('read:orders');

      await page.getByRole('button', { name: 'Edit permissions for Orders API' }).click();
      await page.getByLabel('write:orders').check();
      await page.getByRole('button', { name: 'Save permissions' }).click();
      await page.getByTestId('granted-scopes').filter({ hasText: 'read:orders write:orders' }).waitFor();

      // Credentials: the secret in a Basic header from now on.
      await page.getByLabel('Client secret (basic)').check();
      await page.locator('#credentials').getByRole('button', { name: 'Save' }).click();
      await page.locator('#credentials').getByRole('status').waitFor();
      expect((await api('GET', `/clients/${clientId}`)).body.token_endpoint_auth_method).toBe('client_secret_basic');
      expect(await grantedScope(await clientCredentials(clientId, secret, true))).toBe('read:orders write:orders');
      await page.getByRole('button', { name: 'Hide' }).click();
      await expectAccessible(page);
      await screenshot(page, 'apis-m2m-application');

      await page.getByRole('button', { name: 'Revoke Orders API' }).click();
      await page.getByRole('dialog', { name: 'Revoke this API access?' }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('Not authorized for any API.').waitFor();
      expect((await clientCredentials(clientId, secret, true)).status).toBe(403);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('sets up a single-page application a user then signs in to with the browser library; connections, tokens, organizations, SAML; deletes the API', async () => {
    const page = await consolePage();
    try {
      await page.getByRole('link', { name: 'Applications', exact: true }).click();
      await page.getByRole('button', { name: 'Create application' }).click();
      await page.getByLabel('Name').fill('Orders web');
      await page.getByLabel('Single-page application').check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Orders web' }).waitFor();
      spaClientId = (await page.locator('#credentials code').first().textContent()) ?? '';
      await page.getByLabel('Allowed callback URLs').fill(`${app.origin}/callback`);
      await page.getByLabel('Allowed web origins').fill(app.origin);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#settings').getByRole('status').waitFor();

      // Connections: a new application has the tenant's connections on; switched off and on again through the
      // connection's enabled-clients API.
      const customers = page.getByLabel('orders-customers');
      const enabledFor = async () => ((await api('GET', '/connections?name=orders-customers')).body[0] as { enabled_clients: string[] }).enabled_clients;
      expect(await customers.isChecked()).toBe(true);
      expect(await enabledFor()).toEqual([spaClientId]);
      // The tenant's default database (the administrators' here) too: off, so that customers sign in to theirs.
      const defaultDatabase = page.locator('#connections').getByLabel(ADMINISTRATOR_CONNECTION, { exact: true });
      expect(await defaultDatabase.isChecked()).toBe(true);
      await defaultDatabase.uncheck();
      await page.getByRole('status').filter({ hasText: `${ADMINISTRATOR_CONNECTION} disabled` }).waitFor();
      await customers.uncheck();
      await page.getByRole('status').filter({ hasText: 'orders-customers disabled' }).waitFor();
      expect(await enabledFor()).toEqual([]);
      await customers.check();
      await page.getByRole('status').filter({ hasText: 'orders-customers enabled' }).waitFor();
      expect(await enabledFor()).toEqual([spaClientId]);

      // Tokens: ID tokens for two hours; refresh tokens neither rotating nor expiring.
      await page.getByLabel('ID token lifetime (seconds)').fill('7200');
      await page.getByLabel('Rotate refresh tokens').uncheck();
      await page.getByLabel('Refresh tokens expire').uncheck();
      await page.getByRole('button', { name: 'Save token settings' }).click();
      await page.locator('#tokens').getByRole('status').waitFor();
      const saved = (await api('GET', `/clients/${spaClientId}`)).body;
      expect(saved.jwt_configuration).toMatchObject({ lifetime_in_seconds: 7200 });
      expect(saved.refresh_token).toMatchObject({ rotation_type: 'non-rotating', expiration_type: 'non-expiring' });
      await expectAccessible(page);
      await screenshot(page, 'apis-spa-application');
      // On a phone's width nothing runs off the side.
      await page.setViewportSize({ width: 375, height: 800 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await screenshot(page, 'apis-spa-application-narrow');
      await page.setViewportSize({ width: 1200, height: 800 });

      // The user signs in to the application with the browser library, through the hosted login page.
      const user = await (await browser.newContext()).newPage();
      try {
        user.setDefaultTimeout(15_000);
        await user.goto(`${app.origin}/`);
        await user.evaluate(() => (window as unknown as { webAuth: { authorize(options: object): void } }).webAuth.authorize({}));
        await user.getByLabel('E-mail address', { exact: true }).fill(CUSTOMER.email);
        await user.getByLabel('Password', { exact: true }).fill(CUSTOMER.password);
        await Promise.all([user.waitForURL(`${app.origin}/callback#**`), user.click('button[type="submit"]')]);
        const result = await user.evaluate(
          () =>
            new Promise<{ idToken?: string; error?: unknown }>((resolve) =>
              (window as unknown as { webAuth: { parseHash(cb: (err: unknown, res: { idToken: string } | null) => void): void } }).webAuth.parseHash((err, res) =>
                resolve(err ? { error: err } : { idToken: res?.idToken ?? '' }),
              ),
            ),
        );
        expect(result.error).toBeUndefined();
        const claims = decodeJwt(result.idToken ?? '');
        expect(claims).toMatchObject({ email: CUSTOMER.email, aud: spaClientId });
        expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(7200);
      } finally {
        await user.context().close();
      }

      await customers.uncheck();
      await page.getByRole('status').filter({ hasText: 'orders-customers disabled' }).waitFor();
      expect(await enabledFor()).toEqual([]);

      await page.getByLabel('Organizations only').check();
      await page.getByLabel('Prompt for credentials').check();
      await page.getByRole('button', { name: 'Save organization settings' }).click();
      await page.locator('#organizations').getByRole('status').waitFor();
      expect((await api('GET', `/clients/${spaClientId}`)).body).toMatchObject({ organization_usage: 'require', organization_require_behavior: 'post_login_prompt' });

      // SAML: the metadata answers once the add-on is on, and no longer after it is turned off.
      const metadata = () => fetch(`${server.url}/samlp/metadata/${spaClientId}`);
      expect((await metadata()).status).toBe(404);
      await page.getByRole('button', { name: 'Enable SAML' }).click();
      await page.getByLabel('Audience').fill('urn:orders:sp');
      await page.getByLabel('Application callback URL').fill(`${app.origin}/saml/acs`);
      await page.getByLabel('Mappings (JSON)').fill('{"email": ');
      await page.getByRole('button', { name: 'Save SAML settings' }).click();
      expect(await page.locator('#saml').getByRole('alert').textContent()).toContain('Mappings are not valid JSON');
      await page.getByLabel('Mappings (JSON)').fill('{"email": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}');
      await page.getByRole('button', { name: 'Save SAML settings' }).click();
      await page.locator('#saml').getByRole('status').waitFor();
      expect((await api('GET', `/clients/${spaClientId}`)).body.addons).toEqual({
        samlp: { audience: 'urn:orders:sp', callback: `${app.origin}/saml/acs`, signResponse: false, mappings: { email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress' } },
      });
      const answer = await metadata();
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('EntityDescriptor');
      expect(await page.getByTestId('saml-metadata').getAttribute('href')).toBe(`${server.url}/samlp/metadata/${spaClientId}`);
      await page.getByRole('button', { name: 'Turn off SAML' }).click();
      await page.getByRole('dialog', { name: 'Turn off the SAML add-on?' }).getByRole('button', { name: 'Turn off' }).click();
      await page.getByRole('button', { name: 'Enable SAML' }).waitFor();
      expect((await metadata()).status).toBe(404);

      // The API goes, after a cancelled first try.
      await page.getByRole('link', { name: 'APIs', exact: true }).click();
      await page.getByRole('link', { name: 'Orders API' }).click();
      await page.getByRole('button', { name: 'Delete API' }).click();
      await page.getByRole('dialog', { name: 'Delete Orders API?' }).getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/resource-servers/${encodeURIComponent(ORDERS_API)}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete API' }).click();
      await page.getByRole('dialog', { name: 'Delete Orders API?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'APIs' }).waitFor();
      expect((await api('GET', `/resource-servers/${encodeURIComponent(ORDERS_API)}`)).status).toBe(404);
    } finally {
      await page.context().close();
    }
  }, 90_000);
});
