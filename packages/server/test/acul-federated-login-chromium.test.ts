import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundleOrigin, type BundleOrigin } from './support/acul-bundles.js';
import { configureAculBundle, renderedBySdk, sdkErrors, shownJson, submitThroughSdk } from './support/acul-screens.js';
import { startHostedLoginWorld, type HostedLoginWorld } from './support/hosted-login-browser.js';
import { startOidcProvider, signInAtProviderPage, UPSTREAM_SECRET } from './support/oidc-provider.js';
import { freePort } from './support/ports.js';

/**
 * The application's federated connections on the login and signup screens: a tenant bundle written with the
 * platform's SDK reads them from `transaction.alternateConnections` and starts one with `federatedLogin` /
 * `federatedSignup`; our standard pages show a button for each. Either way the browser goes to the upstream
 * OpenID Connect provider (npm oidc-provider, on its own port) within the same login transaction, comes back through
 * /login/callback, and the application exchanges its code for tokens of the federated user.
 */
describe('federated connections on the hosted login screens, in Chromium', () => {
  const CONNECTION = 'upstream-idp';
  const ICON = 'https://icons.example/upstream.svg';
  let world: HostedLoginWorld;
  let bundles: BundleOrigin;
  let upstream: { url: string; close(): Promise<void> };
  /** An application with the same connections that no bundle is configured for: it gets the standard pages. */
  let standardClient: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    world = await startHostedLoginWorld();
    const { api, fx } = world;
    bundles = await startBundleOrigin();
    // Latchkey runs on http://localhost here: the provider gets the code-flow client only.
    upstream = await startOidcProvider(await freePort(), world.server.url, { frontChannel: false });
    const created = await api('POST', '/clients', { name: 'Standard pages app', app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: ['authorization_code'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    standardClient = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    expect((await api('PATCH', `/connections/${await connectionId(fx.connection)}`, { enabled_clients: [fx.web.clientId, fx.spa.clientId, standardClient.clientId] })).status).toBe(200);
    const connection = await api('POST', '/connections', {
      name: CONNECTION,
      strategy: 'oidc',
      display_name: 'Upstream IdP',
      show_as_button: true,
      metadata: { tier: 'gold' },
      enabled_clients: [fx.web.clientId, standardClient.clientId],
      options: { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey', client_secret: UPSTREAM_SECRET, icon_url: ICON },
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const screens = [
      ['login-id', 'login-id'],
      ['login', 'login'],
      ['signup-id', 'signup-id'],
      ['signup', 'signup'],
    ] as const;
    await configureAculBundle(api, bundles.vanillaUrl, screens, [fx.web.clientId]);
  }, 120_000);
  afterAll(async () => {
    await upstream?.close();
    await bundles?.close();
    await world?.close();
  });

  async function connectionId(name: string): Promise<string> {
    const listed = await world.api('GET', `/connections?name=${encodeURIComponent(name)}`);
    const id = (listed.body as unknown as Array<{ id: string }>)[0]?.id;
    expect(id, JSON.stringify(listed.body)).toBeTruthy();
    return id ?? '';
  }

  const identifierFirst = async (on: boolean) => expect((await world.api('PATCH', '/prompts', { identifier_first: on })).status).toBe(200);

  /** Clicks `button`, signs in at the provider as `login`, and exchanges the code the application gets; gives the ID token's claims. */
  async function throughProvider(page: Page, button: string, login: string, client: { clientId: string; clientSecret: string }) {
    await Promise.all([page.waitForURL(`${upstream.url}/**`), page.click(button)]);
    await signInAtProviderPage(page, upstream.url, login);
    const tokens = await world.exchangeAtCallback(page, client);
    return decodeJwt(String(tokens.id_token));
  }

  it('login-id lists the connection in transaction.alternateConnections; federatedLogin ends in tokens for the federated user', async () => {
    await identifierFirst(true);
    const { page, close } = await world.open(world.fx.web.clientId);
    await renderedBySdk(page, 'login-id');
    expect(await shownJson(page, '#acul-alternates')).toEqual([
      { name: CONNECTION, strategy: 'oidc', metadata: { tier: 'gold' }, options: { displayName: 'Upstream IdP', iconUrl: ICON, showAsButton: true } },
    ]);
    // The database connection is the screen's own connection, never an alternate one.
    const context = await page.evaluate(() => (window as unknown as { universal_login_context: { transaction: Record<string, unknown> } }).universal_login_context.transaction);
    expect(context.alternate_connections).toEqual([{ name: CONNECTION, strategy: 'oidc', metadata: { tier: 'gold' }, options: { display_name: 'Upstream IdP', icon_url: ICON, show_as_button: true } }]);
    const claims = await throughProvider(page, `#federated-${CONNECTION}`, 'carol', world.fx.web);
    expect(claims).toMatchObject({ sub: `oidc|${CONNECTION}|carol`, email: 'carol@upstream.example' });
    await close();
  });

  it('signs up with federatedSignup on the one-page signup screen', async () => {
    await identifierFirst(false);
    const { page, close } = await world.open(world.fx.web.clientId, { screen_hint: 'signup' });
    await renderedBySdk(page, 'signup');
    const claims = await throughProvider(page, `#federated-${CONNECTION}`, 'dana', world.fx.web);
    expect(claims.sub).toBe(`oidc|${CONNECTION}|dana`);
    expect((await world.api('GET', `/users/${encodeURIComponent(`oidc|${CONNECTION}|dana`)}`)).body).toMatchObject({ logins_count: 1 });
    await close();
  });

  it('refuses a connection the screen does not offer (the database one, an unknown one) on the same screen with invalid-connection', async () => {
    await identifierFirst(false);
    const { page, close } = await world.open(world.fx.web.clientId);
    await renderedBySdk(page, 'login');
    for (const name of [world.fx.connection, 'no-such-connection']) {
      await page.fill('#federated-connection', name);
      await submitThroughSdk(page, '#federated-submit');
      await renderedBySdk(page, 'login');
      expect((await sdkErrors(page))?.map((error) => error.code)).toEqual(['invalid-connection']);
    }
    // The transaction is still open: the provider's button still logs in.
    const claims = await throughProvider(page, `#federated-${CONNECTION}`, 'carol', world.fx.web);
    expect(claims.sub).toBe(`oidc|${CONNECTION}|carol`);
    await close();
  });

  it('shows a button per federated connection on the standard pages (login-id and signup-id), which logs in without JavaScript', async () => {
    await identifierFirst(true);
    const { page, close } = await world.open(standardClient.clientId, { screen_hint: 'signup' });
    await page.waitForSelector('main.widget[data-screen="signup-id"]');
    const button = `main.widget .federated button[name="connection"][value="${CONNECTION}"]`;
    expect((await page.textContent(button))?.trim()).toBe('Continue with Upstream IdP');
    expect(await page.getAttribute(`${button} img`, 'src')).toBe(ICON);
    await Promise.all([page.waitForNavigation(), page.click('main.widget a[href^="/u/login/identifier"]')]);
    expect(await page.getAttribute('main.widget', 'data-screen')).toBe('login-id');
    const claims = await throughProvider(page, button, 'erin', standardClient);
    expect(claims.sub).toBe(`oidc|${CONNECTION}|erin`);
    await close();
  });

  it('offers no federated connection when the authorization request names the database connection', async () => {
    await identifierFirst(true);
    const { page, close } = await world.open(standardClient.clientId, { connection: world.fx.connection });
    await page.waitForSelector('main.widget[data-screen="login-id"]');
    expect(await page.$('main.widget .federated')).toBeNull();
    await close();
  });
});
