import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, inputValue } from './support/browser-client.js';
import { databaseConsole, type DatabaseConsole } from './support/fault-injection.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

/**
 * A sign-in spends what let the user in (a login transaction, a login ticket), replaces the browser's session and
 * stores the authorization code in one commit. Here the database itself refuses the code's insert (a trigger), and
 * the test shows that nothing of the sign-in was kept: the login can be completed again once the database accepts
 * the code, and the browser's earlier session is still the live one meanwhile.
 */
describe.each(DIALECTS)('a sign-in is one commit, shown by a failure the database forces (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let db: DatabaseConsole;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    expect((await managementApi(server, 'socket')('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
    db = await databaseConsole(server);
  });
  afterEach(async () => db.allowInserts());
  afterAll(async () => {
    await db?.close();
    await server?.close();
  });

  const codeOf = (response: Response) => new URL(response.headers.get('location') ?? 'x:').searchParams.get('code');

  /** /authorize for the web application's code flow, then the login page; the form's fields. */
  async function openLoginPage(browser: CookieClient, extra: Record<string, string> = {}) {
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', state: 's', ...extra });
    const start = await browser.get(`/authorize?${query.toString()}`);
    expect(start.status).toBe(302);
    const page = new URL(start.headers.get('location') ?? '', server.url);
    expect(page.pathname).toBe('/u/login');
    const html = await (await browser.get(page.pathname + page.search)).text();
    const form = { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '', username: fx.user.email, password: fx.user.password };
    return { path: page.pathname + page.search, form };
  }

  it('the hosted login page: a code that cannot be stored leaves the transaction open and the earlier session live', async () => {
    const browser = new CookieClient(server.url);
    const first = await openLoginPage(browser);
    expect(codeOf(await browser.postForm(first.path, first.form))).toBeTruthy();
    const earlierSession = browser.cookies.get('lk_session');
    expect(earlierSession).toBeDefined();
    expect(await db.liveArtifacts('session', fx.user.userId)).toBe(1);

    const again = await openLoginPage(browser, { prompt: 'login' });
    const openTransactions = await db.liveOfKind('login_transaction');
    await db.failInserts('authorization_code');
    const failed = await browser.postForm(again.path, again.form);
    expect(failed.status).toBe(500);
    expect(failed.headers.get('location')).toBeNull();
    expect(browser.cookies.get('lk_session')).toBe(earlierSession);
    expect(await db.liveArtifacts('session', fx.user.userId)).toBe(1);
    expect(await db.liveOfKind('login_transaction')).toBe(openTransactions);

    // The same form, posted again once the database takes codes, completes the login it did not spend.
    await db.allowInserts();
    const completed = await browser.postForm(again.path, again.form);
    expect(completed.status).toBe(302);
    expect(codeOf(completed)).toBeTruthy();
    expect(browser.cookies.get('lk_session')).not.toBe(earlierSession);
    expect(await db.liveArtifacts('session', fx.user.userId)).toBe(1);
    expect(await db.liveOfKind('login_transaction')).toBe(openTransactions - 1);
  });

  it('a cross-origin login ticket: a code that cannot be stored leaves the ticket unspent and no session', async () => {
    const browser = new CookieClient(server.url);
    const authenticated = await browser.postJson(
      '/co/authenticate',
      { client_id: fx.spa.clientId, credential_type: PASSWORD_REALM, username: fx.user.email, password: fx.user.password, realm: fx.connection },
      { origin: fx.spa.origin },
    );
    expect(authenticated.status).toBe(200);
    const { login_ticket: ticket } = (await authenticated.json()) as { login_ticket: string };
    const authorize = `/authorize?${new URLSearchParams({ client_id: fx.spa.clientId, redirect_uri: fx.spa.callback, response_type: 'code', scope: 'openid', state: 'co', login_ticket: ticket }).toString()}`;
    const sessionsBefore = await db.liveArtifacts('session', fx.user.userId);

    await db.failInserts('authorization_code');
    const failed = await browser.get(authorize);
    expect(failed.status).toBe(500);
    expect(failed.headers.get('location')).toBeNull();
    expect(browser.cookies.has('lk_session')).toBe(false);
    expect(await db.liveArtifacts('session', fx.user.userId)).toBe(sessionsBefore);
    expect(await db.liveOfKind('login_ticket')).toBe(1);

    await db.allowInserts();
    const signedIn = await browser.get(authorize);
    expect(signedIn.status).toBe(302);
    expect(codeOf(signedIn)).toBeTruthy();
    expect(browser.cookies.has('lk_session')).toBe(true);
    expect(await db.liveArtifacts('session', fx.user.userId)).toBe(sessionsBefore + 1);
    expect(await db.liveOfKind('login_ticket')).toBe(0);
  });

  it('the server keeps answering after the forced failures', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
  });
});
