import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/services/passwords.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const STRONG = 'Str0ng-enough!';

/** A password set through the Management API meets its connection's policy, as a signup's does. */
describe.each(DIALECTS)('Management API users: password policy (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server, 'socket');
    for (const connection of [
      // No passwordPolicy: the platform's default, `good`.
      { name: 'default-policy', strategy: 'auth0' },
      { name: 'low-policy', strategy: 'auth0', options: { passwordPolicy: 'low' } },
      {
        name: 'strict-words',
        strategy: 'auth0',
        options: { passwordPolicy: 'low', password_dictionary: { enable: true, dictionary: ['latchkey-rocks'] }, password_no_personal_info: { enable: true } },
      },
    ]) {
      expect((await api('POST', '/connections', connection)).status).toBe(201);
    }
  });
  afterAll(async () => server?.close());

  const weak = { status: 400, body: { statusCode: 400, error: 'Bad Request', message: 'PasswordStrengthError: Password is too weak', errorCode: 'invalid_body' } };
  const nobody = async (email: string) => expect((await api('GET', `/users-by-email?email=${encodeURIComponent(email)}`)).body).toEqual([]);

  it('POST refuses a password the connection policy refuses, and creates nothing', async () => {
    expect(await api('POST', '/users', { connection: 'default-policy', email: 'weak@example.com', password: 'password123' })).toMatchObject(weak);
    await nobody('weak@example.com');
    expect(await api('POST', '/users', { connection: 'default-policy', email: 'short@example.com', password: 'Aa1!' })).toMatchObject(weak);
    expect((await api('POST', '/users', { connection: 'default-policy', email: 'fine@example.com', password: STRONG })).status).toBe(201);
    // The same password is fine where the policy is `low`.
    expect((await api('POST', '/users', { connection: 'low-policy', email: 'weak@example.com', password: 'password123' })).status).toBe(201);
  });

  it('POST applies the dictionary and personal-information rules with the platform names', async () => {
    const create = (email: string, password: string, extra: Record<string, unknown> = {}) => api('POST', '/users', { connection: 'strict-words', email, password, ...extra });
    const common = { status: 400, body: { message: 'PasswordDictionaryError: Password is too common', errorCode: 'invalid_body' } };
    expect(await create('common@example.com', 'qwerty123')).toMatchObject(common);
    expect(await create('listed@example.com', 'Latchkey-Rocks')).toMatchObject(common);
    const personal = { status: 400, body: { message: 'PasswordNoUserInfoError: Password contains user information', errorCode: 'invalid_body' } };
    expect(await create('bartholomew@example.com', 'my-bartholomew-pw')).toMatchObject(personal);
    expect(await create('someone@example.com', 'hello-Cordelia-7', { given_name: 'Cordelia' })).toMatchObject(personal);
    await nobody('someone@example.com');
    expect((await create('someone@example.com', 'unrelated-words-7', { given_name: 'Cordelia' })).status).toBe(201);
  });

  it('PATCH with a password applies the policy (judged with the patched profile) and leaves the user unchanged on refusal', async () => {
    const created = await api('POST', '/users', { connection: 'default-policy', email: 'patch@example.com', password: STRONG });
    const path = `/users/${encodeURIComponent(String(created.body.user_id))}`;
    const hash = async () => String((await server.registry.storage.users.get(server.registry.tenantId, String(created.body.user_id)))?.columns.password_hash);
    const before = await hash();
    expect(await api('PATCH', path, { password: 'password123', name: 'Renamed' })).toMatchObject(weak);
    expect(await hash()).toBe(before);
    expect((await api('GET', path)).body).toMatchObject({ name: 'patch@example.com' });
    expect((await api('PATCH', path, { password: 'An0ther-str0ng!' })).status).toBe(200);
    expect(await verifyPassword('An0ther-str0ng!', await hash())).toBe(true);

    const strict = await api('POST', '/users', { connection: 'strict-words', email: 'nina@example.com', password: 'unrelated-words-8' });
    const strictPath = `/users/${encodeURIComponent(String(strict.body.user_id))}`;
    // The name arrives in the same patch as the password that is built on it.
    expect(await api('PATCH', strictPath, { password: 'ilove-Zebulon-9', given_name: 'Zebulon' })).toMatchObject({ status: 400, body: { message: 'PasswordNoUserInfoError: Password contains user information' } });
    expect((await api('PATCH', strictPath, { password: 'ilove-Zebulon-9' })).status).toBe(200);
  });
});
