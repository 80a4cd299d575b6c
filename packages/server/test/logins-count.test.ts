import * as samlify from 'samlify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, inputValue } from './support/browser-client.js';
import { selfSignedCertificate } from './support/certificates.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
const IDP_ENTITY = 'https://idp.logins.example/metadata';
const IDP_SSO = 'https://idp.logins.example/sso';
const NEW_PASSWORD = 'A-strong-passw0rd';

/**
 * Every successful login counts on the user who signs in (`logins_count`, `last_login`, `last_ip`), whatever the
 * way in: the hosted signup's own login, the hosted login page, a cross-origin ticket, the password-realm grant,
 * a one-time code, and a federated (SAML) login, also when that identity is linked into another user.
 */
describe.each(DIALECTS)('logins_count over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  const emailConnection = `otp-${dialect}`;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
    const grants = ['authorization_code', 'implicit', 'refresh_token', PASSWORD_REALM, OTP_GRANT];
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: grants })).status).toBe(200);
    expect((await api('POST', '/connections', { name: emailConnection, strategy: 'email', enabled_clients: [fx.web.clientId] })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  const userNamed = async (email: string) => {
    const found = (await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`)).body.find((user) => String(user.email) === email);
    if (!found) throw new Error(`no user ${email}`);
    return found;
  };
  const logins = async (userId: string) => (await api('GET', `/users/${encodeURIComponent(userId)}`)).body;

  /** The hosted page behind /authorize (login, or signup with screen_hint). */
  async function hostedPage(browser: CookieClient, extra: Record<string, string> = {}) {
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid email', ...extra });
    const start = await browser.get(`/authorize?${query}`);
    const path = start.headers.get('location') ?? '';
    const html = await (await browser.get(path)).text();
    return { path, fields: { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '' } };
  }

  it('counts the signup login, the hosted page, a cross-origin ticket and the password-realm grant', async () => {
    const email = `counted-${dialect}@example.com`;
    const browser = new CookieClient(server.url);
    const page = await hostedPage(browser, { screen_hint: 'signup' });
    expect(page.path).toContain('/u/signup');
    const created = await browser.postForm(page.path, { ...page.fields, email, password: NEW_PASSWORD });
    expect(created.status).toBe(302);
    const user = await userNamed(email);
    const userId = String(user.user_id);
    expect(user).toMatchObject({ logins_count: 1, last_ip: '127.0.0.1' });
    const firstLogin = Date.parse(String(user.last_login));
    expect(firstLogin).not.toBeNaN();

    const loginBrowser = new CookieClient(server.url);
    const loginPage = await hostedPage(loginBrowser);
    expect(loginPage.path).toContain('/u/login');
    expect((await loginBrowser.postForm(loginPage.path, { ...loginPage.fields, username: email, password: NEW_PASSWORD })).status).toBe(302);
    expect((await logins(userId)).logins_count).toBe(2);

    const coBrowser = new CookieClient(server.url);
    const co = await coBrowser.postJson(
      '/co/authenticate',
      { client_id: fx.spa.clientId, credential_type: PASSWORD_REALM, username: email, password: NEW_PASSWORD, realm: fx.connection },
      { origin: fx.spa.origin },
    );
    expect(co.status).toBe(200);
    const ticket = String(((await co.json()) as Record<string, unknown>).login_ticket);
    const authorize = new URLSearchParams({ client_id: fx.spa.clientId, response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid', nonce: 'n', realm: fx.connection, login_ticket: ticket });
    const answered = await coBrowser.get(`/authorize?${authorize}`);
    expect(answered.headers.get('location')).toContain('access_token=');
    // The ticket's login was counted once, at /co/authenticate.
    expect((await logins(userId)).logins_count).toBe(3);

    const grant = await postJson(server, '/oauth/token', {
      grant_type: PASSWORD_REALM,
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: email,
      password: NEW_PASSWORD,
      realm: fx.connection,
      scope: 'openid',
    });
    expect(grant.status).toBe(200);
    const after = await logins(userId);
    expect(after).toMatchObject({ logins_count: 4, last_ip: '127.0.0.1' });
    expect(Date.parse(String(after.last_login))).toBeGreaterThanOrEqual(firstLogin);
  });

  it('counts a one-time code login, the first one (which creates the user) included', async () => {
    const email = `otp-user-${dialect}@example.com`;
    const codeLogin = async () => {
      expect((await postJson(server, '/passwordless/start', { client_id: fx.web.clientId, connection: emailConnection, email, send: 'code' })).status).toBe(200);
      const entry = (await server.registry.outbox.recent(200)).find((candidate) => candidate.message.to === email);
      const text = entry?.channel === 'email' ? entry.message.text : '';
      const otp = /\b(\d{6})\b/.exec(text)?.[1] ?? '';
      const answer = await postJson(server, '/oauth/token', { grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: email, otp, realm: emailConnection, scope: 'openid' });
      expect(answer.status).toBe(200);
    };
    await codeLogin();
    expect(await userNamed(email)).toMatchObject({ logins_count: 1, last_ip: '127.0.0.1' });
    await codeLogin();
    expect((await userNamed(email)).logins_count).toBe(2);
  });
});

describe('logins_count of federated (SAML) logins', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let idp: ReturnType<typeof samlify.IdentityProvider>;
  let sp: ReturnType<typeof samlify.ServiceProvider>;

  beforeAll(async () => {
    const keys = selfSignedCertificate('logins-idp');
    const idpKeys = { key: keys.key.toString('utf8'), cert: keys.cert.toString('utf8') };
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    const idpinitiated = { enabled: true, client_id: fx.web.clientId, client_protocol: 'oauth2', client_authorizequery: `response_type=code&scope=openid&redirect_uri=${encodeURIComponent(fx.web.callback)}` };
    const options = { signInEndpoint: IDP_SSO, signingCert: idpKeys.cert, issuer: IDP_ENTITY, idpinitiated };
    expect((await api('POST', '/connections', { name: 'corp', strategy: 'samlp', enabled_clients: [fx.web.clientId], options })).status).toBe(201);
    samlify.setSchemaValidator({ validate: async () => 'skipped' });
    idp = samlify.IdentityProvider({ entityID: IDP_ENTITY, privateKey: idpKeys.key, signingCert: idpKeys.cert,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: IDP_SSO }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'] });
    sp = samlify.ServiceProvider({ metadata: await (await fetch(`${server.url}/samlp/metadata?connection=corp`)).text(), wantAssertionsSigned: true });
  }, 60_000);
  afterAll(async () => server?.close());

  /** An identity-provider-initiated sign-on of `email`, as the browser posts it. */
  async function samlLogin(email: string) {
    const { context } = await idp.createLoginResponse(sp, {} as Parameters<typeof idp.createLoginResponse>[1], 'post', { email });
    const answer = await new CookieClient(server.url).postForm('/login/callback?connection=corp', { SAMLResponse: String(context), _resubmitted: '1' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toContain('code=');
  }

  it('counts each federated login, and counts it on the primary user once the identity is linked', async () => {
    const federatedId = 'samlp|corp|dora@corp.example';
    await samlLogin('dora@corp.example');
    expect((await api('GET', `/users/${encodeURIComponent(federatedId)}`)).body).toMatchObject({ logins_count: 1, last_ip: '127.0.0.1' });
    await samlLogin('dora@corp.example');
    expect((await api('GET', `/users/${encodeURIComponent(federatedId)}`)).body.logins_count).toBe(2);

    const primary = encodeURIComponent(fx.user.userId);
    const before = Number((await api('GET', `/users/${primary}`)).body.logins_count);
    expect((await api('POST', `/users/${primary}/identities`, { provider: 'samlp', user_id: 'corp|dora@corp.example' })).status).toBe(201);
    await samlLogin('dora@corp.example');
    expect((await api('GET', `/users/${primary}`)).body).toMatchObject({ logins_count: before + 1, last_ip: '127.0.0.1' });
  });
});
