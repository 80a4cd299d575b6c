import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FEDERATED_OPTIONS } from './support/connection-options.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';

/**
 * Options the console's Authentication forms send, as the Management API checks them: a database connection's
 * password options, a passwordless connection's codes (`totp`, enforced at /passwordless/start) and a SAML
 * connection's sign-out URL. A refusal names what is wrong, in words an administrator can act on.
 */
describe.each(DIALECTS)('connection options checked when saved (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  /** Each bad value is refused on create and on update, naming the option; the connection keeps what it had. */
  async function expectRefused(strategy: string, id: string, base: Record<string, unknown>, cases: [Record<string, unknown>, string][]) {
    const before = (await api('GET', `/connections/${id}`)).body.options;
    for (const [bad, wording] of cases) {
      for (const [method, path, body] of [
        ['POST', '/connections', { name: `bad-${Math.random().toString(36).slice(2, 8)}`, strategy, options: { ...base, ...bad } }],
        ['PATCH', `/connections/${id}`, { options: { ...base, ...bad } }],
      ] as const) {
        const answer = await api(method, path, body);
        expect(answer, `${method} ${JSON.stringify(bad)}`).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' } });
        expect(String(answer.body.message)).toContain(wording);
      }
    }
    expect((await api('GET', `/connections/${id}`)).body.options).toEqual(before);
  }

  it("stores a database connection's password policy (over the socket) and refuses one it could not enforce", async () => {
    const policy = {
      passwordPolicy: 'excellent',
      password_complexity_options: { min_length: 12 },
      password_dictionary: { enable: true, dictionary: ['latchkey', 'acme'] },
      password_no_personal_info: { enable: true },
      requires_username: true,
    };
    const created = await managementApi(server, 'socket')('POST', '/connections', { name: `policy-${dialect}`, strategy: 'auth0', options: policy });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.options).toEqual(policy);
    const id = String(created.body.id);
    // The platform's exports carry null for a policy nobody set: stored as given, read as the default.
    const exported = { passwordPolicy: null, password_complexity_options: null, password_dictionary: null, password_no_personal_info: null };
    expect((await api('PATCH', `/connections/${id}`, { options: exported })).status).toBe(200);
    expect((await api('PATCH', `/connections/${id}`, { options: policy })).status).toBe(200);
    await expectRefused('auth0', id, {}, [
      [{ passwordPolicy: 'strong' }, 'passwordPolicy must be one of none, low, fair, good, excellent'],
      [{ password_complexity_options: { min_length: 0 } }, 'password_complexity_options.min_length must be a whole number from 1 to 128'],
      [{ password_complexity_options: { min_length: 7.5 } }, 'password_complexity_options.min_length must be a whole number from 1 to 128'],
      [{ password_complexity_options: { max_length: 20 } }, 'password_complexity_options.max_length is not a known property'],
      [{ password_complexity_options: 12 }, 'password_complexity_options must be an object'],
      [{ password_dictionary: { enable: 'yes' } }, 'password_dictionary.enable must be a boolean'],
      [{ password_dictionary: { enable: true, dictionary: 'acme' } }, 'password_dictionary.dictionary must be a list of at most 200 words of at most 50 characters'],
      [{ password_dictionary: { enable: true, dictionary: Array.from({ length: 201 }, (_, i) => `word${i}`) } }, 'at most 200 words'],
      [{ password_no_personal_info: { enable: true, fields: ['email'] } }, 'password_no_personal_info.fields is not a known property'],
    ]);
  });

  it("makes a passwordless connection's codes as long and as lasting as its totp says, and refuses bounds it cannot keep", async () => {
    const name = `otp-${dialect}`;
    const created = await api('POST', '/connections', { name, strategy: 'email', enabled_clients: [fx.web.clientId], options: { totp: { length: 8, time_step: 120 } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = String(created.body.id);
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { grant_types: ['authorization_code', OTP_GRANT] })).status).toBe(200);

    const email = `eight-${dialect}@example.com`;
    const started = await postJson(server, '/passwordless/start', { client_id: fx.web.clientId, connection: name, email, send: 'code' });
    expect(started.status, started.text).toBe(200);
    const entry = (await server.registry.outbox.recent(50)).find((candidate) => candidate.message.to === email);
    const message = entry?.channel === 'email' ? entry.message.text : '';
    const code = /\b(\d{8})\b/.exec(message)?.[1] ?? '';
    expect(code).toMatch(/^\d{8}$/);
    expect(message).toContain('expires in 2 minutes');
    const live = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'otp', {}, new Date().toISOString());
    const otp = live.find((artifact) => (artifact.data as { identifier: string }).identifier === email);
    expect(new Date(otp?.expiresAt ?? 0).getTime() - new Date(otp?.createdAt ?? 0).getTime()).toBe(120_000);
    const token = await postJson(server, '/oauth/token', { grant_type: OTP_GRANT, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: email, otp: code, realm: name });
    expect(token.status, token.text).toBe(200);

    await expectRefused('email', id, {}, [
      [{ totp: { length: 3 } }, 'totp.length must be a whole number of digits from 4 to 10'],
      [{ totp: { length: 11 } }, 'totp.length must be a whole number of digits from 4 to 10'],
      [{ totp: { time_step: 30 } }, 'totp.time_step must be a whole number of seconds from 60 to 86400'],
      [{ totp: { time_step: '300' } }, 'totp.time_step must be a whole number of seconds from 60 to 86400'],
      [{ totp: { window: 1 } }, 'totp.window is not a known property'],
      [{ totp: 6 }, 'totp must be an object'],
    ]);
    const sms = await api('POST', '/connections', { name: `sms-${dialect}`, strategy: 'sms', options: { totp: { length: 4 } } });
    expect(sms).toMatchObject({ status: 201, body: { options: { totp: { length: 4 } } } });
  });

  it("refuses a SAML connection's sign-out URL that is no URL, and keeps a good one", async () => {
    const base = SAMPLE_FEDERATED_OPTIONS.samlp ?? {};
    const created = await api('POST', '/connections', { name: `saml-${dialect}`, strategy: 'samlp', options: { ...base, signOutEndpoint: 'https://idp.example.com/slo' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.options).toMatchObject({ signOutEndpoint: 'https://idp.example.com/slo' });
    await expectRefused('samlp', String(created.body.id), base, [
      [{ signOutEndpoint: 'not a url' }, 'options.signOutEndpoint must be an https URL'],
      [{ signOutEndpoint: 'ftp://idp.example.com/slo' }, 'options.signOutEndpoint must be an https URL'],
    ]);
  });
});
