import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startCallbackServer } from './callback-server.js';
import { launchChromium } from './chromium.js';
import { startTestServer, type TestServer } from './harness.js';
import { provisionLogin, type LoginFixture } from './login-fixture.js';
import { managementApi, type ManagementApi } from './management-api.js';

type Client = { clientId: string; clientSecret: string };

/**
 * What the hosted-login browser suites share: a server on a real socket, the login fixture whose callbacks go to a
 * real callback server, an application whose only connection is passwordless (e-mail), and Chromium.
 */
export interface HostedLoginWorld {
  server: TestServer;
  fx: LoginFixture;
  api: ManagementApi;
  callback: Awaited<ReturnType<typeof startCallbackServer>>;
  browser: Browser;
  otpClient: Client;
  /** A new browser context at `/authorize` for `clientId` (code flow, `state=app-state`). */
  open(clientId: string, params?: Record<string, string>): Promise<{ page: Page; close(): Promise<void> }>;
  /** The code the page reached the callback with, exchanged for tokens (checked: state, code, 200, an ID token). */
  exchangeAtCallback(page: Page, client: Client): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startHostedLoginWorld(): Promise<HostedLoginWorld> {
  const server = await startTestServer({ dialect: 'sqlite', listen: true });
  const callback = await startCallbackServer();
  const fx = await provisionLogin(server, { callbackBase: callback.origin });
  const api = managementApi(server);
  const created = await api('POST', '/clients', { name: 'Passwordless app', app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: ['authorization_code'] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const otpClient = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
  const otpConnection = `otp-${Math.random().toString(36).slice(2, 8)}`;
  expect((await api('POST', '/connections', { name: otpConnection, strategy: 'email', enabled_clients: [otpClient.clientId] })).status).toBe(201);
  const browser = await launchChromium();
  return {
    server,
    fx,
    api,
    callback,
    browser,
    otpClient,
    async open(clientId, params = {}) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const query = new URLSearchParams({ client_id: clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid email', state: 'app-state', ...params });
      await page.goto(`${server.url}/authorize?${query.toString()}`);
      return { page, close: () => context.close() };
    },
    async exchangeAtCallback(page, client) {
      await page.waitForURL(`${callback.origin}/**`);
      const url = new URL(page.url());
      expect(url.pathname).toBe('/callback');
      expect(url.searchParams.get('state')).toBe('app-state');
      const code = url.searchParams.get('code');
      expect(code, url.toString()).toBeTruthy();
      const answer = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: fx.web.callback, client_id: client.clientId, client_secret: client.clientSecret }),
      });
      const tokens = (await answer.json()) as Record<string, unknown>;
      expect(answer.status, JSON.stringify(tokens)).toBe(200);
      expect(tokens.id_token).toBeTruthy();
      return tokens;
    },
    async close() {
      await browser.close();
      await callback.close();
      await server.close();
    },
  };
}
