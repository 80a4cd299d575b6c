import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { postJson } from './support/json-post.js';
import { DIALECTS } from './support/services.js';

const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';

describe.each(DIALECTS)('passwordless e-mail and SMS over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  const emailConnection = `email-${dialect}`;
  const smsConnection = `sms-${dialect}`;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    for (const [name, strategy] of [[emailConnection, 'email'], [smsConnection, 'sms']] as const) {
      expect((await api('POST', '/connections', { name, strategy, enabled_clients: [fx.web.clientId, fx.spa.clientId] })).status).toBe(201);
    }
    const grants = ['authorization_code', 'implicit', 'refresh_token', 'password', 'http://auth0.com/oauth/grant-type/password-realm', OTP_GRANT];
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: grants })).status).toBe(200);
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { cross_origin_authentication: true })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(server, path, body, headers);

  const start = (body: Record<string, unknown>) => post('/passwordless/start', { client_id: fx.web.clientId, ...body });
  const otpToken = (username: string, otp: string, realm = emailConnection) =>
    post('/oauth/token', { grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username, otp, realm, scope: 'openid email' });

  /** The newest outbox message to an address (no SMTP in tests: the outbox is the delivery). */
  async function lastMessageTo(to: string): Promise<string> {
    const entry = (await server.registry.outbox.recent(200)).find((candidate) => candidate.message.to === to);
    if (!entry) throw new Error(`no message to ${to}`);
    return entry.channel === 'email' ? entry.message.text : entry.message.body;
  }
  const codeIn = (message: string) => /\b(\d{6})\b/.exec(message)?.[1] ?? '';

  it('an account an administrator linked into another user signs in as that user, and its address is verified on itself', async () => {
    const email = `linked-otp-${dialect}@example.com`;
    const first = await start({ connection: emailConnection, email, send: 'code' });
    expect(first.status).toBe(200);
    const created = await otpToken(email, codeIn(await lastMessageTo(email)));
    const secondaryId = String(decodeJwt(String(created.json.id_token)).sub);
    const linked = await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/identities`, { provider: 'email', user_id: secondaryId.slice('email|'.length) });
    expect(linked.status).toBe(201);
    const loginsBefore = Number((await api('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).body.logins_count);

    expect((await start({ connection: emailConnection, email, send: 'code' })).status).toBe(200);
    const again = await otpToken(email, codeIn(await lastMessageTo(email)));
    expect(again.status, again.text).toBe(200);
    expect(decodeJwt(String(again.json.id_token)).sub).toBe(fx.user.userId);
    expect((await api('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).body.logins_count).toBe(loginsBefore + 1);
    const secondary = await server.registry.storage.users.get(server.registry.tenantId, secondaryId);
    expect(secondary?.columns.linked_to).toBe(fx.user.userId);
    expect(secondary?.data).toMatchObject({ email_verified: true });
    expect(secondary?.data.linked_to).toBeUndefined();
  });

  it('e-mails a 6-digit code that the token endpoint accepts once, creating the user on first login', async () => {
    const email = `Otp.User-${dialect}@Example.com`;
    const started = await start({ connection: emailConnection, email, send: 'code' });
    expect(started.status, started.text).toBe(200);
    expect(started.json).toEqual({ _id: expect.any(String), email: email.toLowerCase(), email_verified: false });
    const message = await lastMessageTo(email.toLowerCase());
    const code = codeIn(message);
    expect(code).toMatch(/^\d{6}$/);
    expect(message).toContain('expires in 5 minutes');
    const live = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'otp', {}, new Date().toISOString());
    const mine = live.find((artifact) => (artifact.data as { identifier: string }).identifier === email.toLowerCase());
    expect(new Date(mine?.expiresAt ?? 0).getTime() - new Date(mine?.createdAt ?? 0).getTime()).toBe(300_000);
    expect(JSON.stringify(mine?.data)).not.toContain(code);

    const tokens = await otpToken(email, code);
    expect(tokens.status, tokens.text).toBe(200);
    const claims = decodeJwt(String(tokens.json.id_token));
    expect(claims).toMatchObject({ email: email.toLowerCase(), email_verified: true });
    expect(String(claims.sub)).toMatch(/^email\|/);
    const users = (await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`)).body as unknown as { user_id: string; identities: { connection: string }[] }[];
    expect(users.map((user) => user.identities[0]?.connection)).toEqual([emailConnection]);

    const again = await otpToken(email, code);
    expect([again.status, again.json.error, again.json.error_description]).toEqual([403, 'invalid_grant', 'Wrong email or verification code.']);
    // A second login finds the same user.
    await start({ connection: emailConnection, email, send: 'code' });
    const second = await otpToken(email, codeIn(await lastMessageTo(email.toLowerCase())));
    expect(decodeJwt(String(second.json.id_token)).sub).toBe(claims.sub);
  });

  it('voids a code after three wrong guesses, and a new start replaces the old code', async () => {
    const email = `guesser-${dialect}@example.com`;
    await start({ connection: emailConnection, email, send: 'code' });
    const code = codeIn(await lastMessageTo(email));
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await otpToken(email, wrong)).json.error_description).toBe('Wrong email or verification code.');
    expect((await otpToken(email, wrong)).json.error_description).toBe('Wrong email or verification code.');
    expect((await otpToken(email, wrong)).json.error_description).toBe("You've reached the maximum number of attempts. Please try to login again.");
    expect((await otpToken(email, code)).status).toBe(403);

    // Concurrent guesses are counted one by one: exactly one of them hits the limit.
    await start({ connection: emailConnection, email, send: 'code' });
    const raced = codeIn(await lastMessageTo(email));
    const guesses = await Promise.all(Array.from({ length: 6 }, () => otpToken(email, raced === '000000' ? '111111' : '000000')));
    expect(guesses.filter((guess) => String(guess.json.error_description).includes('maximum number of attempts'))).toHaveLength(1);
    expect((await otpToken(email, raced)).status).toBe(403);

    await start({ connection: emailConnection, email, send: 'code' });
    const first = codeIn(await lastMessageTo(email));
    await start({ connection: emailConnection, email, send: 'code' });
    const latest = codeIn(await lastMessageTo(email));
    if (first !== latest) expect((await otpToken(email, first)).status).toBe(403);
    expect((await otpToken(email, latest)).status).toBe(200);
  });

  it('a magic link signs the browser in at the application once; /passwordless/verify checks without spending', async () => {
    const email = `magic-${dialect}@example.com`;
    const authParams = { response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid email', state: 'magic-state', nonce: 'magic-nonce' };
    expect((await post('/passwordless/start', { client_id: fx.spa.clientId, connection: emailConnection, email, send: 'link', authParams })).status).toBe(200);
    const message = await lastMessageTo(email);
    const link = decodeEntities(/(https?:\/\/\S+\/passwordless\/verify_redirect\?\S+)/.exec(message)?.[1] ?? '');
    const code = new URL(link).searchParams.get('verification_code') ?? '';

    const verify = (verification_code: string) => post('/passwordless/verify', { client_id: fx.spa.clientId, connection: emailConnection, email, verification_code });
    expect((await verify(code === '123456' ? '654321' : '123456')).status).toBe(403);
    expect((await verify(code)).json).toEqual({});

    const browser = new CookieClient(server.url);
    const answered = await browser.get(link);
    expect(answered.status).toBe(302);
    const fragment = new URLSearchParams(new URL(answered.headers.get('location') ?? 'x:').hash.slice(1));
    expect(fragment.get('state')).toBe('magic-state');
    expect(decodeJwt(fragment.get('id_token') ?? '')).toMatchObject({ email, nonce: 'magic-nonce', aud: fx.spa.clientId });
    expect(browser.cookies.has('lk_session')).toBe(true);
    const replay = await new CookieClient(server.url).get(link);
    const replayFragment = new URLSearchParams(new URL(replay.headers.get('location') ?? 'x:').hash.slice(1));
    expect([replayFragment.get('error'), replayFragment.get('error_description'), replayFragment.get('state')]).toEqual(['access_denied', 'Wrong email or verification code.', 'magic-state']);
  });

  it('a tampered magic link (a parameter given twice) gets the error page and spends nothing', async () => {
    const email = `tampered-${dialect}@example.com`;
    const authParams = { response_type: 'token id_token', redirect_uri: fx.spa.callback, scope: 'openid email', state: 'tampered', nonce: 'tampered-nonce' };
    expect((await post('/passwordless/start', { client_id: fx.spa.clientId, connection: emailConnection, email, send: 'link', authParams })).status).toBe(200);
    const link = decodeEntities(/(https?:\/\/\S+\/passwordless\/verify_redirect\?\S+)/.exec(await lastMessageTo(email))?.[1] ?? '');
    for (const twice of ['verification_code', 'email', 'redirect_uri']) {
      const url = new URL(link);
      url.searchParams.append(twice, url.searchParams.get(twice) ?? '');
      const browser = new CookieClient(server.url);
      const refused = await browser.get(url.href);
      expect(refused.status, twice).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await refused.text()).toContain('Each parameter may be given once, as text.');
      expect(browser.cookies.has('lk_session')).toBe(false);
    }
    // The code was not spent: the untouched link still signs in.
    const signedIn = await new CookieClient(server.url).get(link);
    expect(signedIn.status).toBe(302);
    expect(new URLSearchParams(new URL(signedIn.headers.get('location') ?? 'x:').hash.slice(1)).get('id_token')).toBeTruthy();
  });

  it('texts a code to a phone number, usable for cross-origin login', async () => {
    const phone = dialect === 'sqlite' ? '+15550001111' : '+15550002222';
    const started = await post('/passwordless/start', { client_id: fx.spa.clientId, connection: smsConnection, phone_number: phone, send: 'code' });
    expect(started.json).toEqual({ _id: expect.any(String), phone_number: phone, phone_verified: false });
    const code = codeIn(await lastMessageTo(phone));
    const co = (otp: string) =>
      post('/co/authenticate', { client_id: fx.spa.clientId, credential_type: OTP_GRANT, username: phone, otp, realm: smsConnection }, { origin: fx.spa.origin });
    const wrong = await co(code === '000000' ? '111111' : '000000');
    expect([wrong.status, wrong.json.error, wrong.json.error_description]).toEqual([403, 'access_denied', 'Wrong phone number or verification code.']);
    const answer = await co(code);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(['co_id', 'co_verifier', 'login_ticket']);
    const users = (await api('GET', `/users?q=&connection=${smsConnection}`)).body as unknown as { phone_number: string; phone_verified: boolean }[];
    expect(users).toEqual(expect.arrayContaining([expect.objectContaining({ phone_number: phone, phone_verified: true })]));
  });

  it('refuses bad requests with the platform codes', async () => {
    expect((await start({ connection: 'nope', email: 'a@example.com' })).json.error).toBe('bad.connection');
    expect((await start({ connection: fx.connection, email: 'a@example.com' })).json.error).toBe('bad.connection');
    expect((await start({ connection: emailConnection, email: 'not-an-address' })).json.error).toBe('bad.email');
    expect((await start({ connection: smsConnection, phone_number: '5550001111' })).json.error).toBe('bad.phone_number');
    expect((await start({ connection: emailConnection, email: 'a@example.com', phone_number: '+15550001111' })).json.error).toBe('invalid_request');
    expect((await start({ connection: smsConnection, phone_number: '+15550003333', send: 'link' })).json.error).toBe('invalid_request');
    expect((await start({ connection: emailConnection, phone_number: `field-${dialect}@example.com` })).json.error_description).toBe('This connection sends to an email.');
    // Refused starts leave no code behind.
    const codes = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'otp', {}, new Date().toISOString());
    const identifiers = codes.map((artifact) => (artifact.data as { identifier: string }).identifier);
    expect(identifiers).not.toContain('+15550003333');
    expect(identifiers).not.toContain(`field-${dialect}@example.com`);
    expect((await start({ connection: emailConnection, email: 'a@example.com', send: 'fax' })).status).toBe(400);
    expect((await post('/passwordless/start', { client_id: 'nope', connection: emailConnection, email: 'a@example.com' })).json.error).toBe('invalid_client');

    const closed = `closed-${dialect}`;
    expect((await api('POST', '/connections', { name: closed, strategy: 'email', options: { disable_signup: true }, enabled_clients: [fx.web.clientId] })).status).toBe(201);
    const refused = await start({ connection: closed, email: `stranger-${dialect}@example.com`, send: 'code' });
    expect([refused.status, refused.json.error]).toEqual([403, 'access_denied']);
    const member = await api('POST', '/users', { connection: closed, email: `member-${dialect}@example.com` });
    expect(member.status).toBe(201);
    expect((await start({ connection: closed, email: `member-${dialect}@example.com`, send: 'code' })).status).toBe(200);

    const blocked = `blocked-otp-${dialect}@example.com`;
    expect((await api('POST', '/users', { connection: emailConnection, email: blocked, blocked: true })).status).toBe(201);
    await start({ connection: emailConnection, email: blocked, send: 'code' });
    const denied = await otpToken(blocked, codeIn(await lastMessageTo(blocked)));
    expect([denied.status, denied.json.error]).toEqual([401, 'unauthorized']);
  });
});
