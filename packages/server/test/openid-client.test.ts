import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackServer } from './support/callback-server.js';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { DIALECTS } from './support/services.js';

/**
 * A certified relying party (npm openid-client) against Latchkey, unmodified: discovery, the authorization
 * code flow with PKCE through the hosted login page in real Chromium, refresh, userinfo, revocation and
 * RP-initiated logout. Plain HTTP on loopback, so the RP is told to allow insecure requests.
 */
describe.each(DIALECTS)('openid-client relying party (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let browser: Browser;
  let app: Awaited<ReturnType<typeof startCallbackServer>>;
  let config: oidc.Configuration;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    app = await startCallbackServer();
    fx = await provisionLogin(server, { callbackBase: app.origin });
    browser = await launchChromium();
    config = await oidc.discovery(new URL(`${server.url}/`), fx.web.clientId, fx.web.clientSecret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
  });

  it('discovers the issuer with PKCE support', () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(`${server.registry.issuer}/`);
    expect(metadata.supportsPKCE()).toBe(true);
  });

  it('logs in through the hosted page in Chromium, then refreshes, reads userinfo, revokes and logs out', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: fx.web.callback,
      scope: 'openid profile email offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl.href);
    expect(new URL(page.url()).pathname).toBe('/u/login');
    await page.fill('input[name="username"]', fx.user.email);
    await page.fill('input[name="password"]', fx.user.password);
    await Promise.all([page.waitForURL(`${fx.web.callback}**`), page.click('button[type="submit"]')]);
    expect(await page.textContent('#done')).toBe('done');
    const callbackUrl = new URL(page.url());

    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state });
    const claims = tokens.claims();
    expect(claims?.sub).toBe(fx.user.userId);
    expect(claims?.email).toBe(fx.user.email);
    expect(tokens.refresh_token).toBeDefined();

    const profile = await oidc.fetchUserInfo(config, tokens.access_token, fx.user.userId);
    expect(profile).toMatchObject({ sub: fx.user.userId, email: fx.user.email, name: 'Test User' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()?.sub).toBe(fx.user.userId);

    await oidc.tokenRevocation(config, refreshed.refresh_token ?? '');
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });

    // The session lets a second authorization through without the login page...
    const silent = oidc.buildAuthorizationUrl(config, { redirect_uri: fx.web.callback, scope: 'openid', prompt: 'none', state: 'again' });
    await page.goto(silent.href);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();

    // ...until RP-initiated logout ends it.
    const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: `${app.origin}/logged-out`, state: 'bye' });
    await page.goto(logout.href);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/logged-out');
    expect(landed.searchParams.get('state')).toBe('bye');
    await page.goto(silent.href);
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
    await context.close();
  });
});
