import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATH_STAGES, SIGN_IN_PATHS, SIGN_IN_STAGES, type SignInAttempt, type SignInPath } from '../src/oauth/sign-in-pipeline.js';
import { CookieClient, decodeEntities, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { passwordRealmForm, provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { signInAtOidcProvider, startOidcProvider, UPSTREAM_SECRET } from './support/oidc-provider.js';
import { freePort } from './support/ports.js';
import { authnRequestOf, upstreamSamlIdp } from './support/saml-upstream-idp.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';
const EMAIL_CONNECTION = 'email-pipeline';
const OIDC_CONNECTION = 'upstream-pipeline';
const SAML_CONNECTION = 'saml-pipeline';
const REFUSAL = 'refused by test';

/** One sign-in as the pipeline saw it: the stages it passed, and what was issued to the user at each. */
interface Trace {
  path: SignInPath;
  userId: string;
  stages: string[];
  issued: string[];
}

/** What a path answered: the browser sent back to the application, or the token endpoint's JSON. */
type Outcome =
  | { surface: 'browser'; status: number; redirectedTo: string; answer: Record<string, string>; sessionCookie: boolean }
  | { surface: 'token'; status: number; body: Record<string, unknown> };

/**
 * Every way of signing in (SIGN_IN_PATHS), driven for real over the server's socket, runs the sign-in pipeline:
 * a recorder on every stage sees each path pass its stages in order, nothing issued before `session-and-tokens`
 * and the session or tokens there by `event-recorded`; and a check that refuses turns each path down with its
 * surface's error, issuing nothing.
 */
describe('every sign-in path runs the sign-in pipeline, over a real socket', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let upstream: { url: string; close(): Promise<void> };
  let saml: { respond(email: string, requestId?: string): Promise<string> };
  const traces: Trace[] = [];
  /** The path the refusing check turns down (a flag: the pipeline has no way to remove a check). */
  let refusing: SignInPath | undefined;
  /** The refresh token the last refresh-token-grant run presented. */
  let lastRefreshToken = '';

  /** The sessions, codes and refresh tokens the user holds, as a fingerprint that changes when one is issued. */
  async function issuedTo(userId: string): Promise<string> {
    const { storage, tenantId } = server.registry;
    const now = new Date().toISOString();
    const kinds = ['session', 'authorization_code', 'refresh_token'] as const;
    const live = await Promise.all(kinds.map(async (kind) => (await storage.artifacts.listLive(tenantId, kind, { subject: userId }, now)).map((artifact) => [kind, artifact.id, artifact.data])));
    return JSON.stringify(live.flat());
  }

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    const api = managementApi(server, 'socket');
    const ok = async (call: Promise<{ status: number; body: unknown }>, status: number) => {
      const response = await call;
      expect(response.status, JSON.stringify(response.body)).toBe(status);
    };
    const grants = ['authorization_code', 'implicit', 'refresh_token', 'password', PASSWORD_REALM, OTP_GRANT];
    await ok(api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: grants }), 200);
    await ok(api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true }), 200);
    await ok(api('POST', '/connections', { name: EMAIL_CONNECTION, strategy: 'email', enabled_clients: [fx.web.clientId] }), 201);
    upstream = await startOidcProvider(await freePort(), server.url);
    const oidcOptions = { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey', client_secret: UPSTREAM_SECRET };
    await ok(api('POST', '/connections', { name: OIDC_CONNECTION, strategy: 'oidc', enabled_clients: [fx.web.clientId], options: oidcOptions }), 201);
    const idp = upstreamSamlIdp();
    const authorizeQuery = `response_type=code&scope=openid%20email&state=app-state&redirect_uri=${encodeURIComponent(fx.web.callback)}`;
    const idpInitiated = { enabled: true, client_id: fx.web.clientId, client_protocol: 'oauth2', client_authorizequery: authorizeQuery };
    await ok(api('POST', '/connections', { name: SAML_CONNECTION, strategy: 'samlp', enabled_clients: [fx.web.clientId], options: idp.connectionOptions({ idpinitiated: idpInitiated }) }), 201);
    saml = await idp.trustedBy(server, SAML_CONNECTION);

    // Stages see the same attempt object from the first stage to the last: it keys the sign-in's trace.
    const signIn = server.registry.userGrants.signIn;
    const open = new WeakMap<Readonly<SignInAttempt>, Trace>();
    for (const stage of SIGN_IN_STAGES) {
      // The path's own ending runs in place of this stage's checks.
      if (stage === 'session-and-tokens') continue;
      signIn.use(stage, async (attempt) => {
        let trace = open.get(attempt);
        if (!trace) {
          trace = { path: attempt.path, userId: attempt.userId, stages: [], issued: [] };
          open.set(attempt, trace);
          traces.push(trace);
        }
        trace.stages.push(stage);
        trace.issued.push(await issuedTo(attempt.userId));
      });
    }
    signIn.use('post-login-actions', async (attempt) => (attempt.path === refusing ? { reason: 'denied', description: REFUSAL } : undefined));
  });
  afterAll(async () => {
    await upstream?.close();
    await server?.close();
  });

  /** Where a browser path ended: the application's redirect URI, with the answer from its query and fragment. */
  function landed(browser: CookieClient, response: Response): Outcome {
    const location = new URL(response.headers.get('location') ?? 'about:blank');
    const answer = Object.fromEntries([...location.searchParams, ...new URLSearchParams(location.hash.slice(1))]);
    return { surface: 'browser', status: response.status, redirectedTo: location.origin + location.pathname, answer, sessionCookie: browser.cookies.has('lk_session') };
  }

  async function token(form: Record<string, string>): Promise<Outcome> {
    const answer = await postJson(server, '/oauth/token', form);
    return { surface: 'token', status: answer.status, body: answer.json };
  }

  /** Tokens the token endpoint stores (a refresh token) as well as signs, so that what it issued can be seen. */
  const offline = () => ({ scope: 'openid offline_access', audience: fx.api.identifier });

  const webAuthorize = (extra: Record<string, string> = {}) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'app-state', ...extra })}`;

  /** `/authorize` to the hosted page it opens; the page's path and its form's hidden fields. */
  async function hostedPage(browser: CookieClient, extra: Record<string, string> = {}) {
    const start = await browser.get(webAuthorize(extra));
    expect(start.status).toBe(302);
    const page = new URL(start.headers.get('location') ?? '', server.url);
    const html = await (await browser.get(page.pathname + page.search)).text();
    return { path: page.pathname + page.search, fields: { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '' } };
  }

  /** Starts a passwordless login by e-mail and answers the message it sent (the outbox is the delivery in tests). */
  async function passwordlessMessage(email: string, send: 'code' | 'link', authParams?: Record<string, string>): Promise<string> {
    const started = await postJson(server, '/passwordless/start', { client_id: fx.web.clientId, connection: EMAIL_CONNECTION, email, send, ...(authParams ? { authParams } : {}) });
    expect(started.status, started.text).toBe(200);
    const entry = (await server.registry.outbox.recent(50)).find((candidate) => candidate.message.to === email);
    if (entry?.channel !== 'email') throw new Error(`no e-mail to ${email}`);
    return entry.message.text;
  }

  let signups = 0;
  const drivers: Record<SignInPath, () => Promise<Outcome>> = {
    'login-page': async () => {
      const browser = new CookieClient(server.url);
      const { path, fields } = await hostedPage(browser);
      return landed(browser, await browser.postForm(path, { ...fields, username: fx.user.email, password: fx.user.password }));
    },
    'signup-page': async () => {
      const browser = new CookieClient(server.url);
      const { path, fields } = await hostedPage(browser, { screen_hint: 'signup' });
      expect(path).toMatch(/^\/u\/signup\?/);
      signups += 1;
      return landed(browser, await browser.postForm(path, { ...fields, email: `signup-${signups}@example.com`, password: 'A-strong-passw0rd' }));
    },
    'cross-origin-ticket': async () => {
      const browser = new CookieClient(server.url);
      const credentials = { client_id: fx.spa.clientId, credential_type: PASSWORD_REALM, username: fx.user.email, password: fx.user.password, realm: fx.connection };
      const authenticated = await browser.postJson('/co/authenticate', credentials, { origin: fx.spa.origin });
      expect(authenticated.status).toBe(200);
      const { login_ticket: ticket } = (await authenticated.json()) as { login_ticket: string };
      const query = { client_id: fx.spa.clientId, response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid', state: 'app-state', nonce: 'n', realm: fx.connection, login_ticket: ticket };
      return landed(browser, await browser.get(`/authorize?${new URLSearchParams(query)}`));
    },
    'passwordless-link': async () => {
      const message = await passwordlessMessage('magic@example.com', 'link', { response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', state: 'app-state' });
      const link = decodeEntities(/(https?:\/\/\S+\/passwordless\/verify_redirect\?\S+)/.exec(message)?.[1] ?? '');
      const browser = new CookieClient(server.url);
      return landed(browser, await browser.get(link));
    },
    'upstream-oauth': async () => {
      const browser = new CookieClient(server.url);
      const start = await browser.get(webAuthorize({ connection: OIDC_CONNECTION }));
      expect(start.headers.get('location')).toMatch(new RegExp(`^${upstream.url}/`));
      const callback = await signInAtOidcProvider(start.headers.get('location') ?? '', 'alice');
      expect(callback).toMatch(new RegExp(`^${server.url}/login/callback\\?`));
      return landed(browser, await browser.get(callback));
    },
    'upstream-saml': async () => {
      const browser = new CookieClient(server.url);
      const start = await browser.get(webAuthorize({ connection: SAML_CONNECTION }));
      const { requestId, relayState } = authnRequestOf(start.headers.get('location') ?? '');
      const response = await saml.respond('carol@corp.example', requestId);
      return landed(browser, await browser.postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: response, RelayState: relayState }));
    },
    'idp-initiated-saml': async () => {
      const browser = new CookieClient(server.url);
      // `_resubmitted`: the re-post from our origin a browser makes of the provider's cross-site form post.
      const response = await saml.respond('dave@corp.example');
      return landed(browser, await browser.postForm(`/login/callback?connection=${SAML_CONNECTION}`, { SAMLResponse: response, _resubmitted: '1' }));
    },
    'password-grant': () =>
      token({ grant_type: 'password', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: fx.user.email, password: fx.user.password, ...offline() }),
    'password-realm-grant': () => token(passwordRealmForm(fx, offline())),
    'passwordless-otp-grant': async () => {
      const email = 'otp@example.com';
      const otp = /\b(\d{6})\b/.exec(await passwordlessMessage(email, 'code'))?.[1] ?? '';
      return token({ grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: email, otp, realm: EMAIL_CONNECTION, ...offline() });
    },
    'refresh-token-grant': async () => {
      // The refresh token comes from a password-realm sign-in (a trace of that path, before this one's).
      const first = await postJson(server, '/oauth/token', passwordRealmForm(fx, offline()));
      lastRefreshToken = String(first.json.refresh_token);
      return token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: lastRefreshToken });
    },
  };

  /** Drives `path` once; its trace is the one sign-in of that path the pipeline saw meanwhile. */
  async function drive(path: SignInPath): Promise<{ outcome: Outcome; trace: Trace }> {
    const from = traces.length;
    const outcome = await drivers[path]();
    const mine = traces.slice(from).filter((trace) => trace.path === path);
    expect(mine, `${path}: sign-ins the pipeline saw`).toHaveLength(1);
    return { outcome, trace: mine[0] as Trace };
  }

  it('each path passes its stages in order; the session or tokens exist at event-recorded and not before', async () => {
    for (const path of SIGN_IN_PATHS) {
      const { outcome, trace } = await drive(path);
      if (outcome.surface === 'browser') {
        expect([outcome.status, outcome.redirectedTo], path).toEqual([302, fx.web.callback]);
        expect(outcome.answer.error, `${path}: ${outcome.answer.error_description}`).toBeUndefined();
        expect(outcome.answer.code ?? outcome.answer.id_token, path).toBeTruthy();
        expect(outcome.answer.state, path).toBe('app-state');
        expect(outcome.sessionCookie, path).toBe(true);
      } else {
        expect(outcome.status, `${path}: ${JSON.stringify(outcome.body)}`).toBe(200);
        expect(outcome.body, path).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
      }
      expect(trace.stages, path).toEqual(PATH_STAGES[path].filter((stage) => stage !== 'session-and-tokens'));
      // Every stage before session-and-tokens saw what the user held before; event-recorded (the last) saw more.
      const [before, ...rest] = trace.issued;
      const atEvent = rest.pop();
      expect(rest.every((issued) => issued === before), path).toBe(true);
      expect(atEvent, path).not.toBe(before);
    }
    // A path added to the list is driven here or this fails (the drivers' type asks for one per path too).
    expect(new Set(traces.map((trace) => trace.path))).toEqual(new Set(SIGN_IN_PATHS));
  });

  it("the user's roles are at hand in the stages (a post-login Action's event.authorization.roles), read once per sign-in", async () => {
    const api = managementApi(server, 'socket');
    const roles: string[] = [];
    for (const name of ['Viewer', 'Editor']) {
      const created = await api('POST', '/roles', { name });
      roles.push(String(created.body.id));
    }
    expect((await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/roles`, { roles })).status).toBe(204);
    const seen: string[][] = [];
    const signIn = server.registry.userGrants.signIn;
    signIn.use('post-login-actions', async (attempt) => {
      if (attempt.path === 'password-realm-grant') seen.push(await signIn.roleNames(attempt as SignInAttempt), await signIn.roleNames(attempt as SignInAttempt));
    });
    await drive('password-realm-grant');
    expect(seen).toEqual([['Editor', 'Viewer'], ['Editor', 'Viewer']]);
    for (const id of roles) await api('DELETE', `/roles/${id}`);
  });

  it("a stage's refusal answers each path's error and issues nothing", async () => {
    for (const path of SIGN_IN_PATHS) {
      refusing = path;
      let driven;
      try {
        driven = await drive(path);
      } finally {
        refusing = undefined;
      }
      const { outcome, trace } = driven;
      if (outcome.surface === 'browser') {
        // The application hears access_denied at its redirect URI, with its state; no code, tokens or session.
        expect([outcome.status, outcome.redirectedTo], path).toEqual([302, fx.web.callback]);
        expect(outcome.answer, path).toEqual({ error: 'access_denied', error_description: REFUSAL, state: 'app-state' });
        expect(outcome.sessionCookie, path).toBe(false);
      } else {
        expect([outcome.status, outcome.body], path).toEqual([403, { error: 'access_denied', error_description: REFUSAL }]);
      }
      expect(trace.stages.at(-1), path).toBe('post-login-actions');
      expect(await issuedTo(trace.userId), path).toBe(trace.issued[0]);
    }
    // The refused refresh left the client its refresh token: it is still the one in force.
    const again = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: lastRefreshToken });
    expect(again.status).toBe(200);
  });
});
