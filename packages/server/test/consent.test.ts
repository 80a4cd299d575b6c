import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, signInOnHostedPage, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';
import { verifiableRedirect } from '../src/oauth/consent.js';

const THIRD_PARTY_CALLBACK = 'https://partner.example.net/cb';
const LOCAL_CALLBACK = 'http://localhost:4000/callback';

/**
 * Consent over a real socket, on both dialects: a third-party application (and a first-party one on a redirect URI
 * that proves nothing, or for an API that does not let it skip) gets the consent screen after the user signs in;
 * declining answers `access_denied`, accepting is remembered per user, application and API (`/api/v2/grants`) and
 * not asked again for what was granted; `prompt=consent` asks again, `prompt=none` answers `consent_required`.
 */
describe.each(DIALECTS)('consent (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let partner: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    const created = await api('POST', '/clients', {
      name: 'Partner app',
      app_type: 'regular_web',
      is_first_party: false,
      callbacks: [THIRD_PARTY_CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    partner = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    // The fixture's API describes its scopes, as the consent screen shows them.
    const described = await api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, {
      scopes: [{ value: 'read:things', description: 'Read your things' }, { value: 'write:things', description: 'Change your things' }],
    });
    expect(described.status).toBe(200);
    const connections = await api('GET', `/connections?name=${fx.connection}`);
    const connection = connections.body[0] as { id: string; enabled_clients: string[] };
    const localApp = await api('PATCH', `/clients/${fx.web.clientId}`, { callbacks: [fx.web.callback, LOCAL_CALLBACK] });
    expect(localApp.status).toBe(200);
    expect((await api('PATCH', `/connections/${connection.id}`, { enabled_clients: [...connection.enabled_clients, partner.clientId] })).status).toBe(200);
  }, 60_000);
  afterAll(async () => server?.close());

  const authorizeUrl = (clientId: string, redirectUri: string, extra: Record<string, string> = {}) =>
    `/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid read:things', audience: fx.api.identifier, state: 'st', ...extra })}`;


  const redirected = async (response: Response) => {
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') ?? '', server.url);
  };

  /** The consent screen at `at`: its html, and the fields its form posts. */
  async function consentScreen(browser: CookieClient, at: URL) {
    expect(at.pathname).toBe('/u/consent');
    const response = await browser.get(at.pathname + at.search);
    expect(response.status).toBe(200);
    const html = await response.text();
    return { html, action: formAction(html) ?? '', state: inputValue(html, 'state') ?? '' };
  }

  async function answer(browser: CookieClient, at: URL, action: string): Promise<Response> {
    const screen = await consentScreen(browser, at);
    return browser.postForm(screen.action, { state: screen.state, action }, { origin: server.url });
  }

  async function exchange(code: string, client: { clientId: string; clientSecret: string }, redirectUri: string) {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  const grantsOf = async (query: string) => {
    const response = await api('GET', `/grants?${query}`);
    expect(response.status).toBe(200);
    return response.body as unknown as { id: string; clientID: string; user_id: string; audience: string; scope: string[] }[];
  };

  it('a third-party application: the screen lists what it asks; decline answers access_denied, accept is remembered', async () => {
    await api('DELETE', `/grants?user_id=${encodeURIComponent(fx.user.userId)}`);
    const browser = new CookieClient(server.url);
    const consentAt = await signInOnHostedPage(browser, server, fx, authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK));
    const screen = await consentScreen(browser, consentAt);
    expect(screen.html).toContain('Partner app');
    expect(screen.html).toContain('<code>read:things</code>');
    expect(screen.html).toContain('Read your things');
    expect(screen.html).toMatch(/<button type="submit" name="action" value="accept">/);
    expect(screen.html).toMatch(/name="action" value="deny"/);

    const declined = await redirected(await browser.postForm(screen.action, { state: screen.state, action: 'deny' }, { origin: server.url }));
    expect(declined.origin + declined.pathname).toBe(THIRD_PARTY_CALLBACK);
    expect(Object.fromEntries(declined.searchParams)).toEqual({ error: 'access_denied', error_description: 'User did not authorize the request', state: 'st' });
    expect(await grantsOf(`user_id=${encodeURIComponent(fx.user.userId)}`)).toEqual([]);

    // The user is signed in now: the next request goes straight to the consent screen.
    const again = await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK)));
    const accepted = await redirected(await answer(browser, again, 'accept'));
    expect(accepted.origin + accepted.pathname).toBe(THIRD_PARTY_CALLBACK);
    const code = accepted.searchParams.get('code');
    expect(code).toBeTruthy();
    const tokens = await exchange(code ?? '', partner, THIRD_PARTY_CALLBACK);
    expect(tokens.scope).toBe('openid read:things');

    const grants = await grantsOf(`user_id=${encodeURIComponent(fx.user.userId)}`);
    expect(grants).toEqual([{ id: expect.stringMatching(/^cgr_/), clientID: partner.clientId, user_id: fx.user.userId, audience: fx.api.identifier, scope: ['openid', 'read:things'] }]);

    // Within what was granted: answered at once, silently too.
    expect((await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK)))).searchParams.get('code')).toBeTruthy();
    expect((await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { prompt: 'none' })))).searchParams.get('code')).toBeTruthy();
    // A scope not granted yet, or prompt=consent, asks again; prompt=none cannot ask.
    const more = authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { scope: 'openid read:things write:things' });
    expect((await redirected(await browser.get(more))).pathname).toBe('/u/consent');
    expect((await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { prompt: 'consent' })))).pathname).toBe('/u/consent');
    const silent = await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { scope: 'openid read:things write:things', prompt: 'none' })));
    expect(silent.searchParams.get('error')).toBe('consent_required');

    // Accepting more adds to the grant.
    await redirected(await answer(browser, await redirected(await browser.get(more)), 'accept'));
    expect((await grantsOf(`client_id=${partner.clientId}`))[0]?.scope).toEqual(['openid', 'read:things', 'write:things']);
  });

  it('revoking a grant through the Management API makes the application ask again', async () => {
    const browser = new CookieClient(server.url);
    const consentAt = await signInOnHostedPage(browser, server, fx, authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { prompt: 'login' }));
    // Granted in the test before (or now): answered with a code or the screen, then accepted.
    if (consentAt.pathname === '/u/consent') await answer(browser, consentAt, 'accept');
    const [grant] = await grantsOf(`client_id=${partner.clientId}&audience=${encodeURIComponent(fx.api.identifier)}`);
    expect(grant).toBeDefined();
    expect((await api('DELETE', `/grants/${grant?.id ?? ''}`)).status).toBe(204);
    expect((await api('DELETE', `/grants/${grant?.id ?? ''}`)).body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_resource', message: 'The grant does not exist.' });
    expect((await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { prompt: 'none' })))).searchParams.get('error')).toBe('consent_required');
    expect((await redirected(await browser.get(authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK)))).pathname).toBe('/u/consent');
  });

  it('a first-party application: no consent on a verifiable redirect URI, consent on localhost or for an API that does not allow skipping', async () => {
    const browser = new CookieClient(server.url);
    const direct = await signInOnHostedPage(browser, server, fx, authorizeUrl(fx.web.clientId, fx.web.callback));
    expect(direct.searchParams.get('code')).toBeTruthy();
    // Without an API, a first-party application is never asked, even on localhost.
    expect((await redirected(await browser.get(authorizeUrl(fx.web.clientId, LOCAL_CALLBACK, { audience: '', scope: 'openid' }).replace('&audience=', '&x=')))).searchParams.get('code')).toBeTruthy();
    const local = await redirected(await browser.get(authorizeUrl(fx.web.clientId, LOCAL_CALLBACK)));
    expect(local.pathname).toBe('/u/consent');
    const localAnswer = await redirected(await answer(browser, local, 'accept'));
    expect(localAnswer.origin).toBe('http://localhost:4000');
    expect(localAnswer.searchParams.get('code')).toBeTruthy();

    expect((await api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, { skip_consent_for_verifiable_first_party_clients: false })).status).toBe(200);
    try {
      const asked = await redirected(await browser.get(authorizeUrl(fx.web.clientId, fx.web.callback, { scope: 'openid write:things' })));
      expect(asked.pathname).toBe('/u/consent');
    } finally {
      expect((await api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, { skip_consent_for_verifiable_first_party_clients: true })).status).toBe(200);
    }
  });

  it('the consent form counts once, only from this browser and its session, and only from our origin', async () => {
    await api('DELETE', `/grants?user_id=${encodeURIComponent(fx.user.userId)}`);
    const browser = new CookieClient(server.url);
    const consentAt = await signInOnHostedPage(browser, server, fx, authorizeUrl(partner.clientId, THIRD_PARTY_CALLBACK, { prompt: 'consent' }));
    const screen = await consentScreen(browser, consentAt);

    // Another browser (no transaction cookie), another site's form, a missing answer: nothing is granted.
    const stranger = new CookieClient(server.url);
    expect((await stranger.postForm(screen.action, { state: screen.state, action: 'accept' })).status).toBe(400);
    expect((await browser.postForm(screen.action, { state: screen.state, action: 'accept' }, { origin: 'https://evil.example' })).status).toBe(403);
    const unanswered = await browser.postForm(screen.action, { state: screen.state }, { origin: server.url });
    expect(unanswered.status).toBe(303);
    expect(await grantsOf(`user_id=${encodeURIComponent(fx.user.userId)}`)).toEqual([]);

    const cookies = new Map(browser.cookies);
    const accepted = await redirected(await browser.postForm(screen.action, { state: screen.state, action: 'accept' }, { origin: server.url }));
    expect(accepted.searchParams.get('code')).toBeTruthy();
    // The same post again, with the cookies it had: the transaction has ended.
    const replay = new CookieClient(server.url);
    for (const [name, value] of cookies) replay.cookies.set(name, value);
    const replayed = await replay.postForm(screen.action, { state: screen.state, action: 'accept' }, { origin: server.url });
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).not.toContain('code=');
  });

  it('lists and deletes grants with paging and filters; scopes are enforced', async () => {
    const all = await api('GET', '/grants?include_totals=true&per_page=1&page=0');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ start: 0, limit: 1, total: expect.any(Number) });
    expect((await api('GET', '/grants?per_page=abc')).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_query_string' });
    expect((await api('DELETE', '/grants')).body).toMatchObject({ statusCode: 400 });
    const token = await server.token('read:users');
    expect((await api('GET', '/grants', undefined, token)).body).toMatchObject({ statusCode: 403, errorCode: 'insufficient_scope' });
    expect((await api('DELETE', `/grants?user_id=${encodeURIComponent(fx.user.userId)}`)).status).toBe(204);
    expect(await grantsOf(`user_id=${encodeURIComponent(fx.user.userId)}`)).toEqual([]);
  });
});

describe('verifiable redirect URIs', () => {
  it('localhost (and its subdomains) proves nothing, except on Latchkey\u2019s own origin; other hosts do', () => {
    const own = 'http://localhost:3000';
    expect(verifiableRedirect('http://localhost:4000/callback', own)).toBe(false);
    expect(verifiableRedirect('http://app.localhost/callback', own)).toBe(false);
    expect(verifiableRedirect('http://localhost:3000/demo/', own)).toBe(true);
    expect(verifiableRedirect('https://app.example.com/callback', own)).toBe(true);
    expect(verifiableRedirect('not a url', own)).toBe(false);
  });
});
