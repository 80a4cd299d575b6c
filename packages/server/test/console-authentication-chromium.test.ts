import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { signInAtProviderPage, startOidcProvider, UPSTREAM_SECRET } from './support/oidc-provider.js';
import { freePort } from './support/ports.js';

const CALLBACK = 'https://storefront.example/callback';
const CERTIFICATE = readFileSync(new URL('./fixtures/mtls-client-one.pem', import.meta.url), 'utf8').trim();

/**
 * The console's Authentication area in Chromium, as an administrator uses it: a database connection with a
 * password policy, enabled for an application, whose signups then follow that policy; an OpenID Connect
 * connection to a real provider (npm oidc-provider on its own port), offered on the application's login page and
 * logging a user in with the secret typed once in the console; a SAML connection's certificate; a passwordless
 * connection's codes; the API's refusals in words; deletes that ask first.
 */
describe('console Authentication area in Chromium (postgres)', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let upstream: { url: string; close(): Promise<void> };
  let storefront: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'postgres', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    // Latchkey is on http://localhost: the provider gets its code-flow client only.
    upstream = await startOidcProvider(await freePort(), server.url, { frontChannel: false });
    const created = await api('POST', '/clients', { name: 'Storefront', app_type: 'regular_web', callbacks: [CALLBACK], grant_types: ['authorization_code'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    storefront = String(created.body.client_id);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await upstream?.close();
    await server?.close();
  });

  async function consolePage(): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInThroughHostedPage(page, server, administrator.email, administrator.password);
    await page.getByRole('link', { name: 'Authentication' }).click();
    return { page, close: () => context.close() };
  }

  async function connectionNamed(name: string): Promise<{ id: string; options: Record<string, unknown>; enabled_clients: string[] } | undefined> {
    const listed = (await api('GET', `/connections?name=${encodeURIComponent(name)}`)).body as unknown as { id: string; options: Record<string, unknown>; enabled_clients: string[] }[];
    return listed[0];
  }

  const signup = (connection: string, email: string, password: string) => postJson(server, '/dbconnections/signup', { client_id: storefront, connection, email, password });

  it('creates a database connection with a password policy, enables it for an application, and signups follow the policy', async () => {
    const { page, close } = await consolePage();
    try {
      await page.getByRole('heading', { name: 'Database connections' }).waitFor();
      // The console's own connection is listed (paged by the server), with the applications it is enabled for.
      await page.getByRole('link', { name: 'Username-Password-Authentication' }).waitFor();
      await page.getByText(/Page 1 of 1 \(\d+ connections\)/).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'authentication-database');

      await page.getByRole('button', { name: 'Create connection' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Username-Password-Authentication');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      // The API's refusal, in its words: the name is taken.
      await page.getByRole('alert').filter({ hasText: 'A connection with the same name already exists' }).waitFor();

      await page.getByLabel('Name', { exact: true }).fill('storefront-users');
      await page.getByLabel('Excellent').check();
      await page.getByLabel('Minimum length').fill('14');
      await page.getByLabel('Refuse common passwords').check();
      await page.getByLabel('Also refuse these words').fill('Storefront-Summer-2025\n\nStorefront-Winter-2025');
      await page.getByLabel('Refuse passwords that contain personal data').check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'storefront-users' }).waitFor();
      const created = await connectionNamed('storefront-users');
      expect(created?.options).toEqual({
        passwordPolicy: 'excellent',
        password_complexity_options: { min_length: 14 },
        password_dictionary: { enable: true, dictionary: ['Storefront-Summer-2025', 'Storefront-Winter-2025'] },
        password_no_personal_info: { enable: true },
      });

      // Not yet enabled for the application: its signups are refused.
      expect((await signup('storefront-users', 'early@example.com', 'Quiet-Harbor-Lantern-42')).json).toMatchObject({ code: 'connection_not_found' });
      await page.getByLabel('Storefront', { exact: true }).check();
      await page.getByRole('status').filter({ hasText: 'storefront-users is enabled for Storefront.' }).waitFor();
      const enabled = (await api('GET', `/connections/${created?.id ?? ''}/clients`)).body as unknown as { clients: { client_id: string }[] };
      expect(enabled.clients).toEqual([{ client_id: storefront }]);

      // The policy as saved in the console is the one signups meet.
      expect(await signup('storefront-users', 'weak@example.com', 'Short-1a')).toMatchObject({ status: 400, json: { code: 'invalid_password', name: 'PasswordStrengthError' } });
      expect((await signup('storefront-users', 'weak@example.com', 'Storefront-Summer-2025')).json).toMatchObject({ code: 'password_dictionary_error' });
      expect((await signup('storefront-users', 'harbor.keeper@example.com', 'Harbor.Keeper-Lantern-42')).json).toMatchObject({ code: 'password_no_user_info_error' });
      const strong = await signup('storefront-users', 'harbor.keeper@example.com', 'Quiet-Lantern-Orchard-42');
      expect(strong.status, strong.text).toBe(200);

      // A shorter minimum, and passkeys: saved on the connection's page, applied at once.
      await page.getByLabel('Minimum length').fill('');
      await page.getByLabel('Passkey', { exact: true }).check();
      await page.getByLabel('How the login screen offers passkeys').selectOption('button');
      await page.getByLabel('Offer a passkey after a password login').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await connectionNamed('storefront-users'))?.options).toMatchObject({
        passwordPolicy: 'excellent',
        authentication_methods: { passkey: { enabled: true } },
        passkey_options: { challenge_ui: 'button', progressive_enrollment_enabled: true },
      });
      expect((await connectionNamed('storefront-users'))?.options.password_complexity_options).toBeUndefined();
      expect((await signup('storefront-users', 'orchard@example.com', 'Quiet-Ten1')).status).toBe(200);
      await expectAccessible(page);
      await screenshot(page, 'authentication-database-connection');
    } finally {
      await close();
    }
  }, 60_000);

  it('connects an OpenID Connect provider that the login page offers, keeps its secret write-only; SAML and passwordless connections; deletes ask first', async () => {
    const { page, close } = await consolePage();
    try {
      await page.getByRole('link', { name: 'Enterprise and social' }).click();
      await page.getByRole('heading', { name: 'Enterprise and social connections' }).waitFor();
      await page.getByRole('button', { name: 'Create connection' }).click();
      await page.getByLabel('Name', { exact: true }).fill('partner-oidc');
      await page.getByLabel('OpenID Connect', { exact: true }).check();
      await page.getByLabel('Display name').fill('Partner ID');
      await page.getByLabel('Issuer URL').fill(upstream.url);
      await page.getByLabel('Client ID', { exact: true }).fill('latchkey');
      await page.getByLabel('Client secret', { exact: true }).fill(UPSTREAM_SECRET);
      await page.getByLabel('Scopes', { exact: true }).fill('profile email');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'options.scope of an oidc connection must include openid' }).waitFor();
      await page.getByLabel('Scopes', { exact: true }).fill('openid profile email');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'partner-oidc' }).waitFor();
      // Written once, never shown back; saving without retyping it keeps it.
      expect(await page.getByLabel('Client secret', { exact: true }).inputValue()).toBe('');
      expect(await page.content()).not.toContain(UPSTREAM_SECRET);
      expect(await page.getByLabel('Back channel').isChecked()).toBe(true);
      await page.getByLabel('Scopes', { exact: true }).fill('openid email');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(await connectionNamed('partner-oidc')).toMatchObject({
        options: { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey', client_secret: UPSTREAM_SECRET, scope: 'openid email' },
      });
      await page.getByLabel('Storefront', { exact: true }).check();
      await page.getByRole('status').filter({ hasText: 'partner-oidc is enabled for Storefront.' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'authentication-oidc');
      // On a phone's width the long form wraps: nothing scrolls sideways.
      await page.setViewportSize({ width: 360, height: 740 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.setViewportSize({ width: 1200, height: 800 });

      // The application's login page offers the provider; logging in there creates the federated user.
      const visitor = await browser.newContext();
      try {
        const login = await visitor.newPage();
        login.setDefaultTimeout(15_000);
        await login.route(`${CALLBACK}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' }));
        const query = new URLSearchParams({ client_id: storefront, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid email', state: 'storefront-state' });
        await login.goto(`${server.url}/authorize?${query.toString()}`);
        await Promise.all([login.waitForURL(`${upstream.url}/**`), login.getByRole('button', { name: /Partner ID/ }).click()]);
        await signInAtProviderPage(login, upstream.url, 'alice');
        await login.waitForURL(`${CALLBACK}?**`);
        expect(new URL(login.url()).searchParams.get('code')).toBeTruthy();
      } finally {
        await visitor.close();
      }
      expect((await api('GET', `/users/${encodeURIComponent('oidc|partner-oidc|alice')}`)).body).toMatchObject({ email: 'alice@upstream.example', logins_count: 1 });

      // SAML: a pasted certificate is checked; a good one is saved and shown back (it is public).
      await page.getByRole('link', { name: '← Enterprise and social connections' }).click();
      await page.getByRole('link', { name: 'partner-oidc' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'authentication-enterprise');
      await page.getByRole('button', { name: 'Create connection' }).click();
      await page.getByLabel('Name', { exact: true }).fill('acme-saml');
      await page.getByLabel('SAML', { exact: true }).check();
      await page.getByLabel('Sign-in URL').fill('https://idp.acme.example/sso');
      await page.getByLabel('Identity provider entity ID').fill('https://idp.acme.example/metadata');
      await page.getByLabel('Signing certificate').fill('-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----');
      await page.getByLabel('Sign-out URL').fill('https://idp.acme.example/slo');
      await page.getByLabel('E-mail attribute').fill('mail');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'options.signingCert must be a PEM or base64 certificate' }).waitFor();
      await page.getByLabel('Signing certificate').fill(CERTIFICATE);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'acme-saml' }).waitFor();
      expect((await page.getByLabel('Signing certificate').inputValue()).trim()).toBe(CERTIFICATE);
      expect((await connectionNamed('acme-saml'))?.options).toMatchObject({
        signInEndpoint: 'https://idp.acme.example/sso',
        issuer: 'https://idp.acme.example/metadata',
        signingCert: CERTIFICATE,
        signOutEndpoint: 'https://idp.acme.example/slo',
        fieldsMap: { email: 'mail' },
      });
      await expectAccessible(page);
      await screenshot(page, 'authentication-saml');

      // Deleting asks first: cancelled, nothing happens; confirmed, the connection is gone.
      await page.getByRole('button', { name: 'Delete connection' }).click();
      await page.getByRole('dialog', { name: 'Delete acme-saml?' }).getByRole('button', { name: 'Cancel' }).click();
      expect(await connectionNamed('acme-saml')).toBeDefined();
      await page.getByRole('button', { name: 'Delete connection' }).click();
      await page.getByRole('dialog', { name: 'Delete acme-saml?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Enterprise and social connections' }).waitFor();
      expect(await connectionNamed('acme-saml')).toBeUndefined();

      // Passwordless by e-mail, with eight-digit codes that last two minutes.
      await page.getByRole('link', { name: 'Passwordless' }).click();
      await page.getByRole('button', { name: 'Create connection' }).click();
      await page.getByLabel('Name', { exact: true }).fill('email-codes');
      await page.getByLabel('Code length').fill('8');
      await page.getByLabel('Code lifetime (seconds)').fill('120');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'email-codes' }).waitFor();
      expect(await connectionNamed('email-codes')).toMatchObject({ strategy: 'email', options: { totp: { length: 8, time_step: 120 } } });
      await expectAccessible(page);
      await screenshot(page, 'authentication-passwordless');
    } finally {
      await close();
    }
  }, 90_000);
});
