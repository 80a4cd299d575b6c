import { SignJWT, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, signInOnHostedPage, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const REDIRECT_SECRET = 'a-secret-shared-with-the-profile-app-0123456789';
const PROFILE_APP = 'https://my-app.exampleco.com';

/**
 * The platform's "redirect with Actions" example, unmodified: the action signs a session token, sends the user to
 * another site with it, and on the way back validates the site's own token (`my_token`) and puts what it carries in
 * the ID token.
 */
const PROGRESSIVE_PROFILING = `
exports.onExecutePostLogin = async (event, api) => {
  const YOUR_AUTH0_DOMAIN = event.secrets.YOUR_AUTH0_DOMAIN || event.request.hostname
  // Craft a signed session token
  const token = api.redirect.encodeToken({
    secret: event.secrets.MY_REDIRECT_SECRET,
    expiresInSeconds: 60,
    payload: {
      // Custom claims to be added to the token
      email: event.user.email,
      externalUserId: 1234,
      continue_uri: \`https://\${YOUR_AUTH0_DOMAIN}/continue\`
    },
  });

  // Send the user to https://my-app.exampleco.com along
  // with a \`session_token\` query string param including
  // the email.
  api.redirect.sendUserTo("https://my-app.exampleco.com", {
    query: { session_token: token }
  });
};

exports.onContinuePostLogin = async (event, api) => {
  const payload = api.redirect.validateToken({
    secret: event.secrets.MY_REDIRECT_SECRET,
    tokenParameterName: 'my_token',
  });
  // use the data encoded in the token, such as:
  api.idToken.setCustomClaim('color', payload.favorite_color);
}
`;

/** A second action, bound after the redirecting one: it runs only once the user is back. */
const AFTER = `exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('https://example.com/after', 'ran'); };`;

/**
 * `api.redirect.sendUserTo` and `/continue` over a real socket on both dialects: the user leaves with the action's
 * signed token and the transaction's `state`, comes back with the other site's token, the action resumes in
 * `onContinuePostLogin`, the next action runs, and the application gets its code; only the browser that left may
 * come back, once; a forged token ends the login with `server_error` at the redirect URI.
 */
describe.each(DIALECTS)('post-login redirects and /continue (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;

  async function deployed(name: string, code: string, secrets: { name: string; value: string }[] = []): Promise<string> {
    const created = await api('POST', '/actions/actions', { name, supported_triggers: [{ id: 'post-login', version: 'v3' }], code, secrets });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = String(created.body.id);
    expect((await api('POST', `/actions/actions/${id}/deploy`)).status).toBe(202);
    return id;
  }

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    const redirecting = await deployed('Progressive profiling', PROGRESSIVE_PROFILING, [{ name: 'MY_REDIRECT_SECRET', value: REDIRECT_SECRET }]);
    const after = await deployed('After the redirect', AFTER);
    const bound = await api('PATCH', '/actions/triggers/post-login/bindings', {
      bindings: [
        { ref: { type: 'action_id', value: redirecting }, display_name: 'profile' },
        { ref: { type: 'action_id', value: after }, display_name: 'after' },
      ],
    });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  }, 60_000);
  afterAll(async () => server?.close());

  const authorizeUrl = () =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid email', state: 'app-state' })}`;


  /** What the profile app does: reads the action's token, then signs its own answer for `/continue`. */
  async function profileAppAnswer(at: URL, secret = REDIRECT_SECRET) {
    expect(at.origin).toBe(PROFILE_APP);
    const state = at.searchParams.get('state') ?? '';
    const { payload } = await jwtVerify(at.searchParams.get('session_token') ?? '', new TextEncoder().encode(REDIRECT_SECRET), { algorithms: ['HS256'] });
    const answer = await new SignJWT({ state, favorite_color: 'blue' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(PROFILE_APP)
      .setSubject(String(payload.sub))
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    return { state, payload, continueUrl: `/continue?${new URLSearchParams({ state, my_token: answer })}` };
  }

  it('sends the user away with a signed token and the state, resumes on their return, runs the next action and answers the application', async () => {
    const browser = new CookieClient(server.url);
    const away = await signInOnHostedPage(browser, server, fx, authorizeUrl());
    const { state, payload, continueUrl } = await profileAppAnswer(away);
    // The action's token: its payload, bound to this login (its state) and user, issued by the tenant's domain.
    expect(payload).toMatchObject({ email: fx.user.email, externalUserId: 1234, sub: fx.user.userId, state, iss: new URL(server.url).hostname });
    expect(String(payload.continue_uri)).toBe(`https://${new URL(server.url).hostname}/continue`);

    // Another browser (no transaction cookie) cannot come back in the user's place.
    expect((await new CookieClient(server.url).get(continueUrl)).status).toBe(400);

    const back = await browser.get(continueUrl);
    expect(back.status).toBe(302);
    const callback = new URL(back.headers.get('location') ?? '');
    expect(callback.origin + callback.pathname).toBe(fx.web.callback);
    expect(callback.searchParams.get('state')).toBe('app-state');
    const code = callback.searchParams.get('code');
    expect(code, callback.href).toBeTruthy();

    // Once only.
    expect((await browser.get(continueUrl)).status).toBe(400);

    const tokens = await browser.postForm('/oauth/token', {
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: fx.web.callback,
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
    });
    expect(tokens.status).toBe(200);
    const idToken = String(((await tokens.json()) as { id_token: string }).id_token);
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ color: 'blue', 'https://example.com/after': 'ran', sub: fx.user.userId });
  });

  it('ends the login with server_error at the redirect URI when the other site\'s token does not verify', async () => {
    const browser = new CookieClient(server.url);
    const { continueUrl } = await profileAppAnswer(await signInOnHostedPage(browser, server, fx, authorizeUrl()), 'a-different-secret-that-the-action-does-not-know');
    const back = await browser.get(continueUrl);
    expect(back.status).toBe(302);
    const callback = new URL(back.headers.get('location') ?? '');
    expect(callback.searchParams.get('error')).toBe('server_error');
    expect(callback.searchParams.get('error_description')).toMatch(/Progressive profiling.*session token is invalid/i);
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('refuses /continue without a state or for a login that is not waiting', async () => {
    const browser = new CookieClient(server.url);
    expect((await browser.get('/continue')).status).toBe(400);
    expect((await browser.get('/continue?state=unknown-state')).status).toBe(400);
  });
});
