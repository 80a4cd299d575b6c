import { AuthClient, isMfaRequiredError } from '@auth0/auth0-auth-js';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_LIBRARY, startAppPages } from './support/app-page-server.js';
import { localTls } from './support/certificates.js';
import { launchChromium } from './support/chromium.js';
import { startTestServer } from './support/harness.js';
import { provisionLogin } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';
import { startSmtpServer, textOf } from './support/smtp-receiver.js';
import { startSpaApp } from './support/spa-app-page.js';
import { totp } from './support/totp.js';

const REALM_GRANT = 'http://auth0.com/oauth/grant-type/password-realm';
const MFA_GRANTS = ['http://auth0.com/oauth/grant-type/mfa-otp', 'http://auth0.com/oauth/grant-type/mfa-oob', 'http://auth0.com/oauth/grant-type/mfa-recovery-code'];
/** A Base32 TOTP secret an administrator gives (`POST /users/{id}/authentication-methods`). */
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/**
 * A tenant with the MFA policy `all-applications` on HTTPS (the official SDKs only speak https://), a real SMTP
 * server for the e-mailed codes, and users whose second factor an administrator set up through the Management API.
 */
async function mfaTenant(dialect: (typeof DIALECTS)[number], options: { callbackBase?: string } = {}) {
  const tls = localTls();
  // Node's fetch (the SDKs' and ours) trusts the test certificate.
  setGlobalDispatcher(new Agent({ connect: { ca: tls.cert } }));
  const smtp = await startSmtpServer();
  const server = await startTestServer({
    dialect,
    listen: true,
    https: tls,
    env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, LATCHKEY_MAIL_FROM: 'Latchkey Test <no-reply@latchkey.test>' },
  });
  const fx = await provisionLogin(server, options);
  const api = managementApi(server, 'socket');
  const ok = async (answer: Promise<{ status: number; body: unknown }>, status = 200) => {
    const { status: got, body } = await answer;
    expect(got, JSON.stringify(body)).toBe(status);
    return body as Record<string, unknown>;
  };
  await ok(api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: ['authorization_code', 'refresh_token', 'password', REALM_GRANT, ...MFA_GRANTS] }));
  await ok(api('PATCH', `/clients/${fx.spa.clientId}`, { grant_types: ['authorization_code', 'refresh_token', REALM_GRANT, ...MFA_GRANTS] }));
  for (const factor of ['otp', 'email']) await ok(api('PUT', `/guardian/factors/${factor}`, { enabled: true }));
  await ok(api('PUT', '/guardian/policies', ['all-applications']));
  /** A user of the fixture's connection with one authentication method created by the administrator. */
  const userWith = async (name: string, method: Record<string, string>) => {
    const email = `${name}-${dialect}@mfa-sdk.example`;
    const user = await ok(api('POST', '/users', { connection: fx.connection, email, password: fx.user.password }), 201);
    await ok(api('POST', `/users/${encodeURIComponent(String(user.user_id))}/authentication-methods`, method), 201);
    return email;
  };
  return { server, smtp, fx, api, userWith, close: async () => (await server.close(), await smtp.close()) };
}

/**
 * `mfa_required` as the platform's official clients meet it, over a real socket: the authentication SDK
 * (npm `@auth0/auth0-auth-js`, the platform's Node and browser authentication client, unmodified) narrows the
 * password grant's answer with `isMfaRequiredError` and finishes the login with its MFA helpers: TOTP, and a code
 * e-mailed through a real SMTP server and read from the received message.
 */
