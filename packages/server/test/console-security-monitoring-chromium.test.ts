import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR_CONNECTION } from '../src/services/console-setup.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { deliveredIn, startLogReceiver, type LogReceiver } from './support/log-receiver.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const PASSWORD = 'Guarded-user-passw0rd!';
const EMAIL = 'guarded@example.com';
const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

/**
 * The console's Security and Monitoring areas in Chromium, over a socket, on PostgreSQL: an administrator turns on
 * brute-force protection, a user is blocked by real failed logins and unblocked under User blocks; multi-factor
 * authentication becomes required and the hosted login asks for it; the user's login events are found by filter and
 * one is opened; the daily chart shows today's logins; an HTTP log stream delivers to a receiver, is paused, edited
 * and deleted. The API's refusals are shown in its words.
 */
describe('console Security and Monitoring in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let receiver: LogReceiver;
  let administrator: ConsoleAdministrator;
  let userId: string;
  let app: { client_id: string; client_secret: string };

  /** A password-realm login at /oauth/token from this process (127.0.0.1), as an application's backend would make it. */
  async function passwordLogin(password: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: PASSWORD_REALM, realm: ADMINISTRATOR_CONNECTION, username: EMAIL, password, client_id: app.client_id, client_secret: app.client_secret }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function administratorPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInThroughHostedPage(page, server, administrator.email, administrator.password);
    return page;
  }

  beforeAll(async () => {
    [server, browser, receiver] = await Promise.all([startTestServer({ dialect: 'postgres', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium(), startLogReceiver()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    const user = await api('POST', '/users', { connection: ADMINISTRATOR_CONNECTION, email: EMAIL, password: PASSWORD, email_verified: true });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    userId = String(user.body.user_id);
    const client = await api('POST', '/clients', { name: 'Shop backend', app_type: 'regular_web', grant_types: [PASSWORD_REALM] });
    app = client.body as unknown as typeof app;
    const connection = (await api('GET', `/connections?name=${ADMINISTRATOR_CONNECTION}`)).body[0] as { id: string; enabled_clients: string[] };
    expect((await api('PATCH', `/connections/${connection.id}`, { enabled_clients: [...connection.enabled_clients, app.client_id] })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  it('Security: brute-force protection blocks a user, User blocks lifts it; multi-factor authentication becomes required at the hosted login', async () => {
    const page = await administratorPage();
    try {
      await page.getByRole('link', { name: 'Security' }).click();
      await page.getByRole('heading', { name: 'Attack protection' }).waitFor();
      const bruteForce = page.getByRole('form', { name: 'Brute-force protection' });
      await bruteForce.getByLabel('Failed logins before blocking').fill('3');
      await bruteForce.getByLabel('Enabled').check();
      await bruteForce.getByRole('button', { name: 'Save' }).click();
      await bruteForce.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await api('GET', '/attack-protection/brute-force-protection')).body).toMatchObject({ enabled: true, max_attempts: 3, shields: ['block', 'user_notification'] });
      await expectAccessible(page);
      await screenshot(page, 'security-attack-protection');

      // Three wrong passwords block the account from this address: the right one is refused too.
      for (let attempt = 0; attempt < 3; attempt += 1) expect((await passwordLogin('not-the-password')).status).toBe(403);
      const blocked = await passwordLogin(PASSWORD);
      expect(blocked.status, JSON.stringify(blocked.body)).toBe(429);
      expect(blocked.body.error).toBe('too_many_attempts');

      await page.getByRole('link', { name: 'User blocks' }).click();
      await page.getByRole('heading', { name: 'User blocks' }).waitFor();
      await page.getByLabel('E-mail, username or phone number').fill(EMAIL);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('cell', { name: '127.0.0.1' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'security-user-blocks');
      await page.getByRole('button', { name: 'Unblock' }).click();
      await page.getByRole('dialog', { name: `Unblock ${EMAIL}?` }).getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/user-blocks?identifier=${EMAIL}`)).body.blocked_for).toHaveLength(1);
      await page.getByRole('button', { name: 'Unblock' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Unblock' }).click();
      await page.getByRole('status').filter({ hasText: 'is unblocked' }).waitFor();
      await page.getByText(`${EMAIL} is not blocked.`).waitFor();
      expect((await api('GET', `/user-blocks/${encodeURIComponent(userId)}`)).body.blocked_for).toEqual([]);
      const unblocked = await passwordLogin(PASSWORD);
      expect(unblocked.status, JSON.stringify(unblocked.body)).toBe(200);

      await page.getByRole('link', { name: 'Multi-factor authentication' }).click();
      await page.getByRole('heading', { name: 'Multi-factor authentication', level: 1 }).waitFor();
      await page.getByLabel('One-time password').check();
      await page.getByRole('status').filter({ hasText: 'One-time password is enabled.' }).waitFor();
      // A factor Latchkey lacks: the API's refusal in its words, and the box shows the factor still off.
      await page.getByLabel('Push notification').click();
      await page.getByRole('alert').filter({ hasText: "The factor 'push-notification' is not supported by Latchkey" }).waitFor();
      expect(await page.getByLabel('Push notification').isChecked()).toBe(false);
      await page.getByLabel('Always').check();
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.getByRole('status').filter({ hasText: 'every login asks for a second factor' }).waitFor();
      expect((await api('GET', '/guardian/policies')).body).toEqual(['all-applications']);
      const factors = (await api('GET', '/guardian/factors')).body as unknown as { name: string; enabled: boolean }[];
      expect(factors.filter((factor) => factor.enabled).map((factor) => factor.name)).toEqual(['otp']);
      // The phone factor's delivery, as the API reports it.
      await page.locator('dd', { hasText: /^sms$/ }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'security-mfa');
    } finally {
      await page.context().close();
    }

    // The user signs in through the hosted login page: after the password, it asks them to enroll the factor.
    const context = await browser.newContext();
    const userPage = await context.newPage();
    userPage.setDefaultTimeout(15_000);
    try {
      await userPage.goto(`${server.url}/admin/`);
      await userPage.waitForURL(/\/u\/login/);
      await userPage.getByLabel('E-mail address', { exact: true }).fill(EMAIL);
      await userPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([userPage.waitForURL(/\/u\/mfa-otp-enrollment/), userPage.click('button[type="submit"]')]);
    } finally {
      await context.close();
      // The administrator signs in without a second factor in the next test.
      await api('PUT', '/guardian/policies', []);
    }
  }, 90_000);

  it('Monitoring: finds the user\u2019s logins by filter and opens one, charts today\u2019s logins, and streams events to an HTTP receiver', async () => {
    const page = await administratorPage();
    try {
      await page.getByRole('link', { name: 'Monitoring' }).click();
      await page.getByRole('heading', { name: 'Logs' }).waitFor();
      await page.getByLabel('User', { exact: true }).fill(EMAIL);
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.getByTestId('log-query-sent').textContent()).toBe(`user_id:"${userId}"`);
      const ofUser = await api('GET', `/logs?include_totals=true&q=${encodeURIComponent(`user_id:"${userId}"`)}`);
      await page.getByText(`(${String(ofUser.body.total)} events)`).waitFor();
      await page.getByLabel('Event type').selectOption('sepft');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Page 1 of 1 (1 events)').waitFor();
      await expectAccessible(page);
      await screenshot(page, 'monitoring-logs');

      await page.getByRole('row').nth(1).getByRole('link').click();
      await page.getByRole('heading', { name: 'Success Exchange (Password)' }).waitFor();
      const event = JSON.parse((await page.getByTestId('log-json').textContent()) ?? '{}') as Record<string, unknown>;
      expect(event).toMatchObject({ type: 'sepft', user_id: userId, client_id: app.client_id });
      expect((await api('GET', `/logs/${String(event.log_id)}`)).body).toEqual(event);
      await expectAccessible(page);
      await screenshot(page, 'monitoring-log-event');
      // Back to the list as it was left: the filters are in its address.
      await page.getByRole('link', { name: '← Logs' }).click();
      await page.getByText('Page 1 of 1 (1 events)').waitFor();
      expect(await page.getByLabel('Event type').inputValue()).toBe('sepft');
      // A field the log does not index: the API's refusal, in its words.
      await page.getByLabel('Query', { exact: true }).fill('user_name:guarded');
      await page.getByRole('button', { name: 'Search' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('not indexed here and cannot be searched');

      await page.getByRole('link', { name: 'Statistics' }).click();
      await page.getByRole('heading', { name: 'Statistics' }).waitFor();
      const today = new Date().toISOString().slice(0, 10);
      const stats = (await api('GET', '/stats/daily')).body as unknown as { date: string; logins: number }[];
      const todays = stats.find((entry) => entry.date.startsWith(today));
      // The administrator's two console sign-ins and the user's password login at least.
      expect(todays?.logins).toBeGreaterThanOrEqual(3);
      await page.getByText('The numbers, day by day').click();
      const row = page.getByRole('row', { name: new RegExp(`^${today} `) });
      expect(await row.getByRole('cell').first().textContent()).toBe(String(todays?.logins));
      expect(await page.locator(`[data-testid="daily-chart"] rect.series-logins[data-day="${today}"]`).count()).toBe(1);
      expect(await page.getByTestId('active-users').textContent()).toBe(String((await api('GET', '/stats/active-users')).body));
      await expectAccessible(page);
      await screenshot(page, 'monitoring-stats');

      await page.getByRole('link', { name: 'Log streams' }).click();
      await page.getByText('No log stream yet.').waitFor();
      await page.getByRole('button', { name: 'Create log stream' }).click();
      await page.getByLabel('Name').fill('Audit receiver');
      await page.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/events');
      await page.getByLabel('Authorization header').fill('Bearer receiver-token-0123456789');
      await page.getByLabel('auth.login.fail', { exact: true }).check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      expect(await page.getByRole('alert').textContent()).toContain('The URL must be https or http');
      await page.getByLabel('Endpoint URL').fill(`${receiver.url}/events`);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Audit receiver' }).waitFor();
      const [stream] = (await api('GET', '/log-streams')).body as unknown as { id: string; status: string; filters: unknown; sink: Record<string, unknown> }[];
      expect(stream).toMatchObject({ status: 'active', filters: [{ type: 'category', name: 'auth.login.fail' }], sink: { httpEndpoint: `${receiver.url}/events`, httpContentFormat: 'JSONLINES' } });

      // A failed login reaches the receiver, with the stream's authorization; the administrator's sign-in did not (filtered out).
      expect((await passwordLogin('wrong again')).status).toBe(403);
      await expect.poll(() => receiver.accepted('/events').length, { timeout: 15_000 }).toBeGreaterThan(0);
      const [delivery] = receiver.accepted('/events');
      expect(delivery?.headers.authorization).toBe('Bearer receiver-token-0123456789');
      const delivered = deliveredIn(delivery ?? { path: '', headers: {}, body: '' }, 'JSONLINES');
      expect(delivered.map((entry) => entry.data.type)).toEqual(['fp']);
      expect(delivered[0]?.data.user_id).toBe(userId);
      await expectAccessible(page);
      await screenshot(page, 'monitoring-log-stream');

      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
      expect((await api('GET', `/log-streams/${stream?.id ?? ''}`)).body.status).toBe('paused');
      await page.getByLabel('Name').fill('Audit receiver (paused)');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      // The stored credential is kept: the form sent none.
      const edited = (await api('GET', `/log-streams/${stream?.id ?? ''}`)).body;
      expect(edited).toMatchObject({ name: 'Audit receiver (paused)', status: 'paused', sink: { httpAuthorization: '****6789' } });
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByRole('status').filter({ hasText: 'Resumed' }).waitFor();
      expect((await api('GET', `/log-streams/${stream?.id ?? ''}`)).body.status).toBe('active');

      await page.getByRole('link', { name: '← Log streams' }).click();
      await page.getByRole('link', { name: 'Audit receiver (paused)' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'monitoring-log-streams');
      await page.getByRole('link', { name: 'Audit receiver (paused)' }).click();
      await page.getByRole('button', { name: 'Delete log stream' }).click();
      await page.getByRole('dialog', { name: 'Delete Audit receiver (paused)?' }).getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/log-streams/${stream?.id ?? ''}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete log stream' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText('No log stream yet.').waitFor();
      expect((await api('GET', `/log-streams/${stream?.id ?? ''}`)).status).toBe(404);
    } finally {
      await page.context().close();
    }
  }, 90_000);
});
