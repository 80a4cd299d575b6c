import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { postJson } from './support/json-post.js';
import { DIALECTS } from './support/services.js';

const STRONG = 'Str0ng-enough!';

describe.each(DIALECTS)('/dbconnections signup and change_password over a real socket (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ReturnType<typeof managementApi>;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
  });
  afterAll(async () => server?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(server, path, body, headers);

  const signup = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    post('/dbconnections/signup', { client_id: fx.spa.clientId, connection: fx.connection, ...body }, headers);

  /** A database connection with the given options, enabled for the single-page application. */
  async function connectionWith(name: string, options: Record<string, unknown>) {
    const created = await api('POST', '/connections', { name: `${name}-${dialect}`, strategy: 'auth0', options, enabled_clients: [fx.spa.clientId] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return `${name}-${dialect}`;
  }

  const usersWithEmail = async (email: string) => (await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`)).body as unknown as unknown[];

  it('creates a user with profile fields and metadata, who can then log in', async () => {
    const email = `New.Person-${dialect}@Example.com`;
    const created = await signup({ email, password: STRONG, given_name: 'New', family_name: 'Person', user_metadata: { plan: 'gold' }, state: 'ignored' });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({ _id: expect.any(String), email: email.toLowerCase(), email_verified: false, given_name: 'New', family_name: 'Person', user_metadata: { plan: 'gold' } });
    const stored = await api('GET', `/users/${encodeURIComponent(`auth0|${String(created.json._id)}`)}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ email: email.toLowerCase(), given_name: 'New', user_metadata: { plan: 'gold' } });
    const login = await post('/oauth/token', {
      grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: email,
      password: STRONG,
      realm: fx.connection,
      scope: 'openid',
    });
    expect(login.status, login.text).toBe(200);

    const again = await signup({ email, password: STRONG });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ name: 'BadRequestError', code: 'user_exists', description: 'The user already exists.', statusCode: 400 });
  });

  it('reports a weak password rule by rule, in the platform format, for each policy', async () => {
    const cases: [string, Record<string, unknown>, string, string[]][] = [
      ['none', { passwordPolicy: 'none' }, 'x', []],
      ['low', { passwordPolicy: 'low' }, 'abcde', ['lengthAtLeast']],
      ['fair', { passwordPolicy: 'fair' }, 'abcdefgh1', ['shouldContain']],
      ['good', { passwordPolicy: 'good' }, 'abcdefgh1', ['containsAtLeast']],
      ['excellent', { passwordPolicy: 'excellent' }, 'Abcdefggg1!', ['identicalChars']],
      ['minimum', { passwordPolicy: 'low', password_complexity_options: { min_length: 12 } }, 'abcdefghijk', ['lengthAtLeast']],
    ];
    for (const [label, options, password, failing] of cases) {
      const connection = await connectionWith(`policy-${label}`, options);
      const answer = await signup({ connection, email: `policy-${label}-${dialect}@example.com`, password });
      if (failing.length === 0) {
        expect(answer.status, `${label}: ${answer.text}`).toBe(200);
        continue;
      }
      expect(answer.status, label).toBe(400);
      expect(answer.json).toMatchObject({ name: 'PasswordStrengthError', code: 'invalid_password', message: 'Password is too weak', statusCode: 400 });
      const rules = (answer.json.description as { rules: { code: string; verified: boolean }[]; verified: boolean }).rules;
      expect(rules.filter((rule) => !rule.verified).map((rule) => rule.code), label).toEqual(failing);
      expect(String(answer.json.policy)).toMatch(/^\* At least \d+ characters in length/);
      expect(await usersWithEmail(`policy-${label}-${dialect}@example.com`), label).toEqual([]);
    }
    const good = await signup({ connection: await connectionWith('policy-good-detail', {}), email: `detail-${dialect}@example.com`, password: 'alllowercase' });
    expect(good.json.policy).toBe(
      '* At least 8 characters in length\n* Contain at least 3 of the following 4 types of characters:\n * lower case letters (a-z)\n * upper case letters (A-Z)\n * numbers (i.e. 0-9)\n * special characters (e.g. !@#$%^&*)',
    );
  });

  it('refuses common, listed and personal passwords when the connection asks to', async () => {
    const connection = await connectionWith('dictionary', {
      passwordPolicy: 'none',
      password_dictionary: { enable: true, dictionary: ['Latchkey-Rocks'] },
      password_no_personal_info: { enable: true },
    });
    const common = await signup({ connection, email: `common-${dialect}@example.com`, password: 'qwerty123' });
    expect(common.json).toEqual({ name: 'PasswordDictionaryError', code: 'password_dictionary_error', message: 'Password is too common', description: 'Password is too common', statusCode: 400 });
    const listed = await signup({ connection, email: `listed-${dialect}@example.com`, password: 'latchkey-rocks' });
    expect(listed.json.code).toBe('password_dictionary_error');
    const personal = await signup({ connection, email: `marguerite.${dialect}@example.com`, password: `xx-marguerite.${dialect}-99` });
    expect(personal.json).toMatchObject({ name: 'PasswordNoUserInfoError', code: 'password_no_user_info_error', statusCode: 400 });
    const byName = await signup({ connection, email: `n-${dialect}@example.com`, password: 'my-Bartholomew-pw', name: 'Bartholomew Smith' });
    expect(byName.json.code).toBe('password_no_user_info_error');
    expect((await signup({ connection, email: `fine-${dialect}@example.com`, password: 'unrelated-words-7' })).status).toBe(200);
    // The same password is fine where the options are off.
    expect((await signup({ email: `common-ok-${dialect}@example.com`, password: 'Qwerty123' })).status).toBe(200);
  });

  it('asks for a username where the connection requires one, and keeps usernames unique', async () => {
    const connection = await connectionWith('usernames', { requires_username: true });
    const missing = await signup({ connection, email: `u1-${dialect}@example.com`, password: STRONG });
    expect(missing.json).toEqual({ name: 'BadRequestError', code: 'invalid_signup', description: 'Missing username: this connection requires one.', statusCode: 400 });
    const first = await signup({ connection, email: `u1-${dialect}@example.com`, password: STRONG, username: 'jane_doe' });
    expect(first.status, first.text).toBe(200);
    expect(first.json.username).toBe('jane_doe');
    const taken = await signup({ connection, email: `u2-${dialect}@example.com`, password: STRONG, username: 'jane_doe' });
    expect(taken.json).toMatchObject({ code: 'username_exists', statusCode: 400 });
    expect(await usersWithEmail(`u2-${dialect}@example.com`)).toEqual([]);
  });

  it('answers bad requests, unknown applications and connections and disabled signup in the platform shape', async () => {
    const noEmail = await post('/dbconnections/signup', { client_id: fx.spa.clientId, connection: fx.connection, password: STRONG });
    expect(noEmail.status).toBe(400);
    expect(noEmail.json).toMatchObject({ name: 'BadRequestError', code: 'invalid_signup', statusCode: 400 });
    expect(String(noEmail.json.description)).toContain('email');
    const badEmail = await signup({ email: 'not-an-address', password: STRONG });
    expect(badEmail.json).toMatchObject({ code: 'invalid_signup', description: 'The e-mail address is not valid.' });
    const tooMuchMetadata = await signup({ email: `meta-${dialect}@example.com`, password: STRONG, user_metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) });
    expect(tooMuchMetadata.status).toBe(400);
    expect(tooMuchMetadata.json.code).toBe('invalid_signup');
    const unknownClient = await post('/dbconnections/signup', { client_id: 'nope', connection: fx.connection, email: `x-${dialect}@example.com`, password: STRONG });
    expect(unknownClient.json).toEqual({ name: 'BadRequestError', code: 'invalid_client', description: 'Unknown client.', statusCode: 400 });
    const unknownConnection = await signup({ connection: 'nope', email: `x-${dialect}@example.com`, password: STRONG });
    expect(unknownConnection.json).toMatchObject({ code: 'connection_not_found', statusCode: 400 });
    const notEnabled = await connectionWith('not-enabled', {});
    expect((await api('PATCH', `/connections/${await connectionId(notEnabled)}`, { enabled_clients: [] })).status).toBe(200);
    expect((await signup({ connection: notEnabled, email: `x-${dialect}@example.com`, password: STRONG })).json.code).toBe('connection_not_found');
    const closed = await connectionWith('closed', { disable_signup: true });
    const refused = await signup({ connection: closed, email: `x-${dialect}@example.com`, password: STRONG });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ name: 'UnauthorizedError', code: 'unauthorized', description: 'Public signup is disabled for this connection.', statusCode: 403 });
    expect(await usersWithEmail(`x-${dialect}@example.com`)).toEqual([]);
  });

  async function connectionId(name: string) {
    const all = (await api('GET', '/connections')).body as unknown as { id: string; name: string }[];
    return all.find((connection) => connection.name === name)?.id ?? '';
  }

  it('answers CORS from the application origin and refuses other origins in plain text', async () => {
    const preflight = await fetch(`${server.url}/dbconnections/signup`, {
      method: 'OPTIONS',
      headers: { origin: fx.spa.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, auth0-client' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
    const allowed = await signup({ email: `cors-${dialect}@example.com`, password: STRONG }, { origin: fx.spa.origin });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
    const foreign = await signup({ email: `cors2-${dialect}@example.com`, password: STRONG }, { origin: 'https://evil.example.net' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await usersWithEmail(`cors2-${dialect}@example.com`)).toEqual([]);
  });

  it('change_password answers alike for known and unknown addresses and issues a reset ticket only for a user', async () => {
    const email = `forgetful-${dialect}@example.com`;
    const created = await signup({ email, password: STRONG });
    const userId = `auth0|${String(created.json._id)}`;
    const known = await post('/dbconnections/change_password', { client_id: fx.spa.clientId, connection: fx.connection, email: email.toUpperCase() });
    const unknown = await post('/dbconnections/change_password', { client_id: fx.spa.clientId, connection: fx.connection, email: `nobody-${dialect}@example.com` });
    expect(known.status).toBe(200);
    expect(known.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(known.text).toBe("We've just sent you an email to reset your password.");
    expect(unknown.text).toBe(known.text);
    const now = new Date().toISOString();
    const tickets = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'password_reset', { subject: userId }, now);
    expect(tickets).toHaveLength(1);
    expect(new Date(tickets[0]?.expiresAt ?? 0).getTime()).toBeGreaterThan(Date.now());
    const wrongConnection = await post('/dbconnections/change_password', { client_id: fx.spa.clientId, connection: 'nope', email });
    expect(wrongConnection.json).toMatchObject({ code: 'connection_not_found', statusCode: 400 });
    const missing = await post('/dbconnections/change_password', { client_id: fx.spa.clientId, connection: fx.connection });
    expect(missing.status).toBe(400);
    expect(String(missing.json.description)).toContain('email');
  });
});
