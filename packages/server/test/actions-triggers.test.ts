import type { ManagementClient } from 'auth0';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { actionBinder, type ActionBinder } from './support/action-bindings.js';
import * as examples from './support/action-examples.js';
import type { ActionSource } from './support/action-examples.js';
import { CookieClient } from './support/browser-client.js';
import { until } from './support/eventually.js';
import { startLogReceiver, type LogReceiver } from './support/log-receiver.js';
import { passwordRealmForm, provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const ROLES_CLAIM = 'https://my-app.example.com/roles';
/** An address no test request comes from (TEST-NET-3), for the allowlist templates to refuse everyone. */
const ELSEWHERE = '203.0.113.9';
/** What a request over loopback is, as event.request.ip shows it. */
const HERE = '127.0.0.1,::1,::ffff:127.0.0.1';

const postLogin = (name: string, code: string, secrets?: Record<string, string>): ActionSource => ({ name, trigger: 'post-login', code, ...(secrets ? { secrets } : {}) });

/** Ours: what the next action reads of the user's app metadata, as a claim (to see the order actions run in). */
const READ_EXPENSIVE_TASK = postLogin(
  'Reads app metadata',
  "exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('https://example.com/expensive-task-done', event.user.app_metadata.didAnExpensiveTask === true); };",
);

/**
 * The triggers of the tenant's Actions end to end, on both dialects, over real sockets: actions are created,
 * deployed and bound only through the official Management SDK (npm auth0), mostly the platform's documented
 * examples unmodified (support/action-examples.ts), and then every way of signing in, exchanging client
 * credentials, signing up, changing a password and sending a text message runs them. Tokens are verified with jose
 * against the server's JWKS; the tenant log and the executions are read back through the SDK.
 */
describe.each(DIALECTS)('Actions triggers end to end (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;
  let fx: LoginFixture;
  let binder: ActionBinder;
  let receiver: LogReceiver;
  let verify: (jwt: unknown, audience: string) => Promise<JWTPayload>;
  const emailConnection = `email-${dialect}`;
  const smsConnection = `sms-${dialect}`;
  let editorRole: string;

  beforeAll(async () => {
    // Actions reach the local receivers on loopback; one trigger's actions get 5 s.
    sdk = await startServerForSdk({ dialect, env: { LATCHKEY_ACTIONS_EGRESS: 'public,loopback', LATCHKEY_ACTIONS_TIMEOUT_MS: '5000' } });
    management = sdk.management;
    api = managementApi(sdk.server);
    binder = actionBinder(management);
    fx = await provisionLogin(sdk.server);
    receiver = await startLogReceiver();
    const jwks = createRemoteJWKSet(new URL(`${sdk.server.url}/.well-known/jwks.json`));
    verify = async (jwt, audience) => (await jwtVerify(String(jwt), jwks, { issuer: `${sdk.server.url}/`, audience })).payload;
    for (const [name, strategy] of [[emailConnection, 'email'], [smsConnection, 'sms']] as const) {
      expect((await api('POST', '/connections', { name, strategy, enabled_clients: [fx.web.clientId] })).status).toBe(201);
    }
    const grants = ['authorization_code', 'implicit', 'refresh_token', 'password', PASSWORD_REALM, OTP_GRANT];
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: grants })).status).toBe(200);
    editorRole = String((await api('POST', '/roles', { name: 'editor' })).body.id);
    expect((await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/roles`, { roles: [editorRole] })).status).toBe(204);
  }, 60_000);
  afterEach(async () => binder?.unbindAll());
  afterAll(async () => {
    await receiver?.close();
    await sdk?.close();
  });

  async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${sdk.server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const ok = async (form: Record<string, string>) => {
    const answer = await token(form);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const post = (path: string, body: unknown) =>
    fetch(`${sdk.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));

  async function newUser(label: string): Promise<{ userId: string; email: string }> {
    const email = `${label}-${dialect}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: USER_PASSWORD, email_verified: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { userId: String(created.body.user_id), email };
  }
  const loginAs = (email: string, extra: Record<string, string> = {}) => token(passwordRealmForm(fx, { username: email, scope: 'openid', ...extra }));

  /** The tenant log's events of a type for a user, newest first, once the recorder stored them. */
  async function logged(type: string, query?: string) {
    await sdk.server.registry.events.flush();
    return (await management.logs.list({ search: query ? `type:${type} AND ${query}` : `type:${type}`, per_page: 20 })).data;
  }

  /** Creates an application that may use the password-realm grant and cross-origin login on the fixture's connection. */
  async function application(name: string): Promise<{ clientId: string; clientSecret: string }> {
    const created = await api('POST', '/clients', {
      name,
      app_type: 'regular_web',
      callbacks: [fx.web.callback],
      web_origins: [fx.spa.origin],
      allowed_origins: [fx.spa.origin],
      cross_origin_authentication: true,
      grant_types: ['authorization_code', 'implicit', PASSWORD_REALM],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const clientId = String(created.body.client_id);
    const connection = await api('GET', `/connections?name=${encodeURIComponent(fx.connection)}`);
    const found = (connection.body as unknown as { id: string; enabled_clients: string[] }[])[0];
    expect((await api('PATCH', `/connections/${String(found?.id)}`, { enabled_clients: [...(found?.enabled_clients ?? []), clientId] })).status).toBe(200);
    return { clientId, clientSecret: String(created.body.client_secret) };
  }

  /** Cross-origin login (`/co/authenticate`, then `/authorize?login_ticket=`) as a browser library does it; the redirect. */
  async function crossOriginLogin(clientId: string, email: string, params: Record<string, string> = {}): Promise<URLSearchParams> {
    const browser = new CookieClient(sdk.server.url);
    const ticket = await browser.postJson('/co/authenticate', { client_id: clientId, credential_type: PASSWORD_REALM, username: email, password: USER_PASSWORD, realm: fx.connection }, { origin: fx.spa.origin });
    const ticketBody = (await ticket.json()) as Record<string, string>;
    expect(ticket.status, JSON.stringify(ticketBody)).toBe(200);
    const query = new URLSearchParams({ client_id: clientId, response_type: 'token id_token', redirect_uri: fx.web.callback, scope: 'openid', state: 'co-state', nonce: 'co-nonce', realm: fx.connection, login_ticket: String(ticketBody.login_ticket), ...params });
    const answer = await browser.get(`/authorize?${query.toString()}`);
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location') ?? 'x:');
    expect(`${location.origin}${location.pathname}`).toBe(fx.web.callback);
    return new URLSearchParams(location.hash.slice(1));
  }

  /** The last code sent to an address or number through the local outbox. */
  async function outboxCode(to: string): Promise<string | undefined> {
    const entry = (await sdk.server.registry.outbox.recent(200)).find((candidate) => candidate.message.to === to);
    const text = entry ? (entry.channel === 'email' ? entry.message.text : entry.message.body) : '';
    return /\b(\d{6})\b/.exec(text)?.[1];
  }

  it('runs post-login on every sign-in path: the documented roles example puts the roles in the ID and access tokens', async () => {
    await binder.bind('post-login', [postLogin('Add roles to tokens', examples.ADD_ROLES_TO_TOKENS)]);
    const audience = fx.api.identifier;
    const expectRoles = async (tokens: Record<string, unknown>, roles: string[], path: string) => {
      expect((await verify(tokens.id_token, fx.web.clientId))[ROLES_CLAIM], `${path}: ID token`).toEqual(roles);
      expect((await verify(tokens.access_token, audience))[ROLES_CLAIM], `${path}: access token`).toEqual(roles);
    };

    const realm = await ok(passwordRealmForm(fx, { scope: 'openid offline_access', audience }));
    await expectRoles(realm, ['editor'], 'password-realm grant');
    await expectRoles(await ok({ grant_type: 'password', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: fx.user.email, password: USER_PASSWORD, scope: 'openid', audience }), ['editor'], 'password grant');
    await expectRoles(await ok({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: String(realm.refresh_token) }), ['editor'], 'refresh token grant');

    // A passwordless user (created by the login itself) has no role: the claim is there, empty.
    const email = `otp-${dialect}@example.com`;
    expect((await post('/passwordless/start', { client_id: fx.web.clientId, connection: emailConnection, email, send: 'code' })).status).toBe(200);
    const otp = String(await outboxCode(email));
    await expectRoles(await ok({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: email, otp, realm: emailConnection, scope: 'openid', audience }), [], 'passwordless OTP grant');

    // Cross-origin login answers the application at its redirect URI, tokens in the fragment.
    const crossOrigin = await application(`Cross-origin app ${dialect}`);
    const fragment = await crossOriginLogin(crossOrigin.clientId, fx.user.email, { audience });
    expect(fragment.get('error'), fragment.toString()).toBeNull();
    expect((await verify(fragment.get('id_token'), crossOrigin.clientId))[ROLES_CLAIM]).toEqual(['editor']);
    expect((await verify(fragment.get('access_token'), audience))[ROLES_CLAIM]).toEqual(['editor']);
  });

  it('describes each sign-in in the event as the platform does: methods, connection, protocol, scopes, API', async () => {
    // Ours: what the event says of the login, as a claim.
    const describeLogin = postLogin(
      'Describes the login',
      `exports.onExecutePostLogin = async (event, api) => {
        api.idToken.setCustomClaim('https://example.com/login', {
          methods: event.authentication.methods.map((method) => method.name),
          connection: event.connection.name,
          strategy: event.connection.strategy,
          protocol: event.transaction.protocol,
          requested_scopes: event.transaction.requested_scopes,
          api: event.resource_server && event.resource_server.identifier,
          client: event.client.name,
          logins: typeof event.stats.logins_count,
        });
      };`,
    );
    await binder.bind('post-login', [describeLogin]);
    const described = async (tokens: Record<string, unknown>, audience = fx.web.clientId) => (await verify(tokens.id_token, audience))['https://example.com/login'];
    const audience = fx.api.identifier;
    const realm = await ok(passwordRealmForm(fx, { scope: 'openid offline_access', audience }));
    const byPassword = { connection: fx.connection, strategy: 'auth0', client: expect.stringMatching(/^Web /), logins: 'number', api: audience };
    expect(await described(realm)).toEqual({ ...byPassword, methods: ['pwd'], protocol: 'oauth2-password', requested_scopes: ['openid', 'offline_access'] });
    // A refresh names the user's own connection.
    const refreshed = await ok({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: String(realm.refresh_token) });
    expect(await described(refreshed)).toMatchObject({ connection: fx.connection, strategy: 'auth0', protocol: 'oauth2-refresh-token', api: audience });

    // A one-time code's method is its connection's: `email` or `sms`.
    const email = `described-${dialect}@example.com`;
    expect((await post('/passwordless/start', { client_id: fx.web.clientId, connection: emailConnection, email, send: 'code' })).status).toBe(200);
    const otp = await ok({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: email, otp: String(await outboxCode(email)), realm: emailConnection, scope: 'openid' });
    expect(await described(otp)).toMatchObject({ methods: ['email'], connection: emailConnection, strategy: 'email' });

    const crossOrigin = await application(`Described app ${dialect}`);
    const fragment = await crossOriginLogin(crossOrigin.clientId, fx.user.email);
    expect(await described({ id_token: fragment.get('id_token') }, crossOrigin.clientId)).toMatchObject({
      methods: ['pwd'],
      protocol: 'oidc-implicit-profile',
      client: `Described app ${dialect}`,
      requested_scopes: ['openid'],
    });
  });

  it('keeps restricted claims (sub, iss, aud, scope) and applies addScope / removeScope past the API', async () => {
    expect((await api('POST', '/resource-servers', { identifier: 'https://example.com/api', name: 'Example API', scopes: [{ value: 'read:docs' }] })).status).toBe(201);
    const restricted = postLogin(
      'Overrides restricted claims',
      `exports.onExecutePostLogin = async (event, api) => {
        api.idToken.setCustomClaim('sub', 'someone-else');
        api.idToken.setCustomClaim('iss', 'https://issuer.example');
        api.accessToken.setCustomClaim('aud', 'https://other.example');
        api.accessToken.setCustomClaim('scope', 'admin');
        api.idToken.setCustomClaim('https://example.com/kept', { plan: 'gold' });
        api.accessToken.removeScope('read:docs');
      };`,
    );
    await binder.bind('post-login', [postLogin('Add a scope for the API', examples.ADD_SCOPE_FOR_API), restricted]);
    const tokens = await ok(passwordRealmForm(fx, { scope: 'openid read:docs', audience: 'https://example.com/api' }));
    expect(tokens.scope).toBe('openid read:xyz');
    const id = await verify(tokens.id_token, fx.web.clientId);
    expect(id).toMatchObject({ sub: fx.user.userId, iss: `${sdk.server.url}/`, 'https://example.com/kept': { plan: 'gold' } });
    const access = await verify(tokens.access_token, 'https://example.com/api');
    expect(access).toMatchObject({ sub: fx.user.userId, scope: 'openid read:xyz' });
    expect(access.aud).toContain('https://example.com/api');
  });

  it('runs two bound actions in order, the second seeing the first one\u2019s metadata change; reordered, the outcome changes; metadata is persisted', async () => {
    const setOnce = postLogin('Set app metadata', examples.SET_APP_METADATA_ONCE);
    const enrich = postLogin('Enrich the user profile', examples.ENRICH_USER_PROFILE);
    const [setBinding, enrichBinding, readBinding] = await binder.bind('post-login', [setOnce, enrich, READ_EXPENSIVE_TASK]);
    const first = await newUser('ordered');
    const firstLogin = await loginAs(first.email);
    expect(firstLogin.status, JSON.stringify(firstLogin.body)).toBe(200);
    expect((await verify(firstLogin.body.id_token, fx.web.clientId))['https://example.com/expensive-task-done']).toBe(true);
    expect(await management.users.get(first.userId)).toMatchObject({ app_metadata: { didAnExpensiveTask: true }, user_metadata: { favorite_color: 'blue' } });

    // The same bindings, named by their ids, the reader first: it no longer sees the change of this login.
    const reordered = await management.actions.triggers.bindings.updateMany('post-login', {
      bindings: [readBinding, setBinding, enrichBinding].map((value) => ({ ref: { type: 'binding_id', value: String(value) } })),
    });
    expect(reordered.bindings?.map((binding) => binding.action?.name)).toEqual(['Reads app metadata', 'Set app metadata', 'Enrich the user profile']);
    const second = await newUser('reordered');
    const secondLogin = await loginAs(second.email);
    expect((await verify(secondLogin.body.id_token, fx.web.clientId))['https://example.com/expensive-task-done']).toBe(false);
    expect(await management.users.get(second.userId)).toMatchObject({ app_metadata: { didAnExpensiveTask: true }, user_metadata: { favorite_color: 'blue' } });
    // Persisted: the next login of the first user reads it from the profile, before any action set it.
    expect((await verify((await loginAs(first.email)).body.id_token, fx.web.clientId))['https://example.com/expensive-task-done']).toBe(true);
  });

  it('denies with the action\u2019s reason: access_denied at the token endpoint and at the redirect URI, logged as f', async () => {
    const mySpa = await application('My SPA');
    expect((await api('POST', '/resource-servers', { identifier: 'http://todoapi2.api', name: 'Todo API' })).status).toBe(201);
    await binder.bind('post-login', [
      postLogin('IP allowlist (here)', examples.IP_ALLOWLIST_POST_LOGIN, { ALLOW_LIST: HERE }),
      postLogin('Deny example.com at My SPA', examples.DENY_EMAIL_DOMAIN_AT_APP),
      postLogin('Deny API callers', examples.DENY_API_CALLERS),
    ]);
    // The fixture's user is at example.com: refused at "My SPA" only.
    const denied = await token(passwordRealmForm(fx, { client_id: mySpa.clientId, client_secret: mySpa.clientSecret, scope: 'openid' }));
    expect([denied.status, denied.body]).toEqual([403, { error: 'access_denied', error_description: 'Access to My SPA is not allowed.' }]);
    expect((await loginAs(fx.user.email)).status).toBe(200);
    expect((await loginAs(fx.user.email, { audience: 'http://todoapi2.api' })).body).toEqual({ error: 'access_denied', error_description: 'end_users_not_allowed' });

    const fragment = await crossOriginLogin(mySpa.clientId, fx.user.email);
    expect(Object.fromEntries(fragment)).toEqual({ error: 'access_denied', error_description: 'Access to My SPA is not allowed.', state: 'co-state' });

    const [event] = await logged('f', `client_id:"${mySpa.clientId}"`);
    expect(event).toMatchObject({ type: 'f', description: 'Access to My SPA is not allowed.', user_id: fx.user.userId, client_id: mySpa.clientId });
    // Logged once, where the actions ran: not again as the token endpoint's failed exchange.
    expect(await logged('fepft', `client_id:"${mySpa.clientId}"`)).toEqual([]);
    const executionId = String((event?.details as { actions: { executions: string[] } }).actions.executions[0]);
    const execution = await management.actions.executions.get(executionId);
    expect(execution).toMatchObject({ id: executionId, trigger_id: 'post-login', status: 'final' });
    expect(execution.results?.map((result) => result.action_name)).toEqual(['IP allowlist (here)', 'Deny example.com at My SPA']);

    // The platform's IP allowlist template, with an address list this request is not on.
    await binder.bind('post-login', [postLogin('IP allowlist (elsewhere)', examples.IP_ALLOWLIST_POST_LOGIN, { ALLOW_LIST: ELSEWHERE })]);
    expect((await loginAs(fx.user.email)).body).toEqual({ error: 'access_denied', error_description: 'Access denied for this IP address' });
  });

  it('a refresh the actions deny is refused, and its refresh token stays usable', async () => {
    const realm = await ok(passwordRealmForm(fx, { scope: 'openid offline_access', audience: fx.api.identifier }));
    const refresh = () => token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: String(realm.refresh_token) });
    await binder.bind('post-login', [
      postLogin('No refreshes', "exports.onExecutePostLogin = async (event, api) => { if (event.transaction.protocol === 'oauth2-refresh-token') api.access.deny('Log in again.'); };"),
    ]);
    expect(await refresh()).toEqual({ status: 403, body: { error: 'access_denied', error_description: 'Log in again.' } });
    await binder.unbindAll();
    expect((await refresh()).status).toBe(200);
  });

  it('keeps the metadata a denying action set, as the platform does', async () => {
    await binder.bind('post-login', [
      postLogin('Deny and remember', "exports.onExecutePostLogin = async (event, api) => { api.user.setAppMetadata('refused_at', 'the gate'); api.access.deny('Not today.'); };"),
    ]);
    const user = await newUser('remembered');
    expect((await loginAs(user.email)).body).toEqual({ error: 'access_denied', error_description: 'Not today.' });
    expect((await management.users.get(user.userId)).app_metadata).toEqual({ refused_at: 'the gate' });
  });

  it('fails the sign-in with server_error when an action throws, logging f with its console output and execution', async () => {
    const crm = postLogin(
      'CRM lookup',
      "exports.onExecutePostLogin = async (event, api) => { console.log('looking up', event.user.email, 'in the CRM'); throw new Error('The CRM is unavailable'); };",
    );
    await binder.bind('post-login', [postLogin('Add roles to tokens', examples.ADD_ROLES_TO_TOKENS), crm]);
    const user = await newUser('crm');
    const failed = await loginAs(user.email);
    expect(failed.body).toEqual({ error: 'server_error', error_description: "The action 'CRM lookup' failed: The CRM is unavailable" });
    expect(failed.status).toBe(500);

    const [event] = await logged('f', `user_id:"${user.userId}"`);
    expect(event).toMatchObject({ type: 'f', description: "The action 'CRM lookup' failed: The CRM is unavailable", client_id: fx.web.clientId });
    const actions = (event?.details as { actions: { executions: string[]; error: unknown; logs: string[] } }).actions;
    expect(actions.error).toEqual({ action_name: 'CRM lookup', kind: 'thrown', message: 'The CRM is unavailable' });
    expect(actions.logs).toEqual([`log: looking up ${user.email} in the CRM`]);
    const execution = await management.actions.executions.get(String(actions.executions[0]));
    expect(execution).toMatchObject({ trigger_id: 'post-login', status: 'partial' });
    expect(execution.results?.map((result) => [result.action_name, result.error ?? null])).toEqual([
      ['Add roles to tokens', null],
      ['CRM lookup', { id: 'action_error', msg: 'The CRM is unavailable' }],
    ]);
  });

  it('credentials-exchange: the documented claim example, an invalid_scope denial, and the IP allowlist template', async () => {
    const created = await api('POST', '/clients', { name: `Worker ${dialect}`, app_type: 'non_interactive', grant_types: ['client_credentials'] });
    const worker = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    expect((await api('POST', '/client-grants', { client_id: worker.clientId, audience: fx.api.identifier, scope: fx.api.scopes })).status).toBe(201);
    const exchange = (scope?: string) =>
      token({ grant_type: 'client_credentials', client_id: worker.clientId, client_secret: worker.clientSecret, audience: fx.api.identifier, ...(scope ? { scope } : {}) });
    const requestIp: ActionSource = { name: 'Request IP claim', trigger: 'credentials-exchange', code: examples.EXCHANGE_REQUEST_IP_CLAIM };
    const noWrites: ActionSource = { name: 'No writes', trigger: 'credentials-exchange', code: examples.DENY_WRITE_SCOPE_EXCHANGE };
    await binder.bind('credentials-exchange', [noWrites, requestIp]);

    const granted = await exchange('read:things');
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    const claims = await verify(granted.body.access_token, fx.api.identifier);
    expect(claims).toMatchObject({ sub: `${worker.clientId}@clients`, scope: 'read:things', gty: 'client-credentials' });
    expect(HERE.split(',')).toContain(claims['https://my-api.exampleco.com/request-ip']);

    const refused = await exchange('read:things write:things');
    expect([refused.status, refused.body]).toEqual([400, { error: 'invalid_scope', error_description: `Worker ${dialect} may not write things.` }]);
    const [event] = await logged('feccft', `client_id:"${worker.clientId}"`);
    expect(event).toMatchObject({ description: `Worker ${dialect} may not write things.`, details: { error: 'invalid_scope', grant_type: 'client_credentials' } });

    // Last: it refuses every client, the SDK's own token request too (the SDK keeps the token it has).
    await binder.bind('credentials-exchange', [{ name: 'IP allowlist for exchanges (elsewhere)', trigger: 'credentials-exchange', code: examples.IP_ALLOWLIST_CREDENTIALS_EXCHANGE, secrets: { ALLOW_LIST: ELSEWHERE } }]);
    expect((await exchange()).body).toEqual({ error: 'invalid_request', error_description: 'Access denied for this IP address' });
  });

  it('pre-user-registration on /dbconnections/signup: metadata on the new user; a denial is ExtensibilityError with the userMessage', async () => {
    const signup = (email: string) => post('/dbconnections/signup', { client_id: fx.web.clientId, connection: fx.connection, email, password: USER_PASSWORD });
    await binder.bind('pre-user-registration', [
      // No geoip data here: the documented example denies no one (and does not throw on the empty geoip).
      { name: 'Deny registration by location', trigger: 'pre-user-registration', code: examples.DENY_REGISTRATION_BY_LOCATION },
      { name: 'Set screen name', trigger: 'pre-user-registration', code: examples.SET_SCREEN_NAME },
    ]);
    const email = `signup-${dialect}@example.com`;
    const created = await signup(email);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ email, user_metadata: { screen_name: 'username' } });
    const [user] = await management.users.listUsersByEmail({ email });
    expect(user).toMatchObject({ user_metadata: { screen_name: 'username' } });

    await binder.bind('pre-user-registration', [{ name: 'IP allowlist for signups (elsewhere)', trigger: 'pre-user-registration', code: examples.IP_ALLOWLIST_PRE_USER_REGISTRATION, secrets: { ALLOW_LIST: ELSEWHERE } }]);
    const refusedEmail = `refused-${dialect}@example.com`;
    const refused = await signup(refusedEmail);
    expect([refused.status, refused.body]).toEqual([400, { name: 'ExtensibilityError', code: 'extensibility_error', description: 'Access denied for this IP address', statusCode: 400 }]);
    expect(await management.users.listUsersByEmail({ email: refusedEmail })).toEqual([]);
    const [event] = await logged('fs', `connection:"${fx.connection}"`);
    expect(event).toMatchObject({ type: 'fs', description: 'IP not allowed', user_name: refusedEmail, details: { error: 'extensibility_error', actions: { executions: [expect.any(String)] } } });

    // An action that fails refuses the signup too, without its words; the log has them.
    await binder.bind('pre-user-registration', [
      { name: 'Checks the invitation list', trigger: 'pre-user-registration', code: "exports.onExecutePreUserRegistration = async () => { console.log('no list'); throw new Error('The invitation list is unreachable'); };" },
    ]);
    const failedEmail = `failed-${dialect}@example.com`;
    expect(await signup(failedEmail)).toEqual({ status: 400, body: { name: 'ExtensibilityError', code: 'extensibility_error', description: 'The signup was refused.', statusCode: 400 } });
    const [failure] = await logged('fs', `connection:"${fx.connection}"`);
    expect(failure).toMatchObject({ user_name: failedEmail, description: "The action 'Checks the invitation list' failed: The invitation list is unreachable" });
    const actions = (failure?.details as { actions: { executions: string[]; logs: string[] } }).actions;
    expect(actions.logs).toEqual(['log: no list']);
    expect(await management.actions.executions.get(String(actions.executions[0]))).toMatchObject({
      trigger_id: 'pre-user-registration',
      status: 'partial',
      results: [{ action_name: 'Checks the invitation list', error: { id: 'action_error', msg: 'The invitation list is unreachable' } }],
    });
  });

  it('post-user-registration and post-change-password reach another system over HTTP', async () => {
    await binder.bind('post-user-registration', [{ name: 'Notify registration', trigger: 'post-user-registration', code: examples.NOTIFY_REGISTRATION, secrets: { API_URL: receiver.url } }]);
    await binder.bind('post-change-password', [{ name: 'Revoke sessions elsewhere', trigger: 'post-change-password', code: examples.REVOKE_SESSION_ELSEWHERE, secrets: { API_URL: receiver.url } }]);
    const email = `notified-${dialect}@example.com`;
    const created = await post('/dbconnections/signup', { client_id: fx.web.clientId, connection: fx.connection, email, password: USER_PASSWORD });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const userId = `auth0|${String(created.body._id)}`;
    const registered = await until(async () => {
      const found = receiver.requests.find((request) => request.path === '/users' && request.body.includes(email));
      if (!found) throw new Error('no registration notice yet');
      return found;
    }, 10_000);
    expect(JSON.parse(registered.body)).toEqual({ params: { email, user_id: userId } });

    await management.users.update(userId, { password: 'another horse battery staple 43', connection: fx.connection });
    const revoked = await until(async () => {
      const found = receiver.requests.find((request) => request.path === '/revoke-session' && request.body.includes(email));
      if (!found) throw new Error('no revocation yet');
      return found;
    }, 10_000);
    expect(JSON.parse(revoked.body)).toEqual({ params: { email } });
  });

  it('send-phone-message replaces SMS delivery for a passwordless SMS login; a provider that refuses fails the start', async () => {
    await binder.bind('send-phone-message', [{ name: 'SMS over HTTP', trigger: 'send-phone-message', code: examples.SEND_SMS_OVER_HTTP, secrets: { SMS_PROVIDER_URL: `${receiver.url}/sms` } }]);
    const phone = dialect === 'sqlite' ? '+15555550101' : '+15555550102';
    const started = await post('/passwordless/start', { client_id: fx.web.clientId, connection: smsConnection, phone_number: phone, send: 'code' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const sent = receiver.requests.find((request) => request.path === '/sms' && request.body.includes(phone));
    const message = JSON.parse(String(sent?.body)) as { Message: string; PhoneNumber: string };
    expect(message.PhoneNumber).toBe(phone);
    const code = String(/\b(\d{6})\b/.exec(message.Message)?.[1]);
    // Not through the configured delivery (the local outbox here).
    expect(await outboxCode(phone)).toBeUndefined();
    const tokens = await ok({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: phone, otp: code, realm: smsConnection, scope: 'openid' });
    const subject = String((await verify(tokens.id_token, fx.web.clientId)).sub);
    expect(subject).toMatch(/^sms\|/);
    expect((await management.users.get(subject)).phone_number).toBe(phone);

    receiver.respond = () => 503;
    try {
      const failed = await post('/passwordless/start', { client_id: fx.web.clientId, connection: smsConnection, phone_number: phone, send: 'code' });
      expect([failed.status, failed.body]).toEqual([500, { error: 'server_error', error_description: 'The server could not complete the request.' }]);
    } finally {
      receiver.respond = () => 200;
    }
    const [event] = await logged('fn');
    expect(event).toMatchObject({ type: 'fn', description: "The action 'SMS over HTTP' failed: The SMS provider answered 503" });
  });
});

/**
 * Hostile tenant code in a bound post-login action, on a node with the default egress and short limits: each kind
 * fails only the login it runs for, with an error that says what happened, while another application's login at
 * the same moment succeeds and the node stays ready.
 */
describe.each(DIALECTS)('hostile post-login actions (%s)', (dialect) => {
  let sdk: SdkServer;
  let binder: ActionBinder;
  let fx: LoginFixture;
  let hostileApp: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect, env: { LATCHKEY_ACTIONS_TIMEOUT_MS: '1000', LATCHKEY_ACTIONS_MEMORY_MB: '16' } });
    binder = actionBinder(sdk.management);
    fx = await provisionLogin(sdk.server);
    const api = managementApi(sdk.server);
    const created = await api('POST', '/clients', { name: 'Hostile app', app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: [PASSWORD_REALM] });
    hostileApp = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    const [connection] = (await api('GET', `/connections?name=${encodeURIComponent(fx.connection)}`)).body as unknown as { id: string; enabled_clients: string[] }[];
    expect((await api('PATCH', `/connections/${String(connection?.id)}`, { enabled_clients: [...(connection?.enabled_clients ?? []), hostileApp.clientId] })).status).toBe(200);
  }, 60_000);
  afterEach(async () => binder?.unbindAll());
  afterAll(async () => sdk?.close());

  const login = async (client: { clientId: string; clientSecret: string }) => {
    const response = await fetch(`${sdk.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(passwordRealmForm(fx, { client_id: client.clientId, client_secret: client.clientSecret, scope: 'openid' })),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, at: performance.now() };
  };

  it.each([
    ['Loops forever', 'while (true) {}', /^The action 'Loops forever' failed: The action ran longer than its limit of \d+ ms$/],
    ['Hoards memory', 'const hoard = []; for (;;) hoard.push(new Array(100000).fill(hoard.length));', /^The action 'Hoards memory' failed: The action went over its memory limit of 16 MB$/],
    ['Reads a file', "require('fs').readFileSync('/etc/passwd');", /^The action 'Reads a file' failed: Cannot find module 'fs'/],
    ['Reads the environment', "api.idToken.setCustomClaim('https://example.com/env', process.env);", /^The action 'Reads the environment' failed: process is not defined$/],
    ['Calls this node', 'await fetch(event.secrets.OWN_URL + "/health/ready");', /^The action 'Calls this node' failed: .*is a loopback address, and LATCHKEY_ACTIONS_EGRESS allows public addresses only$/],
  ])('%s: only that login fails, another application\u2019s login meanwhile succeeds and the node stays ready', async (name, body, error) => {
    await binder.bind('post-login', [
      postLogin(name, `exports.onExecutePostLogin = async (event, api) => {\n  if (event.client.name !== 'Hostile app') return;\n  ${body}\n};`, { OWN_URL: sdk.server.url }),
    ]);
    const hostile = login(hostileApp);
    let settled = false;
    void hostile.finally(() => (settled = true));
    const readiness: number[] = [];
    const other = login(fx.web);
    while (!settled) readiness.push((await fetch(`${sdk.server.url}/health/ready`)).status);
    const [refused, succeeded] = await Promise.all([hostile, other]);
    expect(refused.status).toBe(500);
    expect(refused.body.error).toBe('server_error');
    expect(String(refused.body.error_description)).toMatch(error);
    expect(succeeded.status, JSON.stringify(succeeded.body)).toBe(200);
    expect(succeeded.body.id_token).toBeTruthy();
    if (name === 'Loops forever') expect(succeeded.at).toBeLessThan(refused.at);
    expect(readiness.length).toBeGreaterThan(0);
    expect(new Set(readiness)).toEqual(new Set([200]));
    // The action is not broken for good: the next execution of the same version runs (and refuses) alike.
    expect((await login(hostileApp)).body.error).toBe('server_error');
  });
});