describe.each(DIALECTS)('mfa_required through the official authentication SDK (%s)', (dialect) => {
  let tenant: Awaited<ReturnType<typeof mfaTenant>>;
  let sdk: AuthClient;

  beforeAll(async () => {
    tenant = await mfaTenant(dialect);
    sdk = new AuthClient({ domain: new URL(tenant.server.url).host, clientId: tenant.fx.web.clientId, clientSecret: tenant.fx.web.clientSecret });
  }, 60_000);
  afterAll(async () => tenant?.close());

  /** The password grant through the SDK; answers the mfa_token of the error it throws. */
  async function mfaTokenFor(username: string): Promise<string> {
    const error: unknown = await sdk.getTokenByPassword({ username, password: tenant.fx.user.password, scope: 'openid email' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isMfaRequiredError(error), String(error)).toBe(true);
    if (!isMfaRequiredError(error)) throw new Error('unreachable');
    expect(error.cause.error).toBe('mfa_required');
    expect(error.cause.error_description).toBe('Multifactor authentication required');
    return error.cause.mfa_token;
  }

  it('finishes a password login with a TOTP code: authenticators listed, the otp challenge, verify', async () => {
    const username = await tenant.userWith('totp', { type: 'totp', totp_secret: TOTP_SECRET });
    const mfaToken = await mfaTokenFor(username);
    const authenticators = await sdk.mfa.listAuthenticators({ mfaToken });
    expect(authenticators).toEqual([expect.objectContaining({ id: expect.stringMatching(/^totp\|dev_/), authenticatorType: 'otp', active: true })]);
    expect(await sdk.mfa.challengeAuthenticator({ mfaToken, challengeType: 'otp', authenticatorId: authenticators[0]?.id ?? '' })).toMatchObject({ challengeType: 'otp' });
    const wrong = await sdk.mfa.verify({ mfaToken, factorType: 'otp', otp: totp(TOTP_SECRET) === '000000' ? '111111' : '000000' }).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ cause: { error: 'invalid_grant', error_description: 'Invalid otp_code.' } });
    const tokens = await sdk.mfa.verify({ mfaToken, factorType: 'otp', otp: totp(TOTP_SECRET) });
    const claims = decodeJwt(String(tokens.idToken));
    expect(claims.email).toBe(username);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
    // The mfa_token is spent.
    await expect(sdk.mfa.verify({ mfaToken, factorType: 'otp', otp: totp(TOTP_SECRET, Date.now() + 30_000) })).rejects.toMatchObject({ cause: { error: 'invalid_grant' } });
  });

  it('finishes a password login with a code e-mailed through a real SMTP server', async () => {
    const address = `codes-${dialect}@mfa-sdk.example`;
    const username = await tenant.userWith('mailed', { type: 'email', email: address });
    const mfaToken = await mfaTokenFor(username);
    const [email] = await sdk.mfa.listAuthenticators({ mfaToken });
    expect(email).toMatchObject({ id: expect.stringMatching(/^email\|dev_/), authenticatorType: 'oob', active: true, name: `c***@mfa-sdk.example` });
    const before = tenant.smtp.mails.length;
    const challenge = await sdk.mfa.challengeAuthenticator({ mfaToken, challengeType: 'oob', authenticatorId: email?.id ?? '' });
    expect(challenge).toMatchObject({ challengeType: 'oob', oobCode: expect.any(String), bindingMethod: 'prompt' });
    // The message was handed to the SMTP server before the challenge was answered.
    const mails = tenant.smtp.mails.slice(before).filter((mail) => mail.to.includes(address));
    expect(mails).toHaveLength(1);
    const text = textOf(mails[0]?.raw ?? '');
    const code = /^Subject: (\d{6}) is your verification code$/m.exec(text)?.[1] ?? '';
    expect(text).toContain(`is ${code}.`);
    const tokens = await sdk.mfa.verify({ mfaToken, factorType: 'oob', oobCode: challenge.oobCode ?? '', bindingCode: code });
    const claims = decodeJwt(String(tokens.idToken));
    expect(claims.email).toBe(username);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'email']));
    // A code is good once.
    await expect(sdk.mfa.verify({ mfaToken: await mfaTokenFor(username), factorType: 'oob', oobCode: challenge.oobCode ?? '', bindingCode: code })).rejects.toMatchObject({
      cause: { error: 'invalid_grant' },
    });
  });
});

/**
 * The platform's browser library (npm auth0-js v10, unmodified) in Chromium, on an application page of another
 * site against Latchkey over HTTPS: `client.login` (the password-realm grant, cross-origin) of a single-page
 * application meets `mfa_required` and hands the application the error as the library words every error (`code`,
 * `description`, `statusCode`) with the server's body, and so the `mfa_token`, under `original.response.body`.
 * The application lists and challenges the authenticators with that token through the authentication SDK, and
 * sends the MFA grant itself (a public application: the SDK's `verify` is for applications with credentials).
 */
