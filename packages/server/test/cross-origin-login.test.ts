import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { databaseConsole } from './support/fault-injection.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const OTP = 'http://auth0.com/oauth/grant-type/passwordless/otp';

describe.each(DIALECTS)('cross-origin login: /co/authenticate, login_ticket and /co/verify over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  const credentials = (extra: Record<string, unknown> = {}) => ({
    client_id: fx.spa.clientId,
    credential_type: PASSWORD_REALM,
    username: fx.user.email,
    password: fx.user.password,
    realm: fx.connection,
    ...extra,
  });

  async function authenticate(body: Record<string, unknown>, browser = new CookieClient(server.url), origin = fx.spa.origin) {
    const response = await browser.postJson('/co/authenticate', body, { origin });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, string>, browser };
  }

  /** The library's authorize call after a successful /co/authenticate (implicit, fragment). */
  const authorizePath = (loginTicket: string, nonce = 'n-0S6_WzA2Mj') =>
    `/authorize?${new URLSearchParams({
      client_id: fx.spa.clientId,
      response_type: 'token id_token',
      redirect_uri: fx.spa.callback,
      scope: 'openid profile email',
      state: 'co-state',
      nonce,
      realm: fx.connection,
      login_ticket: loginTicket,
    }).toString()}`;

  const fragmentOf = (response: Response) => new URLSearchParams(new URL(response.headers.get('location') ?? 'x:').hash.slice(1));

  it('answers every error of the spec table with its code and status', async () => {
    const cases: [string, Record<string, unknown>, number, string, string?][] = [
      ['missing field', { ...credentials(), realm: undefined }, 400, 'invalid_request', 'Invalid request body. All and only of client_id, credential_type, username, password, realm are required.'],
      ['extra field', credentials({ scope: 'openid' }), 400, 'invalid_request'],
      ['not a string', credentials({ password: 42 }), 400, 'invalid_request'],
      ['cross-origin off', credentials({ client_id: fx.web.clientId }), 401, 'unauthorized_client', 'Cross origin login not allowed.'],
      ['unknown client', credentials({ client_id: 'nope' }), 401, 'unauthorized_client'],
      ['credential type', credentials({ credential_type: 'urn:example:other' }), 400, 'unsupported_credential_type', 'Unknown credential type parameter.'],
      ['unknown realm', credentials({ realm: 'nope' }), 400, 'invalid_request', 'Unknown realm'],
      ['wrong password', credentials({ password: 'wrong password' }), 403, 'access_denied', 'Wrong email or password.'],
      ['unknown user', credentials({ username: 'nobody@example.com' }), 403, 'access_denied', 'Wrong email or password.'],
    ];
    for (const [label, body, status, error, description] of cases) {
      // The web application's origin is allowed too, so the cross-origin flag itself is what refuses it.
      const answer = await authenticate(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, undefined, label === 'cross-origin off' ? 'https://app.example.com' : fx.spa.origin);
      expect(answer.status, `${label}: ${answer.text}`).toBe(status);
      expect(answer.json.error, label).toBe(error);
      if (description) expect(answer.json.error_description, label).toBe(description);
      expect(answer.headers.getSetCookie().join(), label).not.toContain('lk_co=');
    }
    const blocked = await api('POST', '/users', { connection: fx.connection, email: `blocked-${dialect}@example.com`, password: fx.user.password, blocked: true });
    expect(blocked.status).toBe(201);
    const refused = await authenticate(credentials({ username: `blocked-${dialect}@example.com` }));
    expect([refused.status, refused.json.error, refused.json.error_description]).toEqual([403, 'blocked_user', 'user is blocked']);
    const foreign = await authenticate(credentials(), undefined, 'https://evil.example.net');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(foreign.text).not.toContain('error');
  });

  it('words a bad body as the spec does for the credential type given, whatever makes it bad', async () => {
    const passwordFields = 'Invalid request body. All and only of client_id, credential_type, username, password, realm are required.';
    // The spec's own wording: the one-time-code fields, also when no known credential type is given.
    const otpFields = 'Invalid request body. All and only of client_id, credential_type, username, otp, realm are required.';
    const long = 'x'.repeat(2000);
    const { credential_type: _type, ...untyped } = credentials();
    const cases: [string, unknown, string][] = [
      ['password-realm without a field', { ...credentials(), password: undefined }, passwordFields],
      ['password-realm with a value too long', credentials({ password: long }), passwordFields],
      ['one-time code without its otp', { ...credentials({ credential_type: OTP }), password: undefined }, otpFields],
      ['one-time code with a password instead', credentials({ credential_type: OTP }), otpFields],
      ['one-time code with a value too long', { ...credentials({ credential_type: OTP, otp: long }), password: undefined }, otpFields],
      ['no credential type', untyped, otpFields],
      ['no credential type and a value too long', { ...untyped, username: long }, otpFields],
      ['a JSON array', [credentials()], otpFields],
      ['JSON null', null, otpFields],
    ];
    for (const [label, body, description] of cases) {
      const answer = await authenticate(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
      expect([answer.status, answer.json.error, answer.json.error_description], label).toEqual([400, 'invalid_request', description]);
    }
    for (const [label, raw] of [['not JSON', '{"client_id": '], ['an empty JSON body', '']] as const) {
      const response = await fetch(`${server.url}/co/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json', origin: fx.spa.origin }, body: raw });
      expect([response.status, await response.json()], label).toEqual([400, { error: 'invalid_request', error_description: otpFields }]);
    }
    // Names an object has by inheritance are unknown credential types like any other, not a server error.
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const answer = await authenticate(credentials({ credential_type: type }));
      expect([answer.status, answer.json.error, answer.json.error_description], type).toEqual([400, 'unsupported_credential_type', 'Unknown credential type parameter.']);
    }
  });

  it('a refusal the spec table has no row for is its generic 403 access_denied, not a 500', async () => {
    const connection = `otp-${dialect}`;
    expect((await api('POST', '/connections', { name: connection, strategy: 'email', enabled_clients: [fx.spa.clientId] })).status).toBe(201);
    const email = `first-login-${dialect}@example.com`;
    const started = await new CookieClient(server.url).postJson('/passwordless/start', { client_id: fx.spa.clientId, connection, email, send: 'code' });
    expect(started.status, await started.text()).toBe(200);
    const message = (await server.registry.outbox.recent(200)).find((entry) => entry.message.to === email);
    const otp = /\b(\d{6})\b/.exec(message?.channel === 'email' ? message.message.text : '')?.[1] ?? '';
    // An administrator deletes the connection just as the code is spent: creating the new user is then refused.
    const database = await databaseConsole(server);
    try {
      await database.deleteConnectionWhenSpent('otp', connection);
      const answer = await authenticate({ client_id: fx.spa.clientId, credential_type: OTP, username: email, otp, realm: connection });
      expect([answer.status, answer.json.error, answer.json.error_description], answer.text).toEqual([403, 'access_denied', 'The login could not be completed.']);
      expect(answer.headers.getSetCookie().join()).not.toContain('lk_co=');
    } finally {
      await database.clearChanges();
      await database.close();
    }
  });

  it('with third-party cookies: the ticket signs the user in at /authorize once, without a page', async () => {
    const answer = await authenticate(credentials());
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(['co_id', 'co_verifier', 'login_ticket']);
    expect(answer.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.getSetCookie().find((line) => line.startsWith('lk_co='))).toMatch(/HttpOnly/i);
    const browser = answer.browser;
    const signedIn = await browser.get(authorizePath(answer.json.login_ticket ?? ''));
    expect(signedIn.status).toBe(302);
    const fragment = fragmentOf(signedIn);
    expect(fragment.get('state')).toBe('co-state');
    expect(decodeJwt(fragment.get('id_token') ?? '')).toMatchObject({ sub: fx.user.userId, nonce: 'n-0S6_WzA2Mj', aud: fx.spa.clientId });
    expect(browser.cookies.has('lk_session')).toBe(true);
    expect(browser.cookies.has('lk_co')).toBe(false);
    // The session now answers silent authentication.
    const silentQuery = new URL(authorizePath('', 'again'), server.url).searchParams;
    silentQuery.delete('login_ticket');
    silentQuery.set('prompt', 'none');
    const silent = await browser.get(`/authorize?${silentQuery.toString()}`);
    expect(fragmentOf(silent).get('id_token')).toBeTruthy();
    // Spent: a second use is refused back at the application, with state.
    const replay = await browser.get(authorizePath(answer.json.login_ticket ?? ''));
    expect(fragmentOf(replay).get('error')).toBe('access_denied');
    expect(fragmentOf(replay).get('state')).toBe('co-state');
  });

  it('a ticket is bound to its browser and its application', async () => {
    const answer = await authenticate(credentials());
    // Another browser (no verifier cookie) and no verification page configured: refused.
    const elsewhere = await new CookieClient(server.url).get(authorizePath(answer.json.login_ticket ?? ''));
    expect(fragmentOf(elsewhere).get('error')).toBe('access_denied');
    expect(fragmentOf(elsewhere).get('error_description')).toContain('cross_origin_loc');
    // The ticket of one application is nothing to another.
    const otherClient = await answer.browser.get(authorizePath(answer.json.login_ticket ?? '').replace(fx.spa.clientId, fx.web.clientId));
    expect(otherClient.status).toBe(302);
    expect(new URL(otherClient.headers.get('location') ?? 'x:').hash).toContain('error=access_denied');
    // Still good in the browser that logged in: nothing above spent it.
    const signedIn = await answer.browser.get(authorizePath(answer.json.login_ticket ?? ''));
    expect(fragmentOf(signedIn).get('access_token')).toBeTruthy();
  });

  it('without third-party cookies: the verification page hands the verifier over through /co/verify', async () => {
    const page = 'https://app.example.com/verify-co';
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_loc: page })).status).toBe(200);
    try {
      const answer = await authenticate(credentials());
      // This browser dropped the third-party cookie.
      const browser = new CookieClient(server.url);
      const shown = await browser.get(authorizePath(answer.json.login_ticket ?? ''));
      expect(shown.status).toBe(200);
      const html = await shown.text();
      expect(html).toContain(`src="${page}#origin=${encodeURIComponent(new URL(server.url).origin)}"`);
      expect(html).toContain(JSON.stringify(answer.json.co_id));
      expect(shown.headers.get('content-security-policy')).toContain('frame-src https://app.example.com');
      expect(shown.headers.get('x-frame-options')).toBe('DENY');

      // The page gives up (no verifier handed over): the application hears access_denied, with its state.
      const gaveUp = await new CookieClient(server.url).get(`${authorizePath(answer.json.login_ticket ?? '')}&co_verification=failed`);
      expect(gaveUp.status).toBe(302);
      expect(fragmentOf(gaveUp).get('error')).toBe('access_denied');
      expect(fragmentOf(gaveUp).get('state')).toBe('co-state');

      const own = new URL(server.url).origin;
      const verify = (body: unknown, origin = own) => browser.postJson('/co/verify', body, { origin });
      expect((await verify({ login_ticket: answer.json.login_ticket, co_verifier: answer.json.co_verifier }, 'https://app.example.com')).status).toBe(403);
      expect((await verify({ login_ticket: answer.json.login_ticket, co_verifier: 'wrong' })).status).toBe(403);
      expect((await verify({ login_ticket: answer.json.login_ticket })).status).toBe(400);
      expect(browser.cookies.has('lk_co')).toBe(false);
      expect((await verify({ login_ticket: answer.json.login_ticket, co_verifier: answer.json.co_verifier })).status).toBe(204);
      expect(browser.cookies.has('lk_co')).toBe(true);
      const signedIn = await browser.get(authorizePath(answer.json.login_ticket ?? ''));
      expect(signedIn.status).toBe(302);
      expect(decodeJwt(fragmentOf(signedIn).get('id_token') ?? '').sub).toBe(fx.user.userId);
    } finally {
      await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_loc: null });
    }
  });
});

/**
 * Nothing read inside the sign-in's commit may go around it: on SQLite such a read waits for the commit's own
 * connection for ever. With the configuration cache off every settings read reaches the database, so a ticket
 * redeemed with an audience (no tenant read before the commit) hung here when the session's lifetime was read
 * inside it.
 */
describe.each(DIALECTS)('cross-origin login with the configuration cache off (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '0' } });
    fx = await provisionLogin(server);
    const api = managementApi(server, 'socket');
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  it('redeems a ticket for an API audience and starts the session', async () => {
    const browser = new CookieClient(server.url);
    const body = { client_id: fx.spa.clientId, credential_type: PASSWORD_REALM, username: fx.user.email, password: fx.user.password, realm: fx.connection };
    const ticket = (await (await browser.postJson('/co/authenticate', body, { origin: fx.spa.origin })).json()) as { login_ticket: string };
    const query = new URLSearchParams({
      client_id: fx.spa.clientId,
      response_type: 'token id_token',
      redirect_uri: fx.spa.callback,
      scope: 'openid profile email',
      audience: `${server.url}/api/v2/`,
      state: 'co-state',
      nonce: 'n-0S6_WzA2Mj',
      realm: fx.connection,
      login_ticket: ticket.login_ticket,
    });
    const answer = await Promise.race([
      browser.get(`/authorize?${query.toString()}`),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref()),
    ]);
    if (answer === 'hung') throw new Error('/authorize with a login ticket did not answer within 10 s');
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get('location') ?? 'x:').hash).toContain('access_token=');
  });
});
