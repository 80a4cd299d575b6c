import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleId } from '../src/crypto/handles.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { postJson } from './support/json-post.js';
import { DIALECTS } from './support/services.js';
import { totp } from './support/totp.js';

const REALM_GRANT = 'http://auth0.com/oauth/grant-type/password-realm';
const MFA_OTP = 'http://auth0.com/oauth/grant-type/mfa-otp';
const MFA_OOB = 'http://auth0.com/oauth/grant-type/mfa-oob';
const MFA_RECOVERY = 'http://auth0.com/oauth/grant-type/mfa-recovery-code';
const MFA_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';
const PASSWORD = 'A multi-factor password 123!';

/**
 * Multi-factor authentication without a browser, over a real socket on both dialects: a password grant answers
 * mfa_required, then /mfa/associate, /mfa/challenge and the MFA grants with TOTP (codes computed here), SMS and
 * e-mail codes (read from the local outbox), recovery codes; replayed steps, wrong codes, expired and stolen
 * mfa_tokens refused; the policy, acr_values and an Action's api.multifactor.enable as triggers.
 */
describe.each(DIALECTS)('MFA API and grants (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let other: { clientId: string; clientSecret: string };

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(server, path, body, headers);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const grants = [REALM_GRANT, 'password', 'refresh_token', 'authorization_code', MFA_OTP, MFA_OOB, MFA_RECOVERY];

  async function newUser(name: string): Promise<string> {
    const created = await api('POST', '/users', { connection: fx.connection, email: `${name}-${dialect}@mfa.example`, password: PASSWORD });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return `${name}-${dialect}@mfa.example`;
  }
  const login = (username: string, extra: Record<string, string> = {}, client: { clientId: string; clientSecret: string } = fx.web) =>
    post('/oauth/token', { grant_type: REALM_GRANT, client_id: client.clientId, client_secret: client.clientSecret, username, password: PASSWORD, realm: fx.connection, scope: 'openid email', ...extra });
  async function mfaToken(username: string): Promise<string> {
    const answer = await login(username);
    expect(answer.status, answer.text).toBe(403);
    expect(answer.json).toEqual({ error: 'mfa_required', error_description: 'Multifactor authentication required', mfa_token: expect.any(String) });
    return String(answer.json.mfa_token);
  }
  const grant = (grantType: string, fields: Record<string, string>, client: { clientId: string; clientSecret: string } = fx.web) =>
    post('/oauth/token', { grant_type: grantType, client_id: client.clientId, client_secret: client.clientSecret, ...fields });
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
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: grants })).status).toBe(200);
    const created = await api('POST', '/clients', { name: 'Other application', app_type: 'regular_web', grant_types: grants, callbacks: ['https://other.example/cb'] });
    other = { clientId: String(created.body.client_id), clientSecret: String(created.body.client_secret) };
    const connection = (await api('GET', `/connections?name=${fx.connection}`)).body as unknown as { id: string; enabled_clients?: string[] }[];
    const connectionId = String(connection[0]?.id);
    await api('PATCH', `/clients/${other.clientId}`, { grant_types: grants });
    await api('PATCH', `/connections/${connectionId}`, { enabled_clients: [fx.web.clientId, fx.spa.clientId, other.clientId] });
    for (const factor of ['otp', 'sms', 'email', 'recovery-code']) expect((await api('PUT', `/guardian/factors/${factor}`, { enabled: true })).status).toBe(200);
    expect((await api('PUT', '/guardian/policies', ['all-applications'])).status).toBe(200);
  }, 60_000);
  afterAll(async () => server?.close());

  it('enrolls an authenticator app, logs in with its codes once per step, and uses and renews the recovery code', async () => {
    const username = await newUser('totp');
    const token = await mfaToken(username);
    const listed = await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(token) });
    expect([listed.status, await listed.json()]).toEqual([200, []]);

    const associated = await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token));
    expect(associated.status, associated.text).toBe(200);
    expect(associated.json).toMatchObject({ authenticator_type: 'otp', secret: expect.stringMatching(/^[A-Z2-7]{32}$/), barcode_uri: expect.stringMatching(/^otpauth:\/\/totp\//), recovery_codes: [expect.stringMatching(/^[A-Z0-9]{24}$/)] });
    const secret = String(associated.json.secret);
    const recoveryCode = String((associated.json.recovery_codes as string[])[0]);
    const pending = await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(token) });
    expect(await pending.json()).toEqual([{ id: expect.stringMatching(/^recovery-code\|dev_/), authenticator_type: 'recovery-code', active: false }, { id: expect.stringMatching(/^totp\|dev_/), authenticator_type: 'otp', active: false }]);

    const wrong = await grant(MFA_OTP, { mfa_token: token, otp: '000000' === totp(secret) ? '111111' : '000000' });
    expect([wrong.status, wrong.json]).toEqual([403, { error: 'invalid_grant', error_description: 'Invalid otp_code.' }]);
    const code = totp(secret);
    const signedIn = await grant(MFA_OTP, { mfa_token: token, otp: code });
    expect(signedIn.status, signedIn.text).toBe(200);
    const claims = decodeJwt(String(signedIn.json.id_token));
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'mfa', 'otp']));
    expect(claims.email).toBe(username);
    // The token is spent; the same code, the same step, is refused with a fresh token.
    expect((await grant(MFA_OTP, { mfa_token: token, otp: code })).json).toEqual({ error: 'invalid_grant', error_description: 'Malformed mfa_token' });
    const second = await mfaToken(username);
    expect((await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(second))).json).toEqual({ error: 'access_denied', error_description: 'User is already enrolled.' });
    expect((await post('/mfa/challenge', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, mfa_token: second, challenge_type: 'otp' })).json).toEqual({ challenge_type: 'otp' });
    expect((await grant(MFA_OTP, { mfa_token: second, otp: code })).json).toEqual({ error: 'invalid_grant', error_description: 'Invalid otp_code.' });
    // The next step's code (one step ahead is within the window) is accepted.
    expect((await grant(MFA_OTP, { mfa_token: second, otp: totp(secret, Date.now() + 30_000) })).status).toBe(200);

    const third = await mfaToken(username);
    const recovered = await grant(MFA_RECOVERY, { mfa_token: third, recovery_code: recoveryCode });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.json.recovery_code).toMatch(/^[A-Z0-9]{24}$/);
    expect(recovered.json.recovery_code).not.toBe(recoveryCode);
    expect(decodeJwt(String(recovered.json.id_token)).amr).toEqual(expect.arrayContaining(['mfa']));
    const fourth = await mfaToken(username);
    expect((await grant(MFA_RECOVERY, { mfa_token: fourth, recovery_code: recoveryCode })).json).toEqual({ error: 'invalid_grant', error_description: 'Invalid recovery_code.' });
    expect((await grant(MFA_RECOVERY, { mfa_token: fourth, recovery_code: String(recovered.json.recovery_code) })).status).toBe(200);

    await server.registry.events.flush();
    const userId = String(claims.sub);
    const types = ((await api('GET', `/logs?q=${encodeURIComponent(`user_id:"${userId}"`)}&per_page=100`)).body as unknown as { type: string }[]).map((event) => event.type);
    for (const type of ['mfar', 'gd_start_enroll', 'gd_enrollment_complete', 'gd_auth_failed', 'gd_auth_succeed', 'gd_recovery_succeed', 'gd_recovery_failed']) expect(types, type).toContain(type);
  });

  it('enrolls a phone and an e-mail address with codes from the outbox, and challenges them later', async () => {
    const phoneUser = await newUser('sms');
    const phone = `+1555${dialect === 'sqlite' ? '0101' : '0202'}999`;
    const token = await mfaToken(phoneUser);
    const associated = await post('/mfa/associate', { authenticator_types: ['oob'], oob_channels: ['sms'], phone_number: phone }, bearer(token));
    expect(associated.json).toMatchObject({ authenticator_type: 'oob', oob_channel: 'sms', binding_method: 'prompt', oob_code: expect.any(String), recovery_codes: [expect.any(String)] });
    const code = await lastCodeTo(phone);
    expect((await grant(MFA_OOB, { mfa_token: token, oob_code: String(associated.json.oob_code), binding_code: code === '000000' ? '111111' : '000000' })).json).toEqual({ error: 'invalid_grant', error_description: 'Invalid binding_code.' });
    const signedIn = await grant(MFA_OOB, { mfa_token: token, oob_code: String(associated.json.oob_code), binding_code: code });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(decodeJwt(String(signedIn.json.id_token)).amr).toEqual(expect.arrayContaining(['mfa', 'sms']));

    const later = await mfaToken(phoneUser);
    const authenticators = (await (await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(later) })).json()) as { id: string; authenticator_type: string; active: boolean; name?: string }[];
    const sms = authenticators.find((item) => item.authenticator_type === 'oob');
    expect(sms).toMatchObject({ active: true, oob_channel: 'sms', name: `XXXXXXXX${phone.slice(-4)}` });
    const challenged = await post('/mfa/challenge', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, mfa_token: later, challenge_type: 'oob', authenticator_id: sms?.id });
    expect(challenged.json).toEqual({ challenge_type: 'oob', oob_code: expect.any(String), binding_method: 'prompt' });
    expect((await grant(MFA_OOB, { mfa_token: later, oob_code: String(challenged.json.oob_code), binding_code: await lastCodeTo(phone) })).status).toBe(200);

    const mailUser = await newUser('email');
    const address = `codes-${dialect}@mfa.example`;
    const mailToken = await mfaToken(mailUser);
    const byMail = await post('/mfa/associate', { authenticator_types: ['oob'], oob_channels: ['email'], email: address }, bearer(mailToken));
    expect(byMail.json).toMatchObject({ authenticator_type: 'oob', oob_channel: 'email', oob_code: expect.any(String) });
    const mailed = await grant(MFA_OOB, { mfa_token: mailToken, oob_code: String(byMail.json.oob_code), binding_code: await lastCodeTo(address) });
    expect(mailed.status, mailed.text).toBe(200);
    expect(decodeJwt(String(mailed.json.id_token)).amr).toEqual(expect.arrayContaining(['mfa', 'email']));
  });

  it('removes an authenticator still being enrolled with the mfa_token, never a confirmed one', async () => {
    const username = await newUser('remove');
    const token = await mfaToken(username);
    const remove = (id: string) => fetch(`${server.url}/mfa/authenticators/${encodeURIComponent(id)}`, { method: 'DELETE', headers: bearer(token) });
    const first = await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token));
    expect((await remove(String(first.json.id))).status).toBe(204);
    // Associating again replaces an unfinished enrollment; the one finished is confirmed and stays.
    const second = await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token));
    expect((await grant(MFA_OTP, { mfa_token: token, otp: totp(String(second.json.secret)) })).status).toBe(200);
    const later = await mfaToken(username);
    const refused = await fetch(`${server.url}/mfa/authenticators/${encodeURIComponent(String(second.json.id))}`, { method: 'DELETE', headers: bearer(later) });
    expect([refused.status, await refused.json()]).toEqual([403, { error: 'access_denied', error_description: 'An mfa_token can only remove an authenticator that is not yet confirmed.' }]);
    const listed = (await (await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(later) })).json()) as { authenticator_type: string; active: boolean }[];
    expect(listed.filter((item) => item.authenticator_type === 'otp')).toEqual([{ id: second.json.id, authenticator_type: 'otp', active: true }]);
  });

  it('accepts a TOTP code once when two requests bring it at the same moment', async () => {
    const username = await newUser('race');
    const first = await mfaToken(username);
    const secret = String((await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(first))).json.secret);
    expect((await grant(MFA_OTP, { mfa_token: first, otp: totp(secret, Date.now() - 30_000) })).status).toBe(200);
    const [one, two] = [await mfaToken(username), await mfaToken(username)];
    const code = totp(secret);
    const answers = await Promise.all([grant(MFA_OTP, { mfa_token: one, otp: code }), grant(MFA_OTP, { mfa_token: two, otp: code })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403]);
  });

  it('gives up an mfa_token after five wrong codes, and counts them toward brute-force protection', async () => {
    const username = await newUser('brute');
    const token = await mfaToken(username);
    const secret = String((await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token))).json.secret);
    const right = totp(secret);
    const wrongCode = right === '123456' ? '654321' : '123456';
    for (let attempt = 1; attempt <= 4; attempt += 1) expect((await grant(MFA_OTP, { mfa_token: token, otp: wrongCode })).status).toBe(403);
    const fifth = await grant(MFA_OTP, { mfa_token: token, otp: wrongCode });
    expect([fifth.status, fifth.json.error]).toEqual([429, 'too_many_attempts']);
    expect((await grant(MFA_OTP, { mfa_token: token, otp: right })).json).toEqual({ error: 'invalid_grant', error_description: 'Malformed mfa_token' });
    await server.registry.events.flush();
    const logged = ((await api('GET', `/logs?q=${encodeURIComponent('type:gd_otp_rate_limit_exceed')}&per_page=10`)).body as unknown as { type: string }[]);
    expect(logged.length).toBeGreaterThan(0);
    // The wrong codes count for the user's second factor at this address, across mfa_tokens and whatever the
    // password's success: at the tenant's max_attempts (10) even the right code is refused.
    const again = await mfaToken(username);
    for (let attempt = 1; attempt <= 5; attempt += 1) await grant(MFA_OTP, { mfa_token: again, otp: wrongCode });
    const last = await mfaToken(username);
    const blocked = await grant(MFA_OTP, { mfa_token: last, otp: totp(secret, Date.now() + 30_000) });
    expect([blocked.status, blocked.json.error]).toEqual([429, 'too_many_attempts']);
  });

  it('refuses an expired mfa_token and one presented by another application', async () => {
    const username = await newUser('stolen');
    const token = await mfaToken(username);
    expect((await grant(MFA_OTP, { mfa_token: token, otp: '123456' }, other)).json).toEqual({ error: 'invalid_grant', error_description: 'Malformed mfa_token' });
    expect((await post('/mfa/associate', { client_id: other.clientId, authenticator_types: ['otp'] }, bearer(token))).json).toEqual({ error: 'invalid_grant', error_description: 'Malformed mfa_token' });
    expect((await post('/mfa/challenge', { client_id: other.clientId, client_secret: other.clientSecret, mfa_token: token })).json).toEqual({ error: 'invalid_grant', error_description: 'Malformed mfa_token' });
    // The rightful application still can.
    expect((await post('/mfa/associate', { client_id: fx.web.clientId, authenticator_types: ['otp'] }, bearer(token))).status).toBe(200);

    const id = handleId(server.registry.handleKey, token);
    const stored = await server.registry.storage.artifacts.get(server.registry.tenantId, 'mfa_token', id);
    expect(stored?.data).toMatchObject({ clientId: fx.web.clientId });
    expect(JSON.stringify(stored)).not.toContain(token);
    await server.registry.storage.artifacts.update(server.registry.tenantId, 'mfa_token', id, stored?.data, new Date().toISOString(), new Date(Date.now() + 1).toISOString());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await grant(MFA_OTP, { mfa_token: token, otp: '123456' });
    expect([expired.status, expired.json]).toEqual([401, { error: 'expired_token', error_description: 'mfa_token is expired' }]);
    expect((await fetch(`${server.url}/mfa/authenticators`, { headers: bearer('not-a-token') })).status).toBe(403);
  });

  it('lets an access token for the MFA API list the user\u2019s authenticators and remove a confirmed one', async () => {
    const username = await newUser('manage');
    const audience = `${server.url}/mfa/`;
    const first = await login(username, { audience, scope: 'openid read:authenticators remove:authenticators' });
    expect(first.status, first.text).toBe(403);
    const token = String(first.json.mfa_token);
    const associated = (await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token))).json;
    const signedIn = await grant(MFA_OTP, { mfa_token: token, otp: totp(String(associated.secret)) });
    expect(signedIn.status, signedIn.text).toBe(200);
    const accessToken = String(signedIn.json.access_token);
    expect(decodeJwt(accessToken)).toMatchObject({ aud: expect.arrayContaining([audience]), scope: 'openid read:authenticators remove:authenticators' });
    const listed = await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(accessToken) });
    const authenticators = (await listed.json()) as { id: string; authenticator_type: string; active: boolean }[];
    expect(listed.status).toBe(200);
    expect(authenticators.map((item) => [item.authenticator_type, item.active]).sort()).toEqual([['otp', true], ['recovery-code', true]]);
    const otp = authenticators.find((item) => item.authenticator_type === 'otp');
    // An mfa_token may not remove a confirmed factor; the MFA API's access token may.
    const another = await mfaToken(username);
    const refused = await fetch(`${server.url}/mfa/authenticators/${encodeURIComponent(otp?.id ?? '')}`, { method: 'DELETE', headers: bearer(another) });
    expect(refused.status).toBe(403);
    const removed = await fetch(`${server.url}/mfa/authenticators/${encodeURIComponent(otp?.id ?? '')}`, { method: 'DELETE', headers: bearer(accessToken) });
    expect(removed.status).toBe(204);
    expect(((await (await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(accessToken) })).json()) as unknown[]).length).toBe(1);
    // Without the scope the token is refused; so is a token for another audience, and a forged one.
    const recoveryCode = String((associated.recovery_codes as string[])[0]);
    const readOnly = await grant(MFA_RECOVERY, { mfa_token: String((await login(username, { audience, scope: 'read:authenticators' })).json.mfa_token), recovery_code: recoveryCode });
    expect(readOnly.status, readOnly.text).toBe(200);
    const readOnlyToken = bearer(String(readOnly.json.access_token));
    expect((await fetch(`${server.url}/mfa/authenticators`, { headers: readOnlyToken })).status).toBe(200);
    const notAllowed = await fetch(`${server.url}/mfa/authenticators/${encodeURIComponent(otp?.id ?? '')}`, { method: 'DELETE', headers: readOnlyToken });
    expect([notAllowed.status, ((await notAllowed.json()) as { error: string }).error]).toEqual([403, 'access_denied']);
    const userinfo = await grant(MFA_RECOVERY, { mfa_token: await mfaToken(username), recovery_code: String(readOnly.json.recovery_code) });
    const otherAudience = await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(String(userinfo.json.access_token)) });
    expect([otherAudience.status, ((await otherAudience.json()) as { error: string }).error]).toEqual([401, 'invalid_token']);
    const forged = await fetch(`${server.url}/mfa/authenticators`, { headers: bearer(`${accessToken.split('.').slice(0, 2).join('.')}.forged`) });
    expect([forged.status, ((await forged.json()) as { error: string }).error]).toEqual([401, 'invalid_token']);
  });

  it('requires a second factor when acr_values asks for it or an Action enables it, whatever the policy', async () => {
    expect((await api('PUT', '/guardian/policies', [])).status).toBe(200);
    try {
      const username = await newUser('acr');
      expect((await login(username)).status).toBe(200);
      const asked = await login(username, { acr_values: MFA_ACR });
      expect([asked.status, asked.json.error]).toEqual([403, 'mfa_required']);

      const action = await api('POST', '/actions/actions', {
        name: `mfa-${dialect}`,
        supported_triggers: [{ id: 'post-login', version: 'v3' }],
        code: "exports.onExecutePostLogin = async (event, api) => { if (event.user.email && event.user.email.startsWith('action-')) api.multifactor.enable('any'); };",
        deploy: true,
      });
      expect(action.status, JSON.stringify(action.body)).toBe(201);
      expect((await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [{ ref: { type: 'action_id', value: action.body.id } }] })).status).toBe(200);
      try {
        const actionUser = await newUser('action');
        const token = await mfaToken(actionUser);
        const secret = String((await post('/mfa/associate', { authenticator_types: ['otp'] }, bearer(token))).json.secret);
        // After the second factor the action runs again and sees it: the sign-in completes.
        const signedIn = await grant(MFA_OTP, { mfa_token: token, otp: totp(secret) });
        expect(signedIn.status, signedIn.text).toBe(200);
        expect((await login(username)).status).toBe(200);
      } finally {
        await api('PATCH', '/actions/triggers/post-login/bindings', { bindings: [] });
      }
    } finally {
      await api('PUT', '/guardian/policies', ['all-applications']);
    }
  });
});
