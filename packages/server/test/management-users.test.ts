import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/services/passwords.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { SAMPLE_FEDERATED_OPTIONS } from './support/connection-options.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const DB = 'Username-Password-Authentication';
const PASSWORD = 'correct horse battery staple 9';

describe.each(DIALECTS)('Management API users (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    for (const connection of [
      { name: DB, strategy: 'auth0' },
      { name: 'with-usernames', strategy: 'auth0', options: { requires_username: true } },
      { name: 'email', strategy: 'email' },
      { name: 'sms', strategy: 'sms' },
      { name: 'corporate', strategy: 'samlp', options: SAMPLE_FEDERATED_OPTIONS.samlp },
    ]) {
      expect((await api('POST', '/connections', connection)).status).toBe(201);
    }
  });
  afterAll(async () => server?.close());

  const row = (userId: string) => server.registry.storage.users.get(server.registry.tenantId, userId);
  const create = (body: Record<string, unknown>) => api('POST', '/users', { connection: DB, password: PASSWORD, ...body });

  it('creates a database user over the socket: auth0|<random> id, identities, Argon2id hash never returned', async () => {
    const socket = managementApi(server, 'socket');
    const created = await socket('POST', '/users', {
      connection: DB,
      email: 'Ada@Example.com',
      password: PASSWORD,
      given_name: 'Ada',
      family_name: 'Lovelace',
      user_metadata: { theme: 'dark' },
      app_metadata: { plan: 'pro' },
    });
    expect(created.status).toBe(201);
    const userId = String(created.body.user_id);
    expect(userId).toMatch(/^auth0\|[0-9a-f]{24}$/);
    expect(created.body).toMatchObject({
      email: 'ada@example.com',
      email_verified: false,
      name: 'ada@example.com',
      nickname: 'ada',
      picture: expect.stringMatching(/^https:\/\/s\.gravatar\.com\/avatar\/[0-9a-f]{32}/),
      given_name: 'Ada',
      family_name: 'Lovelace',
      blocked: false,
      logins_count: 0,
      user_metadata: { theme: 'dark' },
      app_metadata: { plan: 'pro' },
      identities: [{ connection: DB, provider: 'auth0', user_id: userId.slice('auth0|'.length), isSocial: false }],
    });
    expect(Date.parse(String(created.body.created_at))).not.toBeNaN();
    expect(JSON.stringify(created.body)).not.toContain('password');
    expect(JSON.stringify(created.body)).not.toContain('argon2');

    const stored = await row(userId);
    const hash = String(stored?.columns.password_hash);
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(await verifyPassword(PASSWORD, hash)).toBe(true);
    expect(JSON.stringify(stored?.data)).not.toContain(PASSWORD);

    // The id's `|` may arrive raw or percent-encoded.
    for (const path of [`/users/${userId}`, `/users/${encodeURIComponent(userId)}`, `/users/${userId.replace('|', '%7c')}`]) {
      const fetched = await socket('GET', path);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(created.body);
    }
    const second = await create({ email: 'ada2@example.com' });
    expect(String(second.body.user_id)).not.toBe(userId);
  });

  it('updates partially: metadata merges one level (null removes a key, {} clears), profile fields replace or clear', async () => {
    const created = await create({ email: 'merge@example.com', name: 'Merge', user_metadata: { theme: 'dark', lang: 'en', prefs: { a: 1, b: 2 } }, app_metadata: { plan: 'pro', roles: ['x'] } });
    const path = `/users/${encodeURIComponent(String(created.body.user_id))}`;
    const patched = await api('PATCH', path, { user_metadata: { lang: null, tz: 'UTC', prefs: { c: 3 } }, given_name: 'Grace', nickname: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Merge', given_name: 'Grace', user_metadata: { theme: 'dark', tz: 'UTC', prefs: { c: 3 } }, app_metadata: { plan: 'pro', roles: ['x'] } });
    expect(patched.body.user_metadata).not.toHaveProperty('lang');
    expect(patched.body).not.toHaveProperty('nickname');
    expect(Date.parse(String(patched.body.updated_at))).toBeGreaterThanOrEqual(Date.parse(String(created.body.updated_at)));

    expect((await api('PATCH', path, { app_metadata: { roles: null } })).body).toMatchObject({ app_metadata: { plan: 'pro' } });
    const cleared = await api('PATCH', path, { app_metadata: {} });
    expect(cleared.body.app_metadata).toEqual({});
    expect(cleared.body.user_metadata).toEqual({ theme: 'dark', tz: 'UTC', prefs: { c: 3 } });
    expect((await api('GET', path)).body).toEqual(cleared.body);
  });

  it('a new password is hashed again with Argon2id; a new e-mail is lower-cased and unverified', async () => {
    const created = await create({ email: 'change@example.com', email_verified: true });
    const userId = String(created.body.user_id);
    const before = String((await row(userId))?.columns.password_hash);
    expect((await api('PATCH', `/users/${userId}`, { password: 'another long passphrase 7' })).status).toBe(200);
    const after = String((await row(userId))?.columns.password_hash);
    expect(after.startsWith('$argon2id$')).toBe(true);
    expect(after).not.toBe(before);
    expect(await verifyPassword('another long passphrase 7', after)).toBe(true);
    expect(await verifyPassword(PASSWORD, after)).toBe(false);

    expect((await api('PATCH', `/users/${userId}`, { email: 'Changed@Example.com' })).body).toMatchObject({ email: 'changed@example.com', email_verified: false });
    expect((await row(userId))?.columns.email).toBe('changed@example.com');
    expect((await api('PATCH', `/users/${userId}`, { email: 'again@example.com', email_verified: true })).body).toMatchObject({ email_verified: true });
  });

  it('one e-mail per connection (409 The user already exists.), whatever its case; other connections may share it', async () => {
    const first = await create({ email: 'twin@example.com' });
    const conflict = { status: 409, body: { statusCode: 409, error: 'Conflict', message: 'The user already exists.', errorCode: 'auth0_idp_error' } };
    expect(await create({ email: 'TWIN@example.COM' })).toMatchObject(conflict);
    expect((await api('POST', '/users', { connection: 'email', email: 'twin@example.com' })).status).toBe(201);
    const other = await create({ email: 'other-twin@example.com' });
    expect(await api('PATCH', `/users/${String(other.body.user_id)}`, { email: 'Twin@example.com' })).toMatchObject(conflict);
    expect((await api('GET', `/users/${String(first.body.user_id)}`)).body).toMatchObject({ email: 'twin@example.com' });
  });

  it('users-by-email is case-insensitive and answers an array (empty when nobody matches)', async () => {
    const created = await create({ email: 'Lookup@Example.com' });
    const passwordless = await api('POST', '/users', { connection: 'email', email: 'lookup@example.com' });
    const found = await api('GET', '/users-by-email?email=LOOKUP%40example.COM');
    expect(found.status).toBe(200);
    expect(found.body.map((user) => user.user_id).sort()).toEqual([created.body.user_id, passwordless.body.user_id].sort());
    expect(found.body.find((user) => user.user_id === passwordless.body.user_id)).toMatchObject({ identities: [{ provider: 'email', connection: 'email' }] });
    expect((await api('GET', '/users-by-email?email=nobody%40example.com&fields=email&include_fields=true')).body).toEqual([]);
    expect(await api('GET', '/users-by-email')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it('usernames only where the connection requires them', async () => {
    expect(await create({ email: 'u1@example.com', username: 'charlie' })).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_body', message: 'Cannot set username for connection without requires_username' },
    });
    expect(await create({ connection: 'with-usernames', email: 'u2@example.com' })).toMatchObject({ status: 400, body: { message: `Payload validation error: 'Missing required property: username'.` } });
    const created = await create({ connection: 'with-usernames', email: 'u3@example.com', username: 'charlie' });
    expect(created).toMatchObject({ status: 201, body: { username: 'charlie' } });
    expect(await create({ connection: 'with-usernames', email: 'u4@example.com', username: 'charlie' })).toMatchObject({ status: 409, body: { message: 'The user already exists.' } });
    expect((await api('PATCH', `/users/${String(created.body.user_id)}`, { username: 'chuck' })).body).toMatchObject({ username: 'chuck' });
  });

  it('each connection kind asks for its own identifier; federated and unknown connections are refused', async () => {
    const phone = await api('POST', '/users', { connection: 'sms', phone_number: '+15551234567', phone_verified: true });
    expect(phone).toMatchObject({ status: 201, body: { phone_number: '+15551234567', phone_verified: true, identities: [{ provider: 'sms', connection: 'sms' }] } });
    expect(String(phone.body.user_id)).toMatch(/^sms\|[0-9a-f]{24}$/);
    expect(await api('POST', '/users', { connection: 'sms', email: 'no-phone@example.com' })).toMatchObject({ status: 400, body: { message: `Payload validation error: 'Missing required property: phone_number'.` } });
    expect(await api('POST', '/users', { connection: 'email', email: 'pw@example.com', password: PASSWORD })).toMatchObject({ status: 400, body: { message: 'Connection email does not use passwords.' } });
    expect(await api('PATCH', `/users/${encodeURIComponent(String(phone.body.user_id))}`, { password: PASSWORD })).toMatchObject({ status: 400, body: { message: 'Connection sms does not use passwords.' } });
    expect(await api('POST', '/users', { connection: 'corporate', email: 'sso@example.com' })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await create({ connection: 'nope', email: 'b@example.com' })).toMatchObject({ status: 400, body: { errorCode: 'inexistent_connection', message: 'The connection does not exist.' } });
    expect(await api('POST', '/users', { connection: DB, email: 'nopw@example.com' })).toMatchObject({ status: 400, body: { message: `Payload validation error: 'Missing required property: password'.` } });
    expect(await api('POST', '/users', { connection: DB, password: PASSWORD })).toMatchObject({ status: 400, body: { message: `Payload validation error: 'Missing required property: email'.` } });
    const user = await create({ email: 'mover@example.com' });
    expect(await api('PATCH', `/users/${String(user.body.user_id)}`, { connection: 'email' })).toMatchObject({ status: 400, body: { message: 'A user cannot be moved to another connection.' } });
  });

  it('404 for an unknown user on GET and PATCH; DELETE is 204, also when already gone', async () => {
    const missing = { status: 404, body: { statusCode: 404, error: 'Not Found', errorCode: 'inexistent_user', message: 'The user does not exist.' } };
    expect(await api('GET', '/users/auth0%7C000000000000000000000000')).toMatchObject(missing);
    expect(await api('PATCH', '/users/auth0|000000000000000000000000', { name: 'x' })).toMatchObject(missing);
    const created = await create({ email: 'doomed@example.com' });
    const path = `/users/${encodeURIComponent(String(created.body.user_id))}`;
    expect(await api('DELETE', path)).toMatchObject({ status: 204, body: undefined });
    expect((await api('GET', path)).status).toBe(404);
    expect(await row(String(created.body.user_id))).toBeUndefined();
    expect((await api('DELETE', path)).status).toBe(204);
  });

  it('lists with pagination and a connection filter; q (applied since issue 26) and search_engine are accepted', async () => {
    for (const n of [1, 2, 3]) await api('POST', '/users', { connection: 'sms', phone_number: `+1555000000${n}` });
    const all = await api('GET', '/users?include_totals=true&per_page=100&connection=sms');
    const total = Number(all.body.total);
    expect(total).toBeGreaterThanOrEqual(3);
    expect(all.body).toMatchObject({ start: 0, limit: 100 });
    const users = all.body.users as { user_id: string; identities: { connection: string }[] }[];
    expect(users.every((user) => user.identities[0]?.connection === 'sms')).toBe(true);
    const page = await api('GET', '/users?per_page=2&page=1&connection=sms&q=identities.provider%3Asms&search_engine=v3&sort=created_at%3A1&primary_order=true');
    expect(page.status).toBe(200);
    expect(page.body.map((user) => user.user_id)).toEqual(users.slice(2, 4).map((user) => user.user_id));
    // The query is applied, not ignored: no sms user has this e-mail.
    expect((await api('GET', '/users?connection=sms&q=email%3A%22x%22&search_engine=v3')).body).toEqual([]);
    expect(Number((await api('GET', '/users?include_totals=true&per_page=1')).body.total)).toBeGreaterThan(total);
    expect(await api('GET', '/users?per_page=0')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it.each([
    [{ email: 'a@example.com', password: PASSWORD }, `Payload validation error: 'Missing required property: connection' on property connection (Name of the connection the user belongs to.).`],
    [{ connection: DB, email: 'not-an-email', password: PASSWORD }, `Payload validation error: 'must match format "email"' on property email (E-mail address (stored lower-case).).`],
    [{ connection: DB, email: 'a@example.com', password: PASSWORD, verify_email: 'yes' }, `Payload validation error: 'Expected type boolean but found type string' on property verify_email`],
    [{ connection: DB, email: 'a@example.com', password: PASSWORD, user_id: 'chosen' }, `Payload validation error: 'Additional properties not allowed: user_id'`],
    [{ connection: DB, email: 'a@example.com', password: PASSWORD, user_metadata: 'x' }, `Payload validation error: 'Expected type object but found type string' on property user_metadata`],
    [{ connection: DB, email: 'a@example.com', password: '' }, `Payload validation error: 'String is too short (0 chars), minimum 1' on property password`],
    [{ connection: 'sms', phone_number: '5551234' }, `Payload validation error: 'String does not match the required format: "5551234"' on property phone_number`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('POST', '/users', body);
    expect(response).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(String(response.body.message).startsWith(message)).toBe(true);
  });

  it('accepts verify_email false, and rejects an empty PATCH', async () => {
    expect((await create({ email: 'quiet@example.com', verify_email: false })).status).toBe(201);
    const created = await create({ email: 'empty-patch@example.com' });
    expect(await api('PATCH', `/users/${String(created.body.user_id)}`, {})).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
  });

  it.each([
    ['GET', '/users', undefined, 'read:users'],
    ['GET', '/users-by-email?email=a%40example.com', undefined, 'read:users'],
    ['GET', '/users/auth0|x', undefined, 'read:users,read:current_user'],
    ['POST', '/users', { connection: 'sms', phone_number: '+15559999999' }, 'create:users'],
    ['PATCH', '/users/auth0|x', { name: 'x' }, 'update:users,update:current_user_metadata,create:current_user_metadata,delete:current_user_metadata'],
    ['DELETE', '/users/auth0|x', undefined, 'delete:users'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    expect(await api(method, path, body, await server.token('read:clients'))).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope.split(',')[0]))).status).not.toBe(403);
  });
});
