import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../src/services/events/event.js';
import { LOG_EVENT_TYPES } from '../src/services/events/event.js';
import { SIGN_IN_EVENT } from '../src/oauth/sign-in-events.js';
import { SIGN_IN_PATHS } from '../src/oauth/sign-in-pipeline.js';
import { CookieClient, decodeEntities, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { signInAtOidcProvider, startOidcProvider, UPSTREAM_SECRET } from './support/oidc-provider.js';
import { freePort } from './support/ports.js';
import { sample } from './support/prometheus-text.js';
import { authnRequestOf, upstreamSamlIdp } from './support/saml-upstream-idp.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
const EMAIL_CONNECTION = 'email-log-events';
const OIDC_CONNECTION = 'oidc-log-events';
const SAML_CONNECTION = 'saml-log-events';
/** Every request of the flows says who it is, so that the events can be seen to carry it. */
const UA = 'log-events-test/1.0 (real socket)';
const AGENT = { 'user-agent': UA };

type Stored = LogEvent;

/**
 * The tenant log, driven over the real socket on both dialects: every way of signing in records its success event,
 * failures are recorded where they are decided (the credential check, the token endpoint), each event carries the
 * platform's fields, and no secret a flow carried (a password, a code, a token, a client secret, a ticket) is
 * stored anywhere in any event.
 */
describe.each(DIALECTS)('tenant log events of sign-ins and token exchanges, over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let upstream: { url: string; close(): Promise<void> };
  let saml: { respond(email: string, requestId?: string): Promise<string> };
  /** The secrets the flows below sent or received; none may be stored in the log. */
  const secrets = new Set<string>();
  const keep = (...values: unknown[]) => {
    for (const value of values) if (typeof value === 'string' && value !== '') secrets.add(value);
  };

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server);
    keep(fx.user.password, fx.web.clientSecret);
    const ok = async (call: Promise<{ status: number; body: unknown }>, status: number) => expect((await call).status).toBe(status);
    await ok(api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: ['authorization_code', 'refresh_token', 'password', PASSWORD_REALM, OTP_GRANT, 'client_credentials'] }), 200);
    await ok(api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true }), 200);
    await ok(api('POST', '/connections', { name: EMAIL_CONNECTION, strategy: 'email', enabled_clients: [fx.web.clientId] }), 201);
    await ok(api('POST', '/client-grants', { client_id: fx.web.clientId, audience: fx.api.identifier, scope: ['read:things'] }), 201);
    await ok(api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 3 }), 200);
    upstream = await startOidcProvider(await freePort(), server.url);
    const oidcOptions = { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey', client_secret: UPSTREAM_SECRET };
    await ok(api('POST', '/connections', { name: OIDC_CONNECTION, strategy: 'oidc', enabled_clients: [fx.web.clientId], options: oidcOptions }), 201);
    const idp = upstreamSamlIdp();
    const authorizeQuery = `response_type=code&scope=openid%20email&state=st&redirect_uri=${encodeURIComponent(fx.web.callback)}`;
    const idpInitiated = { enabled: true, client_id: fx.web.clientId, client_protocol: 'oauth2', client_authorizequery: authorizeQuery };
    await ok(api('POST', '/connections', { name: SAML_CONNECTION, strategy: 'samlp', enabled_clients: [fx.web.clientId], options: idp.connectionOptions({ idpinitiated: idpInitiated }) }), 201);
    saml = await idp.trustedBy(server, SAML_CONNECTION);
    keep(UPSTREAM_SECRET);
  });
  afterAll(async () => {
    await upstream?.close();
    await server?.close();
  });

  /** Runs `flow` and answers the events stored because of it, in log order. */
  async function eventsOf(flow: () => Promise<void>): Promise<Stored[]> {
    const { events, storage } = { events: server.registry.events, storage: server.registry.storage };
    await events.flush();
    const last = (await storage.logEvents.list(server.registry.tenantId, { limit: 1 })).events[0]?.log_id;
    await flow();
    await events.flush();
    return storage.logEvents.after<Stored>(server.registry.tenantId, last, 1000);
  }
  const types = (events: Stored[]) => events.map((event) => event.type);

  async function token(form: Record<string, string>) {
    keep(form.password, form.client_secret, form.code, form.refresh_token, form.otp);
    const answer = await postJson(server, '/oauth/token', form, AGENT);
    keep(answer.json.access_token, answer.json.refresh_token, answer.json.id_token);
    return answer;
  }
  const realm = (extra: Record<string, string> = {}) => ({
    grant_type: PASSWORD_REALM,
    client_id: fx.web.clientId,
    client_secret: fx.web.clientSecret,
    username: fx.user.email,
    password: fx.user.password,
    realm: fx.connection,
    ...extra,
  });

  /** `/authorize` for the web application, then its hosted page: the page's path and form fields. */
  async function hostedPage(browser: CookieClient, extra: Record<string, string> = {}) {
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'st', ...extra });
    const start = await browser.get(`/authorize?${query}`, AGENT);
    expect(start.status).toBe(302);
    const page = new URL(start.headers.get('location') ?? '', server.url);
    const html = await (await browser.get(page.pathname + page.search, AGENT)).text();
    return { path: page.pathname + page.search, fields: { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '' } };
  }
  /** Logs in on the hosted page; answers the code the application got. */
  async function pageLogin(username: string, password: string): Promise<{ status: number; code: string | null }> {
    keep(password);
    const browser = new CookieClient(server.url);
    const { path, fields } = await hostedPage(browser);
    const answer = await browser.postForm(path, { ...fields, username, password }, AGENT);
    const code = new URL(answer.headers.get('location') ?? 'about:blank').searchParams.get('code');
    keep(code, browser.cookies.get('lk_session'));
    return { status: answer.status, code };
  }
  /** Starts a passwordless login by e-mail and answers the message it sent. */
  async function passwordlessMessage(email: string, send: 'code' | 'link', authParams?: Record<string, string>): Promise<string> {
    const started = await postJson(server, '/passwordless/start', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, connection: EMAIL_CONNECTION, email, send, ...(authParams ? { authParams } : {}) }, AGENT);
    expect(started.status, started.text).toBe(200);
    const entry = (await server.registry.outbox.recent(50)).find((candidate) => candidate.message.to === email);
    if (entry?.channel !== 'email') throw new Error(`no e-mail to ${email}`);
    return entry.message.text;
  }

  it('knows a success code for every way of signing in, from the catalogue', () => {
    for (const path of SIGN_IN_PATHS) expect(LOG_EVENT_TYPES[SIGN_IN_EVENT[path]].category, path).toMatch(/^auth\.(login|token_exchange)\.success$/);
  });

  it('a hosted-page login records `s` with the platform fields, and its code exchange `seacft`', async () => {
    let code: string | null = null;
    const events = await eventsOf(async () => {
      const login = await pageLogin(fx.user.email, fx.user.password);
      expect(login.status).toBe(302);
      code = login.code;
      const exchanged = await token({ grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code: code ?? '', redirect_uri: fx.web.callback });
      expect(exchanged.status).toBe(200);
    });
    expect(types(events)).toEqual(['s', 'seacft']);
    const [login, exchange] = events;
    expect(login).toMatchObject({
      type: 's',
      description: 'Successful login',
      client_id: fx.web.clientId,
      client_name: expect.stringMatching(/^Web /),
      connection: fx.connection,
      connection_id: expect.stringMatching(/^con_/),
      strategy: 'auth0',
      strategy_type: 'database',
      user_id: fx.user.userId,
      user_name: fx.user.email,
      ip: '127.0.0.1',
      user_agent: UA,
      hostname: 'localhost',
      scope: 'openid email',
      details: { path: 'login-page', amr: ['pwd'] },
    });
    expect(login?.log_id).toMatch(/^90020\d{20}$/);
    expect(Date.now() - Date.parse(login?.date ?? '')).toBeLessThan(60_000);
    expect(exchange).toMatchObject({ type: 'seacft', client_id: fx.web.clientId, user_id: fx.user.userId, scope: 'openid email', ip: '127.0.0.1', user_agent: UA });
    // The code again: refused, and recorded as the failed exchange it is.
    const replayed = await eventsOf(async () => {
      const again = await token({ grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code: code ?? '', redirect_uri: fx.web.callback });
      expect(again.status).toBe(400);
    });
    expect(replayed).toMatchObject([{ type: 'feacft', client_id: fx.web.clientId, description: 'Invalid authorization code', details: { error: 'invalid_grant', grant_type: 'authorization_code' } }]);
  });

  it('the token endpoint records its grants: `sepft`, `sertft`, `sepotpft`, `seccft`', async () => {
    let refresh = '';
    const events = await eventsOf(async () => {
      const first = await token(realm({ scope: 'openid offline_access', audience: fx.api.identifier }));
      expect(first.status).toBe(200);
      refresh = String(first.json.refresh_token);
      expect((await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refresh })).status).toBe(200);
      expect((await token({ grant_type: 'password', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: fx.user.email, password: fx.user.password })).status).toBe(200);
      const otp = /\b(\d{6})\b/.exec(await passwordlessMessage('otp-log@example.com', 'code'))?.[1] ?? '';
      expect((await token({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: 'otp-log@example.com', otp, realm: EMAIL_CONNECTION })).status).toBe(200);
      expect((await token({ grant_type: 'client_credentials', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, audience: fx.api.identifier })).status).toBe(200);
    });
    expect(types(events)).toEqual(['sepft', 'sertft', 'sepft', 'cs', 'sepotpft', 'seccft']);
    const [realmLogin, refreshed, , codeSent, otpLogin, machine] = events;
    expect(realmLogin).toMatchObject({ user_id: fx.user.userId, user_name: fx.user.email, connection: fx.connection, audience: fx.api.identifier, scope: 'openid offline_access', user_agent: UA });
    expect(refreshed).toMatchObject({ user_id: fx.user.userId, user_name: fx.user.email, client_id: fx.web.clientId, audience: fx.api.identifier });
    expect(codeSent).toMatchObject({ type: 'cs', connection: EMAIL_CONNECTION, user_name: 'otp-log@example.com', strategy: 'email', strategy_type: 'passwordless' });
    expect(otpLogin).toMatchObject({ type: 'sepotpft', connection: EMAIL_CONNECTION, user_id: expect.stringMatching(/^email\|/), user_name: 'otp-log@example.com' });
    expect(machine).toMatchObject({ type: 'seccft', client_id: fx.web.clientId, audience: fx.api.identifier, scope: 'read:things' });
    expect(machine?.user_id).toBeUndefined();
  });

  it('browser sign-ins without a password page record `s` per path: signup (`ss` too), magic link (`cls` before), cross-origin ticket', async () => {
    const events = await eventsOf(async () => {
      const browser = new CookieClient(server.url);
      const { path, fields } = await hostedPage(browser, { screen_hint: 'signup' });
      keep('A-strong-passw0rd!');
      expect((await browser.postForm(path, { ...fields, email: `signup-${dialect}@example.com`, password: 'A-strong-passw0rd!' }, AGENT)).status).toBe(302);

      const message = await passwordlessMessage('magic-log@example.com', 'link', { response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', state: 'st' });
      const link = decodeEntities(/(https?:\/\/\S+\/passwordless\/verify_redirect\?\S+)/.exec(message)?.[1] ?? '');
      keep(new URL(link).searchParams.get('verification_code'));
      expect((await new CookieClient(server.url).get(link, AGENT)).status).toBe(302);

      const spa = new CookieClient(server.url);
      const credentials = { client_id: fx.spa.clientId, credential_type: PASSWORD_REALM, username: fx.user.email, password: fx.user.password, realm: fx.connection };
      const authenticated = await spa.postJson('/co/authenticate', credentials, { origin: fx.spa.origin, ...AGENT });
      expect(authenticated.status).toBe(200);
      const ticket = (await authenticated.json()) as { login_ticket: string; co_verifier: string };
      keep(ticket.login_ticket, ticket.co_verifier, spa.cookies.get('lk_co_verifier'));
      const query = { client_id: fx.spa.clientId, response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid', state: 'st', nonce: 'n', realm: fx.connection, login_ticket: ticket.login_ticket };
      const landed = await spa.get(`/authorize?${new URLSearchParams(query)}`, AGENT);
      expect(landed.status).toBe(302);
      const fragment = new URLSearchParams(new URL(landed.headers.get('location') ?? '').hash.slice(1));
      keep(fragment.get('access_token'), fragment.get('id_token'));
    });
    // Cross-origin login logs the ticket issued (`scoa`), then the login at its redemption (`s`).
    expect(types(events)).toEqual(['ss', 's', 'cls', 's', 'scoa', 's']);
    const [signup, signupLogin, linkSent, magic, ticketIssued, crossOrigin] = events;
    expect(signup).toMatchObject({ user_name: `signup-${dialect}@example.com`, connection: fx.connection, user_agent: UA, user_id: expect.stringMatching(/^auth0\|/) });
    expect(signupLogin).toMatchObject({ user_id: signup?.user_id, details: { path: 'signup-page', amr: ['pwd'] } });
    expect(linkSent).toMatchObject({ connection: EMAIL_CONNECTION, user_name: 'magic-log@example.com' });
    expect(magic).toMatchObject({ connection: EMAIL_CONNECTION, user_name: 'magic-log@example.com', details: { path: 'passwordless-link', amr: ['otp'] } });
    expect(ticketIssued).toMatchObject({
      client_id: fx.spa.clientId,
      user_id: fx.user.userId,
      user_name: fx.user.email,
      connection: fx.connection,
      ip: '127.0.0.1',
      user_agent: UA,
      details: { credential_type: PASSWORD_REALM, amr: ['pwd'] },
    });
    expect(crossOrigin).toMatchObject({ client_id: fx.spa.clientId, user_id: fx.user.userId, details: { path: 'cross-origin-ticket' } });
  });

  it('federated sign-ins record `s` with the connection and its strategy: OpenID Connect, SAML, IdP-initiated SAML', async () => {
    const authorizeAt = (connection: string) =>
      `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'st', connection })}`;
    const events = await eventsOf(async () => {
      const oidc = new CookieClient(server.url);
      const start = await oidc.get(authorizeAt(OIDC_CONNECTION), AGENT);
      const callback = await signInAtOidcProvider(start.headers.get('location') ?? '', 'alice');
      const landed = await oidc.get(callback, AGENT);
      expect(landed.status).toBe(302);
      keep(new URL(callback).searchParams.get('code'), new URL(landed.headers.get('location') ?? '').searchParams.get('code'));

      const sp = new CookieClient(server.url);
      const { requestId, relayState } = authnRequestOf((await sp.get(authorizeAt(SAML_CONNECTION), AGENT)).headers.get('location') ?? '');
      const response = await saml.respond('carol@corp.example', requestId);
      keep(response);
      expect((await sp.postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: response, RelayState: relayState }, AGENT)).status).toBe(302);

      const unsolicited = await saml.respond('dave@corp.example');
      keep(unsolicited);
      expect((await new CookieClient(server.url).postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: unsolicited, _resubmitted: '1' }, AGENT)).status).toBe(302);
    });
    expect(types(events)).toEqual(['s', 's', 's']);
    expect(events).toMatchObject([
      { connection: OIDC_CONNECTION, strategy: 'oidc', strategy_type: 'enterprise', user_id: expect.stringMatching(/^oidc\|/), user_agent: UA, details: { path: 'upstream-oauth' } },
      { connection: SAML_CONNECTION, strategy: 'samlp', strategy_type: 'enterprise', user_name: 'carol@corp.example', details: { path: 'upstream-saml' } },
      { connection: SAML_CONNECTION, strategy: 'samlp', user_name: 'dave@corp.example', client_id: fx.web.clientId, details: { path: 'idp-initiated-saml' } },
    ]);
  });

  it('a refused federated sign-in is a failed login `f` with its connection and application, and a refused sign-in in the metrics', async () => {
    const authorizeAt = (connection: string) =>
      `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'st', connection })}`;
    const refusedToApp = (landed: Response) => {
      expect(landed.status).toBe(302);
      expect(new URL(landed.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe('access_denied');
    };
    /** Signs in at the OpenID Connect provider as `login` and lands back here: Latchkey's answer. */
    const oidcLogin = async (login: string) => {
      const browser = new CookieClient(server.url);
      const callback = await signInAtOidcProvider((await browser.get(authorizeAt(OIDC_CONNECTION), AGENT)).headers.get('location') ?? '', login);
      keep(new URL(callback).searchParams.get('code'));
      return browser.get(callback, AGENT);
    };
    // A federated user who signed in once, then was blocked.
    const [first] = await eventsOf(async () => {
      const landed = await oidcLogin(`blocked-${dialect}`);
      expect(landed.status).toBe(302);
      keep(new URL(landed.headers.get('location') ?? '').searchParams.get('code'));
    });
    expect((await api('PATCH', `/users/${encodeURIComponent(String(first?.user_id))}`, { blocked: true })).status).toBe(200);
    const counted = async () => (await server.registry.metrics.scrape()).text;
    const signIns = (text: string, result: string, connection: string) => sample(text, 'latchkey_sign_ins_total', { result, connection }) ?? 0;
    const before = await counted();

    const events = await eventsOf(async () => {
      // The provider answers an error.
      const oidc = new CookieClient(server.url);
      const state = new URL((await oidc.get(authorizeAt(OIDC_CONNECTION), AGENT)).headers.get('location') ?? '').searchParams.get('state') ?? '';
      refusedToApp(await oidc.get(`/login/callback?${new URLSearchParams({ state, error: 'access_denied', error_description: 'The user said no' })}`, AGENT));
      // The provider vouches for a user Latchkey has blocked.
      refusedToApp(await oidcLogin(`blocked-${dialect}`));
      // A signed SAML response that answers another request than this login's.
      const sp = new CookieClient(server.url);
      const { relayState } = authnRequestOf((await sp.get(authorizeAt(SAML_CONNECTION), AGENT)).headers.get('location') ?? '');
      const misdirected = await saml.respond('mallory@corp.example', '_not-this-login');
      keep(misdirected);
      refusedToApp(await sp.postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: misdirected, RelayState: relayState }, AGENT));
      // Identity-provider-initiated: an unsolicited response that claims to answer a request, and one to no connection.
      const claiming = await saml.respond('mallory@corp.example', '_someone-elses-request');
      keep(claiming);
      expect((await new CookieClient(server.url).postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: claiming, _resubmitted: '1' }, AGENT)).status).toBe(400);
      expect((await new CookieClient(server.url).postForm('/login/callback?connection=no-such-saml', { SAMLResponse: claiming, _resubmitted: '1' }, AGENT)).status).toBe(400);
    });
    expect(types(events)).toEqual(['f', 'f', 'f', 'f', 'f']);
    const origin = { client_id: fx.web.clientId, client_name: expect.stringMatching(/^Web /), ip: '127.0.0.1', user_agent: UA, hostname: 'localhost' };
    const oidc = { ...origin, connection: OIDC_CONNECTION, connection_id: expect.stringMatching(/^con_/), strategy: 'oidc', strategy_type: 'enterprise' };
    const samlp = { ...origin, connection: SAML_CONNECTION, strategy: 'samlp', strategy_type: 'enterprise' };
    expect(events).toMatchObject([
      { ...oidc, description: 'The identity provider answered access_denied: The user said no.', details: { error: 'access_denied', path: 'upstream-oauth' } },
      { ...oidc, description: 'user is blocked', details: { error: 'access_denied', path: 'upstream-oauth', failure: 'blocked' } },
      { ...samlp, description: expect.stringContaining('InResponseTo'), details: { error: 'access_denied', path: 'upstream-saml' } },
      { ...samlp, description: expect.stringContaining('InResponseTo'), details: { error: 'access_denied', path: 'idp-initiated-saml' } },
      { ip: '127.0.0.1', user_agent: UA, description: "There is no SAML connection named 'no-such-saml'.", details: { error: 'invalid_request', path: 'idp-initiated-saml' } },
    ]);
    // A connection the request names that does not exist is not recorded as one (nor as a metric label).
    expect(events[4]?.connection).toBeUndefined();
    expect(events[4]?.client_id).toBeUndefined();
    for (const event of events) expect(LOG_EVENT_TYPES[event.type].category).toBe('auth.login.fail');

    const after = await counted();
    expect(signIns(after, 'federated_refused', OIDC_CONNECTION) - signIns(before, 'federated_refused', OIDC_CONNECTION)).toBe(1);
    expect(signIns(after, 'blocked', OIDC_CONNECTION) - signIns(before, 'blocked', OIDC_CONNECTION)).toBe(1);
    expect(signIns(after, 'federated_refused', SAML_CONNECTION) - signIns(before, 'federated_refused', SAML_CONNECTION)).toBe(2);
    expect(signIns(after, 'federated_refused', '(unknown)') - signIns(before, 'federated_refused', '(unknown)')).toBe(1);
    expect(after).not.toContain('no-such-saml');
  });

  it('a refused login is recorded where it is decided: `fu`, `fp`, `f`, then `limit_wc`; once per refusal', async () => {
    const user = await api('POST', '/users', { connection: fx.connection, email: `guessed-${dialect}@example.com`, password: 'Right-passw0rd!' });
    expect(user.status).toBe(201);
    const events = await eventsOf(async () => {
      expect((await pageLogin('nobody@example.com', 'whatever-1')).status).toBe(400);
      // Through the grant: the credential check's event, and no failed exchange besides.
      expect((await token(realm({ username: `guessed-${dialect}@example.com`, password: 'wrong-guess-1' }))).status).toBe(403);
      expect((await pageLogin(`guessed-${dialect}@example.com`, 'wrong-guess-2')).status).toBe(400);
      expect((await pageLogin(`guessed-${dialect}@example.com`, 'wrong-guess-3')).status).toBe(400);
      // The third failure blocked the account from this address.
      expect((await token(realm({ username: `guessed-${dialect}@example.com`, password: 'Right-passw0rd!' }))).status).toBe(429);
    });
    expect(types(events)).toEqual(['fu', 'fp', 'fp', 'fp', 'limit_wc']);
    expect(events[0]).toMatchObject({ user_name: 'nobody@example.com', connection: fx.connection, client_id: fx.web.clientId, description: 'Wrong email or password.', user_agent: UA });
    expect(events[0]?.user_id).toBeUndefined();
    expect(events[1]).toMatchObject({ user_id: user.body.user_id, user_name: `guessed-${dialect}@example.com` });
    expect(events[4]).toMatchObject({ type: 'limit_wc', user_name: `guessed-${dialect}@example.com` });

    const blocked = await api('POST', '/users', { connection: fx.connection, email: `blocked-${dialect}@example.com`, password: 'Right-passw0rd!', blocked: true });
    const refusals = await eventsOf(async () => {
      expect((await token(realm({ username: `blocked-${dialect}@example.com`, password: 'Right-passw0rd!' }))).status).toBe(401);
      // A refusal of the grant itself is its failed exchange.
      expect((await token(realm({ realm: 'no-such-connection' }))).status).toBe(400);
    });
    expect(refusals).toMatchObject([
      { type: 'f', user_id: blocked.body.user_id, description: 'user is blocked' },
      { type: 'fepft', client_id: fx.web.clientId, details: { error: 'invalid_request' } },
    ]);
  });

  it('failed exchanges: `feccft` for a wrong client secret, `fertft` for an unknown refresh token, `ferrt` for a reused one, `fepotpft` for a wrong code', async () => {
    const first = await token(realm({ scope: 'openid offline_access' }));
    const spent = String(first.json.refresh_token);
    const rotated = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: spent });
    expect(rotated.status).toBe(200);
    const events = await eventsOf(async () => {
      keep('not-the-secret-0123456789');
      expect((await token({ grant_type: 'client_credentials', client_id: fx.web.clientId, client_secret: 'not-the-secret-0123456789', audience: fx.api.identifier })).status).toBe(401);
      expect((await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: 'made.up' })).status).toBe(400);
      expect((await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: spent })).status).toBe(400);
      await passwordlessMessage('wrong-code@example.com', 'code');
      expect((await token({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: 'wrong-code@example.com', otp: '000000', realm: EMAIL_CONNECTION })).status).toBe(403);
    });
    expect(types(events)).toEqual(['feccft', 'fertft', 'ferrt', 'cs', 'fepotpft']);
    expect(events[0]).toMatchObject({ client_id: fx.web.clientId, details: { error: 'invalid_client', grant_type: 'client_credentials' } });
    expect(events[2]).toMatchObject({ client_id: fx.web.clientId, user_id: fx.user.userId, description: 'Unknown or invalid refresh token.' });
    // The reuse revoked the grant: its newest token is refused too.
    expect((await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: String(rotated.json.refresh_token) })).status).toBe(400);
  });

  it('a breached password is `pwd_leak`, a throttled address `limit_mu`', async () => {
    const leaked = await api('POST', '/users', { connection: fx.connection, email: `leaked-${dialect}@example.com`, password: 'P@ssw0rd' });
    keep('P@ssw0rd');
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { enabled: true })).status).toBe(200);
    const breached = await eventsOf(async () => {
      expect((await token(realm({ username: `leaked-${dialect}@example.com`, password: 'P@ssw0rd' }))).json.error).toBe('password_leaked');
    });
    expect((await api('PATCH', '/attack-protection/breached-password-detection', { enabled: false })).status).toBe(200);
    expect(breached).toMatchObject([{ type: 'pwd_leak', user_id: leaked.body.user_id, user_name: `leaked-${dialect}@example.com`, ip: '127.0.0.1' }]);
    // The failed logins above came from this address: a limit of two throttles it at once.
    expect((await api('PATCH', '/attack-protection/suspicious-ip-throttling', { stage: { 'pre-login': { max_attempts: 2, rate: 3_600_000 } } })).status).toBe(200);
    try {
      const throttled = await eventsOf(async () => {
        expect((await token(realm())).status).toBe(429);
      });
      expect(throttled).toMatchObject([{ type: 'limit_mu', user_name: fx.user.email, ip: '127.0.0.1', connection: fx.connection }]);
    } finally {
      expect((await api('PATCH', '/attack-protection/suspicious-ip-throttling', { allowlist: ['127.0.0.1'] })).status).toBe(200);
    }
  });

  it('cross-origin login: `scoa` for a ticket, `fcoa` for each refusal, with address and User-Agent; a wrong password is readable in /api/v2/logs', async () => {
    const email = `co-${dialect}@example.com`;
    const user = await api('POST', '/users', { connection: fx.connection, email, password: 'Right-passw0rd!' });
    expect(user.status).toBe(201);
    const otpConnection = `email-co-${dialect}`;
    expect((await api('POST', '/connections', { name: otpConnection, strategy: 'email', enabled_clients: [fx.spa.clientId] })).status).toBe(201);
    const authenticate = async (extra: Record<string, string>, status: number, credentialType = PASSWORD_REALM) => {
      const secret: Record<string, string> = credentialType === PASSWORD_REALM ? { password: 'Right-passw0rd!' } : {};
      const body: Record<string, string> = { client_id: fx.spa.clientId, credential_type: credentialType, username: email, ...secret, realm: fx.connection, ...extra };
      keep(body.password, body.otp);
      const answer = await new CookieClient(server.url).postJson('/co/authenticate', body, { origin: fx.spa.origin, ...AGENT });
      const json = (await answer.json()) as Record<string, string>;
      keep(json.login_ticket, json.co_verifier);
      expect(answer.status, JSON.stringify(json)).toBe(status);
    };
    const events = await eventsOf(async () => {
      await authenticate({ password: 'Wrong-passw0rd-co' }, 403);
      await authenticate({ username: `nobody-co-${dialect}@example.com`, password: 'Wrong-passw0rd-co2' }, 403);
      await authenticate({ realm: 'no-such-realm', password: 'Wrong-passw0rd-co3' }, 400);
      // A password past the length bound is refused before the protocol core sees it: logged all the same.
      await authenticate({ password: `Too-long-${'x'.repeat(1100)}` }, 400);
      await authenticate({ otp: '482913', realm: otpConnection }, 403, OTP_GRANT);
      await authenticate({}, 200);
    });
    expect(types(events)).toEqual(['fcoa', 'fcoa', 'fcoa', 'fcoa', 'fcoa', 'scoa']);
    const [wrongPassword, unknownUser, unknownRealm, tooLong, wrongCode, issued] = events;
    const from = { client_id: fx.spa.clientId, client_name: expect.any(String), ip: '127.0.0.1', user_agent: UA, hostname: 'localhost' };
    expect(wrongPassword).toMatchObject({
      ...from,
      description: 'Wrong email or password.',
      user_id: user.body.user_id,
      user_name: email,
      connection: fx.connection,
      strategy: 'auth0',
      details: { failure: 'fp' },
    });
    expect(unknownUser).toMatchObject({ ...from, description: 'Wrong email or password.', user_name: `nobody-co-${dialect}@example.com`, details: { failure: 'fu' } });
    expect(unknownUser?.user_id).toBeUndefined();
    expect(unknownRealm).toMatchObject({ ...from, description: 'Unknown realm', user_name: email, details: { error: 'invalid_request', credential_type: PASSWORD_REALM } });
    expect(unknownRealm?.connection).toBeUndefined();
    expect(tooLong).toMatchObject({ ...from, description: expect.stringMatching(/^Invalid request body/), details: { error: 'invalid_request' } });
    expect(wrongCode).toMatchObject({ ...from, description: 'Wrong email or verification code.', connection: otpConnection, user_name: email, details: { error: 'access_denied', credential_type: OTP_GRANT } });
    expect(issued).toMatchObject({ ...from, user_id: user.body.user_id, user_name: email, connection: fx.connection, details: { credential_type: PASSWORD_REALM, amr: ['pwd'] } });
    expect(LOG_EVENT_TYPES.scoa.category).toBe('auth.login.success');
    expect(LOG_EVENT_TYPES.fcoa.category).toBe('auth.login.fail');

    // The support desk's view: the failed attempt through the Management API, over the socket.
    const overSocket = managementApi(server, 'socket');
    const search = await overSocket('GET', `/logs?q=${encodeURIComponent(`type:fcoa AND client_id:${fx.spa.clientId} AND user_id:"${String(user.body.user_id)}"`)}`);
    expect(search.status).toBe(200);
    expect(search.body).toEqual([wrongPassword]);
    expect(await overSocket('GET', `/logs/${String(wrongPassword?.log_id)}`)).toEqual({ status: 200, body: wrongPassword });
  });

  it('silent authentication: `ssa` when the SSO session answers prompt=none, `fsa` for login_required and consent_required', async () => {
    const thirdParty = await api('POST', '/clients', { name: `Third party ${dialect}`, app_type: 'regular_web', is_first_party: false, callbacks: ['https://third.example.com/cb'] });
    expect(thirdParty.status).toBe(201);
    keep(thirdParty.body.client_secret);
    // Enabled on the user's connection, so that the SSO session could answer it but for the consent it lacks.
    const [connection] = (await api('GET', `/connections?name=${fx.connection}`)).body as unknown as { id: string; enabled_clients: string[] }[];
    expect((await api('PATCH', `/connections/${connection?.id ?? ''}`, { enabled_clients: [...(connection?.enabled_clients ?? []), String(thirdParty.body.client_id)] })).status).toBe(200);
    const browser = new CookieClient(server.url);
    const { path, fields } = await hostedPage(browser);
    expect((await browser.postForm(path, { ...fields, username: fx.user.email, password: fx.user.password }, AGENT)).status).toBe(302);
    keep(browser.cookies.get('lk_session'));
    const silently = (client: CookieClient, clientId: string, redirectUri: string) =>
      client.get(`/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'openid email', state: 'st', prompt: 'none' })}`, AGENT);
    const answered = (response: Response) => new URL(response.headers.get('location') ?? 'about:blank').searchParams;
    const events = await eventsOf(async () => {
      const served = answered(await silently(browser, fx.web.clientId, fx.web.callback));
      expect(served.get('code')).not.toBeNull();
      keep(served.get('code'));
      expect(answered(await silently(new CookieClient(server.url), fx.web.clientId, fx.web.callback)).get('error')).toBe('login_required');
      expect(answered(await silently(browser, String(thirdParty.body.client_id), 'https://third.example.com/cb')).get('error')).toBe('consent_required');
    });
    expect(types(events)).toEqual(['ssa', 'fsa', 'fsa']);
    const [served, loginRequired, consentRequired] = events;
    expect(served).toMatchObject({
      description: 'Successful silent authentication',
      client_id: fx.web.clientId,
      client_name: expect.stringMatching(/^Web /),
      user_id: fx.user.userId,
      user_name: fx.user.email,
      connection: fx.connection,
      strategy: 'auth0',
      ip: '127.0.0.1',
      user_agent: UA,
      scope: 'openid email',
    });
    expect(loginRequired).toMatchObject({ description: 'Login required', client_id: fx.web.clientId, ip: '127.0.0.1', user_agent: UA, details: { error: 'login_required' } });
    expect(loginRequired?.user_id).toBeUndefined();
    expect(consentRequired).toMatchObject({ client_id: thirdParty.body.client_id, user_id: fx.user.userId, details: { error: 'consent_required' } });
    expect(LOG_EVENT_TYPES.ssa.category).toBe('auth.silent_auth.success');
    expect(LOG_EVENT_TYPES.fsa.category).toBe('auth.silent_auth.fail');
  });

  it('a magic link with a wrong code is a failed login `f`, named by its address, never its code', async () => {
    const address = `magic-wrong-${dialect}@example.com`;
    const message = await passwordlessMessage(address, 'link', { response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', state: 'st' });
    const link = new URL(decodeEntities(/(https?:\/\/\S+\/passwordless\/verify_redirect\?\S+)/.exec(message)?.[1] ?? ''));
    const code = link.searchParams.get('verification_code') ?? '';
    const wrong = code === '135791' ? '246802' : '135791';
    keep(code, wrong);
    link.searchParams.set('verification_code', wrong);
    const events = await eventsOf(async () => {
      const refused = await new CookieClient(server.url).get(link.toString(), AGENT);
      expect(new URL(refused.headers.get('location') ?? 'about:blank').searchParams.get('error')).toBe('access_denied');
    });
    expect(events).toMatchObject([
      {
        type: 'f',
        description: 'Wrong email or verification code.',
        client_id: fx.web.clientId,
        connection: EMAIL_CONNECTION,
        strategy: 'email',
        user_name: address,
        ip: '127.0.0.1',
        user_agent: UA,
        details: { error: 'invalid_grant', failure: 'wrong_code', path: 'passwordless-link' },
      },
    ]);
  });

  it('stores no password, code, token, client secret or ticket of these flows in any event', async () => {
    await server.registry.events.flush();
    const stored = (await server.registry.storage.logEvents.list<Stored>(server.registry.tenantId, { limit: 10_000, sort: 'asc' })).events;
    expect(stored.length).toBeGreaterThan(20);
    // Ids and dates are digits a six-digit code could happen to match; they hold nothing a flow sent.
    const text = JSON.stringify(stored.map(({ log_id: _id, date: _date, ...event }) => event));
    const kinds = [...secrets];
    expect(kinds.length).toBeGreaterThan(15);
    for (const secret of kinds) {
      expect(text, `a secret of ${secret.length} characters is in the log`).not.toContain(secret);
      // Refresh tokens are `<chain>.<secret>`: the secret half alone must not be there either.
      const [, half] = secret.split('.');
      if (half && half.length >= 20 && secret.split('.').length === 2) expect(text).not.toContain(half);
    }
  });
});
