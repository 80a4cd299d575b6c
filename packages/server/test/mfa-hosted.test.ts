import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';
import { freshCode, totp } from './support/totp.js';

const MFA_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';
const PASSWORD = 'A hosted second factor 123!';


const screenOf = (html: string) => /data-screen="([^"]+)"/.exec(html)?.[1];
const textCode = (html: string) => decodeEntities(/<code id="mfa-text-code">([^<]*)<\/code>/.exec(html)?.[1] ?? '');
const errorOf = (html: string) => /<div id="page-error"[^>]*><p>([^<]*)<\/p>/.exec(html)?.[1];

/**
 * The hosted multi-factor screens over a real socket, on both dialects: a login that needs a second factor goes to
 * them (policy, acr_values, an Action's api.multifactor.enable, an SSO session stepping up), enrolls an authenticator
 * app (QR code and text), a phone or the e-mail address, shows a recovery code once, challenges the factor used last,
 * remembers the browser for 30 days until invalidated, takes the recovery code, and gives up after five wrong codes.
 * Tokens carry amr (pwd, mfa, otp) and the multi-factor acr.
 */
describe.each(DIALECTS)('hosted MFA screens (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  const used = new Set<string>();

  async function newUser(name: string): Promise<{ email: string; id: string }> {
    const email = `${name}-${dialect}@hosted-mfa.example`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: PASSWORD, email_verified: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { email, id: String(created.body.user_id) };
  }

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid email offline_access', state: 'st', ...extra }).toString()}`;
  const at = (response: Response) => new URL(response.headers.get('location') ?? '', server.url);
  const local = (url: URL) => `${url.pathname}${url.search}`;

  /** /authorize (prompt=login: the browser may hold a session), then the login page with the password: where next. */
  async function passwordLogin(browser: CookieClient, email: string, extra: Record<string, string> = {}): Promise<URL> {
    const start = await browser.get(authorizeUrl({ prompt: 'login', ...extra }));
    const loginPage = at(start);
    const html = await (await browser.get(local(loginPage))).text();
    return at(await browser.postForm(local(loginPage), { state: inputValue(html, 'state') ?? '', username: email, password: PASSWORD }));
  }

  /** GETs a hosted page, following our own redirects (never the application's callback). */
  async function open(browser: CookieClient, url: URL): Promise<{ url: URL; html: string; status: number }> {
    let current = url;
    for (let hop = 0; hop < 5; hop += 1) {
      const response = await browser.get(local(current));
      if (response.status === 302 || response.status === 303) {
        current = at(response);
        if (current.origin !== server.url) return { url: current, html: '', status: response.status };
        continue;
      }
      return { url: current, html: await response.text(), status: response.status };
    }
    throw new Error('too many redirects');
  }

  const post = (browser: CookieClient, page: { url: URL; html: string }, form: Record<string, string>) =>
    browser.postForm(local(page.url), { state: inputValue(page.html, 'state') ?? '', ...form });

  /** Redeems the code the application got: the ID token's claims. */
  async function tokensOf(callback: URL): Promise<Record<string, unknown>> {
    expect(`${callback.origin}${callback.pathname}`, callback.href).toBe(fx.web.callback);
    const code = callback.searchParams.get('code');
    expect(code, callback.search).toEqual(expect.any(String));
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: fx.web.callback, client_id: fx.web.clientId, client_secret: fx.web.clientSecret }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return decodeJwt(String(body.id_token));
  }

  async function lastCodeTo(to: string): Promise<string> {
    const entry = (await server.registry.outbox.recent(200)).find((candidate) => candidate.message.to === to);
    if (!entry) throw new Error(`no message to ${to}`);
    const text = entry.channel === 'email' ? entry.message.text : entry.message.body;
    return /\b(\d{6})\b/.exec(text)?.[1] ?? '';
  }

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    for (const factor of ['otp', 'sms', 'email', 'recovery-code']) expect((await api('PUT', `/guardian/factors/${factor}`, { enabled: true })).status).toBe(200);
    expect((await api('PUT', '/guardian/policies', ['all-applications'])).status).toBe(200);
  }, 60_000);
  afterAll(async () => server?.close());

  it('enrolls an authenticator app with a recovery code, challenges it, remembers the browser until invalidated, and takes the recovery code', async () => {
    const user = await newUser('app');
    const browser = new CookieClient(server.url);
    const options = await open(browser, await passwordLogin(browser, user.email));
    expect(screenOf(options.html)).toBe('mfa-begin-enroll-options');
    expect(options.url.pathname).toBe('/u/mfa-begin-enroll-options');
    for (const factor of ['otp', 'sms', 'email']) expect(options.html).toContain(`name="action" value="${factor}"`);
    // Only the first factor's screens: the password cannot be posted again meanwhile.
    expect((await browser.postForm(`/u/login${options.url.search}`, { state: options.url.searchParams.get('state') ?? '', username: user.email, password: PASSWORD })).status).toBe(302);

    const qr = await open(browser, at(await post(browser, options, { action: 'otp' })));
    expect(screenOf(qr.html)).toBe('mfa-otp-enrollment-qr');
    expect(qr.html).toMatch(/<img id="mfa-qr" src="data:image\/png;base64,[A-Za-z0-9+/=]+"/);
    const asText = await open(browser, at(await post(browser, qr, { action: 'toggle-view' })));
    expect(screenOf(asText.html)).toBe('mfa-otp-enrollment-code');
    const secret = textCode(asText.html);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // Showing the screen again shows the same pending secret.
    expect(textCode((await open(browser, asText.url)).html)).toBe(secret);

    const wrong = await post(browser, asText, { code: totp(secret) === '123456' ? '654321' : '123456' });
    expect(wrong.status).toBe(400);
    expect(errorOf(await wrong.text())).toBe('This code is not valid.');
    const recovery = await open(browser, at(await post(browser, asText, { code: freshCode(secret, used) })));
    expect(screenOf(recovery.html)).toBe('mfa-recovery-code-enrollment');
    const unconfirmed = await post(browser, recovery, {});
    expect(unconfirmed.status).toBe(400);
    const unconfirmedHtml = await unconfirmed.text();
    expect(errorOf(unconfirmedHtml)).toBe('Confirm that you have recorded the code.');
    // The code last shown is the one that works.
    const recoveryCode = textCode(unconfirmedHtml);
    expect(recoveryCode).toMatch(/^[A-Z0-9]{24}$/);
    const claims = await tokensOf(at(await post(browser, { ...recovery, html: unconfirmedHtml }, { saved: 'on' })));
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
    expect(claims.acr).toBe(MFA_ACR);

    // The next login challenges the authenticator app; "remember this browser" is asked for.
    const challenge = await open(browser, await passwordLogin(browser, user.email));
    expect(screenOf(challenge.html)).toBe('mfa-otp-challenge');
    expect(challenge.html).toContain('name="rememberBrowser"');
    expect((await tokensOf(at(await post(browser, challenge, { code: freshCode(secret, used), rememberBrowser: 'true' })))).amr).toEqual(expect.arrayContaining(['mfa']));
    // Remembered: the password alone signs in (amr still says mfa: this browser gave a second factor within 30 days).
    const remembered = await open(browser, await passwordLogin(browser, user.email));
    expect((await tokensOf(remembered.url)).amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
    // Another browser is not remembered.
    const other = new CookieClient(server.url);
    expect(screenOf((await open(other, await passwordLogin(other, user.email))).html)).toBe('mfa-otp-challenge');

    expect((await api('POST', `/users/${encodeURIComponent(user.id)}/multifactor/actions/invalidate-remember-browser`, {})).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await open(browser, await passwordLogin(browser, user.email));
    expect(screenOf(again.html)).toBe('mfa-otp-challenge');
    // Another method: the recovery code, then a new one to record.
    const choices = await open(browser, at(await post(browser, again, { action: 'pick-authenticator' })));
    expect(screenOf(choices.html)).toBe('mfa-login-options');
    expect(choices.html).toContain('value="recovery-code"');
    const recoveryChallenge = await open(browser, at(await post(browser, choices, { action: 'recovery-code' })));
    expect(screenOf(recoveryChallenge.html)).toBe('mfa-recovery-code-challenge');
    const newCode = await open(browser, at(await post(browser, recoveryChallenge, { code: recoveryCode })));
    expect(screenOf(newCode.html)).toBe('mfa-recovery-code-challenge-new-code');
    const next = textCode(newCode.html);
    expect(next).toMatch(/^[A-Z0-9]{24}$/);
    expect(next).not.toBe(recoveryCode);
    expect((await tokensOf(at(await post(browser, newCode, { saved: 'on' })))).amr).toEqual(expect.arrayContaining(['mfa']));

    await server.registry.events.flush();
    const types = ((await api('GET', `/logs?q=${encodeURIComponent(`user_id:"${user.id}"`)}&per_page=100`)).body as unknown as { type: string }[]).map((event) => event.type);
    for (const type of ['gd_start_enroll', 'gd_enrollment_complete', 'gd_auth_failed', 'gd_auth_succeed', 'gd_recovery_succeed', 's']) expect(types, type).toContain(type);
  });

  it('enrolls a phone and the e-mail address with codes from the outbox, and challenges them later', async () => {
    const phoneUser = await newUser('phone');
    const browser = new CookieClient(server.url);
    const options = await open(browser, await passwordLogin(browser, phoneUser.email));
    const enrollment = await open(browser, at(await post(browser, options, { action: 'sms' })));
    expect(screenOf(enrollment.html)).toBe('mfa-sms-enrollment');
    const refused = await post(browser, enrollment, { phone: '555-0100' });
    expect([refused.status, errorOf(await refused.text())]).toEqual([400, 'Enter a phone number in international format, e.g. +15550100.']);
    const phone = `+1555${dialect === 'sqlite' ? '0' : '1'}${String(Date.now()).slice(-6)}`;
    const smsChallenge = await open(browser, at(await post(browser, enrollment, { phone })));
    expect(screenOf(smsChallenge.html)).toBe('mfa-sms-challenge');
    expect(smsChallenge.html).toContain(`XXXXXXXX${phone.slice(-4)}`);
    const recovery = await open(browser, at(await post(browser, smsChallenge, { code: await lastCodeTo(phone) })));
    expect(screenOf(recovery.html)).toBe('mfa-recovery-code-enrollment');
    expect((await tokensOf(at(await post(browser, recovery, { saved: 'on' })))).amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'sms']));
    // Later: the phone is challenged, a code sent when the screen is shown; a resend sends another.
    const later = await open(browser, await passwordLogin(browser, phoneUser.email));
    expect(screenOf(later.html)).toBe('mfa-sms-challenge');
    const first = await lastCodeTo(phone);
    await open(browser, at(await post(browser, later, { action: 'resend-code' })));
    const resent = await lastCodeTo(phone);
    const stale = await post(browser, later, { code: first === resent ? '000000' : first });
    expect(stale.status).toBe(400);
    expect((await tokensOf(at(await post(browser, later, { code: resent })))).amr).toEqual(expect.arrayContaining(['mfa', 'sms']));

    const mailUser = await newUser('mail');
    const mailBrowser = new CookieClient(server.url);
    const mailOptions = await open(mailBrowser, await passwordLogin(mailBrowser, mailUser.email));
    const mailChallenge = await open(mailBrowser, at(await post(mailBrowser, mailOptions, { action: 'email' })));
    expect(screenOf(mailChallenge.html)).toBe('mfa-email-challenge');
    expect(mailChallenge.html).toContain(`${mailUser.email.slice(0, 1)}***@hosted-mfa.example`);
    const mailRecovery = await open(mailBrowser, at(await post(mailBrowser, mailChallenge, { code: await lastCodeTo(mailUser.email) })));
    expect((await tokensOf(at(await post(mailBrowser, mailRecovery, { saved: 'on' })))).amr).toEqual(expect.arrayContaining(['mfa']));
  });

  it('gives up after five wrong codes: the application gets access_denied and no session starts', async () => {
    const user = await newUser('guess');
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    expect((await api('POST', `/users/${encodeURIComponent(user.id)}/authentication-methods`, { type: 'totp', totp_secret: secret })).status).toBe(201);
    const browser = new CookieClient(server.url);
    const challenge = await open(browser, await passwordLogin(browser, user.email));
    expect(screenOf(challenge.html)).toBe('mfa-otp-challenge');
    const window = new Set([totp(secret), totp(secret, Date.now() + 30_000), totp(secret, Date.now() - 30_000)]);
    const wrongs = ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777', '888888'].filter((code) => !window.has(code)).slice(0, 5);
    expect(wrongs).toHaveLength(5);
    for (const code of wrongs.slice(0, 4)) {
      const refused = await post(browser, challenge, { code });
      expect([refused.status, errorOf(await refused.text())]).toEqual([400, 'This code is not valid.']);
    }
    const fifth = at(await post(browser, challenge, { code: wrongs[4] ?? '' }));
    expect(`${fifth.origin}${fifth.pathname}`).toBe(fx.web.callback);
    expect([fifth.searchParams.get('error'), fifth.searchParams.get('code')]).toEqual(['access_denied', null]);
    // The login is over: its screens take no more codes, not even the right one.
    expect((await post(browser, challenge, { code: totp(secret) })).status).toBe(400);
    // No session was started.
    const silent = at(await browser.get(authorizeUrl({ prompt: 'none' })));
    expect(silent.searchParams.get('error')).toBe('login_required');
  });

  it('stops a cross-origin login (its login ticket) for the factor too, and answers the application after it', async () => {
    const user = await newUser('ticket');
    const secret = 'MFRGGZDFMZTWQ2LKMFRGGZDFMZTWQ2LK';
    expect((await api('POST', `/users/${encodeURIComponent(user.id)}/authentication-methods`, { type: 'totp', totp_secret: secret })).status).toBe(201);
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
    const browser = new CookieClient(server.url);
    const ticket = await browser.postJson(
      '/co/authenticate',
      { client_id: fx.spa.clientId, credential_type: 'http://auth0.com/oauth/grant-type/password-realm', username: user.email, password: PASSWORD, realm: fx.connection },
      { origin: fx.spa.origin },
    );
    const body = (await ticket.json()) as { login_ticket?: string };
    expect(ticket.status, JSON.stringify(body)).toBe(200);
    const authorize = `/authorize?${new URLSearchParams({ client_id: fx.spa.clientId, response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid', state: 'co', nonce: 'n-1', realm: fx.connection, login_ticket: body.login_ticket ?? '' }).toString()}`;
    const stopped = at(await browser.get(authorize));
    expect(stopped.pathname).toBe('/u/mfa');
    // The ticket is spent: presenting it again does not skip the factor.
    expect(new URLSearchParams(at(await new CookieClient(server.url).get(authorize)).hash.slice(1)).get('error')).toBe('access_denied');
    const challenge = await open(browser, stopped);
    expect(screenOf(challenge.html)).toBe('mfa-otp-challenge');
    const answered = at(await post(browser, challenge, { code: freshCode(secret, used) }));
    expect(`${answered.origin}${answered.pathname}`).toBe(fx.spa.callback);
    const fragment = new URLSearchParams(answered.hash.slice(1));
    expect(fragment.get('state')).toBe('co');
    expect(decodeJwt(fragment.get('id_token') ?? '').amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
  });

  it('steps an SSO session up for acr_values, and asks for the factor an Action enables', async () => {
    expect((await api('PUT', '/guardian/policies', [])).status).toBe(200);
    try {
      const user = await newUser('stepup');
      const secret = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';
      expect((await api('POST', `/users/${encodeURIComponent(user.id)}/authentication-methods`, { type: 'totp', totp_secret: secret })).status).toBe(201);
      const browser = new CookieClient(server.url);
      const plain = await tokensOf(await passwordLogin(browser, user.email));
      expect(plain.amr).toBeUndefined();
      const silently = at(await browser.get(authorizeUrl({ prompt: 'none', acr_values: MFA_ACR })));
      expect([silently.searchParams.get('error'), silently.searchParams.get('error_description')]).toEqual(['login_required', 'Multifactor authentication required']);
      // The session's user gives the factor without the password.
      const stepUp = await open(browser, at(await browser.get(authorizeUrl({ acr_values: MFA_ACR }))));
      expect(screenOf(stepUp.html)).toBe('mfa-otp-challenge');
      const stepped = await tokensOf(at(await post(browser, stepUp, { code: freshCode(secret, used) })));
      expect(stepped.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
      expect(stepped.acr).toBe(MFA_ACR);
      // The session now has the factor: silent authentication with acr_values succeeds.
      expect((await tokensOf(at(await browser.get(authorizeUrl({ prompt: 'none', acr_values: MFA_ACR }))))).amr).toEqual(expect.arrayContaining(['mfa']));

      const action = await api('POST', '/actions/actions', {
        name: `hosted-mfa-${dialect}`,
        supported_triggers: [{ id: 'post-login', version: 'v3' }],
        code: "exports.onExecutePostLogin = async (event, api) => { if (event.user.email.startsWith('enabled-')) { api.multifactor.enable('any'); api.idToken.setCustomClaim('https://example.com/ran', true); } };",
        deploy: true,
      });
      expect(action.status, JSON.stringify(action.body)).toBe(201);
      expect((await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [{ ref: { type: 'action_id', value: action.body.id } }] })).status).toBe(200);
      try {
        const enabled = await newUser('enabled');
        expect((await api('POST', `/users/${encodeURIComponent(enabled.id)}/authentication-methods`, { type: 'totp', totp_secret: secret })).status).toBe(201);
        const actionBrowser = new CookieClient(server.url);
        const asked = await open(actionBrowser, await passwordLogin(actionBrowser, enabled.email));
        expect(screenOf(asked.html), asked.url.href).toBe('mfa-otp-challenge');
        const claims = await tokensOf(at(await post(actionBrowser, asked, { code: freshCode(secret, used) })));
        expect(claims.amr).toEqual(expect.arrayContaining(['mfa', 'otp']));
        // The action's token changes are kept (it is not run a second time).
        expect(claims['https://example.com/ran']).toBe(true);
        // The session has the factor now: silent authentication meets the action's demand.
        const silent = at(await actionBrowser.get(authorizeUrl({ prompt: 'none' })));
        expect(silent.searchParams.get('code')).toEqual(expect.any(String));
      } finally {
        await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [] });
      }
    } finally {
      await api('PUT', '/guardian/policies', ['all-applications']);
    }
  });
});
