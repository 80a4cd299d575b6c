import { expect } from 'vitest';
import { inputValue, type CookieClient } from './browser-client.js';
import type { TestServer } from './harness.js';
import { managementApi } from './management-api.js';

export const USER_PASSWORD = 'correct horse battery staple 42';

export interface LoginFixture {
  /** A regular web application (confidential) with every user grant. */
  web: { clientId: string; clientSecret: string; callback: string };
  /** A single-page application (public client). */
  spa: { clientId: string; callback: string; origin: string };
  connection: string;
  api: { identifier: string; scopes: string[] };
  user: { userId: string; email: string; password: string };
}

/**
 * Provisions through the Management API what a login needs: a database connection enabled for a web and a
 * single-page application, an API with scopes and offline access, and a user with a password.
 */
export async function provisionLogin(server: TestServer, options: { callbackBase?: string; suffix?: string } = {}): Promise<LoginFixture> {
  const api = managementApi(server);
  const suffix = options.suffix ?? Math.random().toString(36).slice(2, 8);
  const callbackBase = options.callbackBase ?? 'https://app.example.com';
  const callback = `${callbackBase}/callback`;
  const ok = (response: { status: number; body: unknown }, status: number) => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    return response.body as Record<string, unknown>;
  };
  const web = ok(
    await api('POST', '/clients', {
      name: `Web ${suffix}`,
      app_type: 'regular_web',
      callbacks: [callback],
      allowed_logout_urls: [`${callbackBase}/logged-out`],
      web_origins: [callbackBase],
      allowed_origins: [callbackBase],
      grant_types: ['authorization_code', 'implicit', 'refresh_token', 'password', 'http://auth0.com/oauth/grant-type/password-realm'],
    }),
    201,
  );
  const spa = ok(
    await api('POST', '/clients', {
      name: `SPA ${suffix}`,
      app_type: 'spa',
      callbacks: [callback],
      allowed_logout_urls: [`${callbackBase}/logged-out`],
      web_origins: [callbackBase],
      allowed_origins: [callbackBase],
    }),
    201,
  );
  const connection = `db-${suffix}`;
  ok(await api('POST', '/connections', { name: connection, strategy: 'auth0', enabled_clients: [String(web.client_id), String(spa.client_id)] }), 201);
  const identifier = `https://api-${suffix}.example.com/`;
  const scopes = ['read:things', 'write:things'];
  ok(
    await api('POST', '/resource-servers', {
      name: `API ${suffix}`,
      identifier,
      scopes: scopes.map((value) => ({ value })),
      allow_offline_access: true,
    }),
    201,
  );
  const email = `user-${suffix}@example.com`;
  const user = ok(await api('POST', '/users', { connection, email, password: USER_PASSWORD, name: 'Test User', email_verified: true }), 201);
  return {
    web: { clientId: String(web.client_id), clientSecret: String(web.client_secret), callback },
    spa: { clientId: String(spa.client_id), callback, origin: callbackBase },
    connection,
    api: { identifier, scopes },
    user: { userId: String(user.user_id), email, password: USER_PASSWORD },
  };
}

/** The password-realm grant (`/oauth/token`) of the fixture's user at its web application; `extra` adds fields. */
export function passwordRealmForm(fx: LoginFixture, extra: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
    client_id: fx.web.clientId,
    client_secret: fx.web.clientSecret,
    username: fx.user.email,
    password: fx.user.password,
    realm: fx.connection,
    ...extra,
  };
}

/**
 * Logs the fixture's user in on the hosted page that `authorizeUrl` leads to, as a browser without JavaScript
 * would (one form post); answers where the browser is sent next.
 */
export async function signInOnHostedPage(browser: CookieClient, server: Pick<TestServer, 'url'>, fx: Pick<LoginFixture, 'user'>, authorizeUrl: string): Promise<URL> {
  const start = await browser.get(authorizeUrl);
  expect(start.status).toBe(302);
  const page = new URL(start.headers.get('location') ?? '', server.url);
  const html = await (await browser.get(page.pathname + page.search)).text();
  const answer = await browser.postForm(page.pathname + page.search, { state: inputValue(html, 'state') ?? '', username: fx.user.email, password: fx.user.password });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location') ?? '', server.url);
}
