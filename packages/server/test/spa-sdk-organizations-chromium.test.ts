import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startSpaApp } from './support/spa-app-page.js';

/**
 * The platform's SPA SDK (npm `@auth0/auth0-spa-js`, its UMD build, unmodified) in Chromium, on an application page
 * served from its own origin: `loginWithRedirect` with `organization` (an id, or a name) or with an invitation
 * goes to Latchkey's hosted login, and back on the application `handleRedirectCallback()` exchanges the code
 * (PKCE, a cross-origin token request) and validates the ID token itself — including `org_id` (for an id) or
 * `org_name` (for a name) against the organization it asked for.
 */

/** The SDK's client as the page has it (only what the tests call). */
interface SpaClient {
  loginWithRedirect(options: { authorizationParams: Record<string, string> }): Promise<void>;
  handleRedirectCallback(): Promise<{ appState?: unknown }>;
  getIdTokenClaims(): Promise<Record<string, unknown> | undefined>;
  getTokenSilently(options: { cacheMode: 'off'; detailedResponse: true }): Promise<{ id_token: string }>;
}
type AppWindow = Window & { auth0Client: SpaClient };

describe('the platform SPA SDK logs in to organizations, in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let fx: LoginFixture;
  let app: Awaited<ReturnType<typeof startSpaApp>>;
  let browser: Browser;
  let org: { id: string; name: string };

  const ok = async (response: Promise<{ status: number; body: unknown }>, status = 200) => {
    const answer = await response;
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body as Record<string, unknown> & Record<string, unknown>[];
  };

  beforeAll(async () => {
    // The issuer on 127.0.0.1, as the SDK is given Latchkey's origin (`domain`) and expects `iss` to be it.
    server = await startTestServer({ dialect: 'sqlite', listen: true, publicHost: '127.0.0.1' });
    api = managementApi(server, 'socket');
    app = await startSpaApp(() => ({
      domain: server.url,
      clientId: fx.spa.clientId,
      authorizationParams: { redirect_uri: `${app.origin}/callback` },
      cacheLocation: 'memory',
    }));
    // The fixture's single-page application: callbacks, web origins and allowed origins at the application's origin.
    fx = await provisionLogin(server, { callbackBase: app.origin });
    await ok(api('PATCH', `/clients/${fx.spa.clientId}`, { organization_usage: 'allow', initiate_login_uri: 'https://app.example.com/login' }));
    const created = await ok(api('POST', '/organizations', { name: 'initech', display_name: 'Initech' }), 201);
    org = { id: String(created.id), name: 'initech' };
    const [connection] = await ok(api('GET', `/connections?name=${fx.connection}`));
    await ok(api('POST', `/organizations/${org.id}/enabled_connections`, { connection_id: String(connection?.id) }), 201);
    await ok(api('POST', `/organizations/${org.id}/members`, { members: [fx.user.userId] }), 204);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
  });

  /** A fresh browser on the application's page at `path`, once the SDK's client exists. */
  async function openApp(path = '/'): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.origin}${path}`);
    await page.waitForFunction(() => 'auth0Client' in window);
    return { page, close: () => context.close() };
  }

  /** `loginWithRedirect` with `authorizationParams`; resolves on Latchkey's hosted page. */
  async function loginWithRedirect(page: Page, authorizationParams: Record<string, string>): Promise<URL> {
    await Promise.all([
      page.waitForURL(`${server.url}/u/**`),
      page.evaluate((params) => {
        void (window as unknown as AppWindow).auth0Client.loginWithRedirect({ authorizationParams: params });
      }, authorizationParams),
    ]);
    return new URL(page.url());
  }

  /** Submits Latchkey's standard page and waits for the next document (optionally, a URL). */
  async function submitPage(page: Page, button = 'button[type="submit"]', until?: string): Promise<void> {
    await Promise.all([until ? page.waitForURL(until) : page.waitForNavigation(), page.click(button)]);
  }

  /** Back on the application: `handleRedirectCallback()` then `getIdTokenClaims()`, or the SDK's error message. */
  async function handleRedirectCallback(page: Page): Promise<{ claims?: Record<string, unknown>; error?: string }> {
    expect(new URL(page.url()).origin + new URL(page.url()).pathname).toBe(`${app.origin}/callback`);
    await page.waitForFunction(() => 'auth0Client' in window);
    return page.evaluate(async () => {
      const client = (window as unknown as AppWindow).auth0Client;
      try {
        await client.handleRedirectCallback();
        return { claims: await client.getIdTokenClaims() };
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    });
  }

  async function logIn(page: Page, email = fx.user.email, password = fx.user.password): Promise<void> {
    expect(await page.getAttribute('main', 'data-screen')).toBe('login');
    await page.fill('#field-username', email);
    await page.fill('#field-password', password);
    await submitPage(page, 'button[type="submit"]', `${app.origin}/callback?**`);
  }

  it('organization by id: the hosted login, then handleRedirectCallback validates org_id; silent authentication keeps it', async () => {
    const { page, close } = await openApp();
    const hosted = await loginWithRedirect(page, { organization: org.id });
    expect(hosted.pathname).toBe('/u/login');
    await logIn(page);
    const { claims, error } = await handleRedirectCallback(page);
    expect(error).toBeUndefined();
    expect(claims).toMatchObject({ sub: fx.user.userId, org_id: org.id, iss: `${server.url}/`, aud: fx.spa.clientId });
    expect(claims?.org_name).toBeUndefined();

    // getTokenSilently: an iframe to /authorize?prompt=none (web_message) with the organization the SDK remembered
    // (its organization_hint cookie), then the same checks on the new ID token.
    const silent = await page.evaluate(async () => {
      const client = (window as unknown as AppWindow).auth0Client;
      try {
        return { idToken: (await client.getTokenSilently({ cacheMode: 'off', detailedResponse: true })).id_token };
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    });
    expect(silent.error).toBeUndefined();
    expect(decodeJwt(silent.idToken ?? '')).toMatchObject({ sub: fx.user.userId, org_id: org.id });
    await close();
  });

  it('organization by name: with organization names allowed for the tenant, the SDK finds org_name (and org_id) in the ID token', async () => {
    await ok(api('PATCH', '/tenants/settings', { allow_organization_name_in_authentication_api: true }));
    try {
      const { page, close } = await openApp();
      // Any case: the SDK compares org_name with the lower-cased name it asked for.
      await loginWithRedirect(page, { organization: 'Initech' });
      await logIn(page);
      const { claims, error } = await handleRedirectCallback(page);
      expect(error).toBeUndefined();
      expect(claims).toMatchObject({ sub: fx.user.userId, org_id: org.id, org_name: 'initech' });
      await close();
    } finally {
      await ok(api('PATCH', '/tenants/settings', { allow_organization_name_in_authentication_api: false }));
    }
  });

  it('organization by name while the tenant does not allow names: refused at /authorize, as the platform does, and the SDK reports it', async () => {
    const { page, close } = await openApp();
    // Answered at once: back at the application's callback with the error, no login page on the way.
    await Promise.all([
      page.waitForURL(`${app.origin}/callback?**`, { timeout: 10_000 }),
      page.evaluate(() => {
        void (window as unknown as AppWindow).auth0Client.loginWithRedirect({ authorizationParams: { organization: 'initech' } });
      }),
    ]);
    expect(new URL(page.url()).searchParams.get('error')).toBe('invalid_request');
    const { claims, error } = await handleRedirectCallback(page);
    expect(claims).toBeUndefined();
    expect(error).toBe('authorization request parameter organization must be an organization id');
    await close();
  });

  it('an invitation: the link’s organization and invitation go to loginWithRedirect; accept-invitation, signup, then org_id and the membership', async () => {
    const invitee = `spa-invitee-${Date.now()}@example.com`;
    const invitation = await ok(
      api('POST', `/organizations/${org.id}/invitations`, { inviter: { name: 'Bill Lumbergh' }, invitee: { email: invitee }, client_id: fx.spa.clientId, send_invitation_email: false }),
      201,
    );
    // The link goes to the application's initiate_login_uri; here the application's own login route gets its query.
    const link = new URL(String(invitation.invitation_url));
    expect(link.origin + link.pathname).toBe('https://app.example.com/login');
    const { page, close } = await openApp(`/login${link.search}`);
    const hosted = await Promise.all([
      page.waitForURL(`${server.url}/u/**`),
      page.evaluate(() => {
        const query = new URLSearchParams(location.search);
        const authorizationParams = { organization: query.get('organization') ?? '', invitation: query.get('invitation') ?? '' };
        void (window as unknown as AppWindow).auth0Client.loginWithRedirect({ authorizationParams });
      }),
    ]).then(() => new URL(page.url()));
    expect(hosted.pathname).toBe('/u/accept-invitation');
    expect(await page.getAttribute('main', 'data-screen')).toBe('accept-invitation');
    expect(await page.textContent('main')).toContain('Bill Lumbergh invited you to join Initech');
    await submitPage(page, 'button[name="action"][value="default"]');

    // No account for the invited address yet: signup.
    expect(new URL(page.url()).pathname).toBe('/u/signup');
    expect(await page.inputValue('#field-email')).toBe(invitee);
    await page.fill('#field-password', USER_PASSWORD);
    await submitPage(page, 'button[type="submit"]', `${app.origin}/callback?**`);
    const { claims, error } = await handleRedirectCallback(page);
    expect(error).toBeUndefined();
    expect(claims).toMatchObject({ email: invitee, org_id: org.id });
    const members = await ok(api('GET', `/organizations/${org.id}/members`));
    expect(members.map((member) => member.user_id)).toContain(claims?.sub);
    expect((await api('GET', `/organizations/${org.id}/invitations/${String(invitation.id)}`)).status).toBe(404);
    await close();
  });
});