describe('mfa_required in the browser library (auth0-js) in Chromium', () => {
  let tenant: Awaited<ReturnType<typeof mfaTenant>>;
  let app: Awaited<ReturnType<typeof startAppPages>>;
  let browser: Browser;

  beforeAll(async () => {
    app = await startAppPages(
      () => ({
        domain: new URL(tenant.server.url).host,
        clientID: tenant.fx.spa.clientId,
        redirectUri: `${app.origin}/callback`,
        responseType: 'token id_token',
        _disableDeprecationWarnings: true,
      }),
      localTls(),
      REFERENCE_LIBRARY,
    );
    tenant = await mfaTenant('sqlite', { callbackBase: app.origin });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await tenant?.close();
  });

  it('surfaces mfa_required with the mfa_token from client.login, and the login finishes with it', async () => {
    const username = await tenant.userWith('browser', { type: 'totp', totp_secret: TOTP_SECRET });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto(`${app.origin}/`);
      const outcome = await page.evaluate(
        (options) =>
          new Promise<Record<string, unknown>>((resolve) => {
            type Callback = (err: { code?: unknown; description?: unknown; statusCode?: unknown; original?: { response?: { body?: Record<string, unknown> } } } | null, res: unknown) => void;
            const webAuth = (window as unknown as { webAuth: { client: { login(options: unknown, cb: Callback): void } } }).webAuth;
            webAuth.client.login(options, (err, res) =>
              resolve({ code: err?.code, description: err?.description, statusCode: err?.statusCode, body: err?.original?.response?.body, res: res ?? null }),
            );
          }),
        { realm: tenant.fx.connection, username, password: tenant.fx.user.password, scope: 'openid email' },
      );
      expect(outcome).toEqual({
        code: 'mfa_required',
        description: 'Multifactor authentication required',
        statusCode: 403,
        body: { error: 'mfa_required', error_description: 'Multifactor authentication required', mfa_token: expect.any(String) },
        res: null,
      });
      const mfaToken = String((outcome.body as { mfa_token: string }).mfa_token);

      const sdk = new AuthClient({ domain: new URL(tenant.server.url).host, clientId: tenant.fx.spa.clientId });
      const [authenticator] = await sdk.mfa.listAuthenticators({ mfaToken });
      expect(authenticator).toMatchObject({ authenticatorType: 'otp', active: true });
      expect(await sdk.mfa.challengeAuthenticator({ mfaToken, challengeType: 'otp' })).toMatchObject({ challengeType: 'otp' });

      // The page sends the mfa-otp grant, cross-origin, as a single-page application does.
      const finished = await page.evaluate(
        async ({ url, form }) => {
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
          return { status: response.status, body: (await response.json()) as Record<string, unknown> };
        },
        { url: `${tenant.server.url}/oauth/token`, form: { grant_type: MFA_GRANTS[0] ?? '', client_id: tenant.fx.spa.clientId, mfa_token: mfaToken, otp: totp(TOTP_SECRET) } },
      );
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
      expect(decodeJwt(String(finished.body.id_token)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
    } finally {
      await context.close();
    }
  });
});

const MFA_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/**
 * The platform's SPA SDK (npm `@auth0/auth0-spa-js`, unmodified) in Chromium. Its `MfaRequiredError` (with the
 * `mfa_token`) comes only from token requests the SDK itself sends (refresh token, token exchange, passkey grants),
 * and Latchkey answers `mfa_required` only to the password, password-realm and passwordless one-time-code grants
 * (MFA_TOKEN_PATHS: a refresh continues a sign-in that passed its stages), so that error cannot be met here. What an
 * SPA meets is a step-up: after a login without a second factor, `getTokenSilently` asking for one through
 * `acr_values` sends the silent `/authorize` (prompt=none) that Latchkey answers as the platform does, with
 * `login_required` and `Multifactor authentication required`; the SDK surfaces it, and with
 * `interactiveErrorHandler: 'popup'` recognizes it as the step-up and opens the interactive login for it.
 */
describe('a step-up in the SPA SDK (auth0-spa-js) in Chromium', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let fx: Awaited<ReturnType<typeof provisionLogin>>;
  let app: Awaited<ReturnType<typeof startSpaApp>>;
  let browser: Browser;
  let interactiveErrorHandler: 'popup' | undefined;

  beforeAll(async () => {
    // The issuer on 127.0.0.1, as the SDK is given Latchkey's origin (`domain`) and expects `iss` to be it.
    server = await startTestServer({ dialect: 'sqlite', listen: true, publicHost: '127.0.0.1' });
    app = await startSpaApp(() => ({
      domain: server.url,
      clientId: fx.spa.clientId,
      authorizationParams: { redirect_uri: `${app.origin}/callback` },
      cacheLocation: 'memory',
      ...(interactiveErrorHandler ? { interactiveErrorHandler } : {}),
    }));
    fx = await provisionLogin(server, { callbackBase: app.origin });
    const api = managementApi(server, 'socket');
    expect((await api('PUT', '/guardian/factors/otp', { enabled: true })).status).toBe(200);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
  });

  type Outcome = { ok: true } | { ok: false; error: unknown; description: unknown; isGeneric: boolean; isMfaRequired: boolean };
  const silently = (page: Page, authorizationParams: Record<string, string>) =>
    page.evaluate(async (params): Promise<Outcome> => {
      const sdk = window as unknown as { auth0: Record<string, new (...args: never[]) => unknown>; auth0Client: { getTokenSilently(options: unknown): Promise<unknown> } };
      try {
        await sdk.auth0Client.getTokenSilently({ cacheMode: 'off', authorizationParams: params });
        return { ok: true };
      } catch (error) {
        const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown };
        return {
          ok: false,
          error: code,
          description,
          isGeneric: error instanceof (sdk.auth0.GenericError as new () => unknown),
          isMfaRequired: error instanceof (sdk.auth0.MfaRequiredError as new () => unknown),
        };
      }
    }, authorizationParams);

  it('surfaces login_required "Multifactor authentication required" for acr_values after a login without a second factor, and opens the step-up login', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.origin}/`);
      await page.waitForFunction(() => 'auth0Client' in window);
      await Promise.all([
        page.waitForURL(`${server.url}/u/login**`),
        page.evaluate(() => {
          void (window as unknown as { auth0Client: { loginWithRedirect(): Promise<void> } }).auth0Client.loginWithRedirect();
        }),
      ]);
      await page.fill('#field-username', fx.user.email);
      await page.fill('#field-password', fx.user.password);
      await Promise.all([page.waitForURL(`${app.origin}/callback?**`), page.click('button[type="submit"]')]);
      await page.waitForFunction(() => 'auth0Client' in window);
      const claims = await page.evaluate(async () => {
        const client = (window as unknown as { auth0Client: { handleRedirectCallback(): Promise<unknown>; getIdTokenClaims(): Promise<Record<string, unknown>> } }).auth0Client;
        await client.handleRedirectCallback();
        return client.getIdTokenClaims();
      });
      expect(claims.amr ?? []).not.toContain('mfa');

      // The session answers a silent request that asks for nothing more; one asking for a second factor it lacks is refused.
      expect(await silently(page, {})).toEqual({ ok: true });
      expect(await silently(page, { acr_values: MFA_ACR })).toEqual({
        ok: false,
        error: 'login_required',
        description: 'Multifactor authentication required',
        isGeneric: true,
        isMfaRequired: false,
      });

      // With the SDK's interactive handler, the same answer opens the interactive login, asking for the second factor.
      interactiveErrorHandler = 'popup';
      await page.goto(`${app.origin}/`);
      await page.waitForFunction(() => 'auth0Client' in window);
      const interactive = context.waitForEvent('request', (request) => request.url().startsWith(`${server.url}/authorize?`) && new URL(request.url()).searchParams.get('prompt') !== 'none');
      const popup = context.waitForEvent('page');
      const outcome = silently(page, { acr_values: MFA_ACR });
      const opened = await popup;
      const request = await interactive;
      expect(new URL(request.url()).searchParams.get('acr_values')).toBe(MFA_ACR);
      expect(request.frame().page()).toBe(opened);
      await opened.close();
      expect(await outcome).toMatchObject({ ok: false, error: 'cancelled' });
    } finally {
      interactiveErrorHandler = undefined;
      await context.close();
    }
  });
});
