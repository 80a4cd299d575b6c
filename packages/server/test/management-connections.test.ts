import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, startTestServer, type TestServer } from './support/harness.js';
import { SAMPLE_FEDERATED_OPTIONS } from './support/connection-options.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';


describe.each(DIALECTS)('Management API connections (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  it('creates over the socket with the platform defaults; names are unique (409)', async () => {
    const socket = managementApi(server, 'socket');
    const created = await socket('POST', '/connections', { name: 'Username-Password-Authentication', strategy: 'auth0', options: { requires_username: true } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^con_[A-Za-z0-9]{16}$/),
      name: 'Username-Password-Authentication',
      strategy: 'auth0',
      options: { requires_username: true },
      enabled_clients: [],
      is_domain_connection: false,
      show_as_button: false,
      realms: ['Username-Password-Authentication'],
      metadata: {},
    });
    expect((await socket('GET', `/connections/${String(created.body.id)}`)).body).toEqual(created.body);
    expect(await socket('POST', '/connections', { name: 'Username-Password-Authentication', strategy: 'email' })).toMatchObject({
      status: 409,
      body: { statusCode: 409, error: 'Conflict', errorCode: 'conflict', message: 'A connection with the same name already exists' },
    });
  });

  it("stores and answers a database connection's passkey options (authentication_methods, passkey_options); malformed ones are refused with 400", async () => {
    const socket = managementApi(server, 'socket');
    const options = {
      authentication_methods: { password: { enabled: true, api_behavior: 'required', signup_behavior: 'allow' }, passkey: { enabled: true } },
      passkey_options: { challenge_ui: 'autofill', progressive_enrollment_enabled: true, local_enrollment_enabled: false },
    };
    const created = await socket('POST', '/connections', { name: 'passkey-db', strategy: 'auth0', options });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.options).toEqual(options);
    const id = String(created.body.id);
    expect((await socket('GET', `/connections/${id}`)).body.options).toEqual(options);
    const changed = { authentication_methods: { passkey: { enabled: false } }, passkey_options: null };
    const patched = await socket('PATCH', `/connections/${id}`, { options: changed });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.options).toEqual(changed);

    const refused = async (bad: Record<string, unknown>, wording: string) => {
      for (const [method, path, body] of [
        ['POST', '/connections', { name: `bad-${Math.random().toString(36).slice(2, 8)}`, strategy: 'auth0', options: bad }],
        ['PATCH', `/connections/${id}`, { options: bad }],
      ] as const) {
        const answer = await socket(method, path, body);
        expect(answer, `${method} ${JSON.stringify(bad)}`).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' } });
        expect(String(answer.body.message)).toContain(wording);
      }
    };
    await refused({ passkey_options: { challenge_ui: 'popup' } }, 'passkey_options.challenge_ui must be one of both, autofill, button');
    await refused({ passkey_options: { progressive_enrollment_enabled: 'yes' } }, 'passkey_options.progressive_enrollment_enabled must be a boolean');
    await refused({ passkey_options: { autofill: true } }, 'passkey_options.autofill is not a known property');
    await refused({ passkey_options: [] }, 'passkey_options must be an object');
    await refused({ authentication_methods: { passkey: { enabled: 'true' } } }, 'authentication_methods.passkey.enabled must be a boolean');
    await refused({ authentication_methods: { magic: { enabled: true } } }, 'authentication_methods.magic is not an authentication method');
    await refused({ authentication_methods: { password: { api_behavior: 'sometimes' } } }, 'authentication_methods.password.api_behavior must be one of required, optional');
    await refused({ authentication_methods: { passkey: true } }, 'authentication_methods.passkey must be an object');
    // The connection kept what it had.
    expect((await api('GET', `/connections/${id}`)).body.options).toEqual(changed);
  });

  it('accepts exactly the strategies auth0, email, sms, samlp, oidc and oauth2', async () => {
    for (const strategy of ['auth0', 'email', 'sms', 'samlp', 'oidc', 'oauth2']) {
      const created = await api('POST', '/connections', {
        name: `s-${strategy}`,
        strategy,
        display_name: strategy.toUpperCase(),
        enabled_clients: [ADMIN_CLIENT_ID, ADMIN_CLIENT_ID],
        ...(SAMPLE_FEDERATED_OPTIONS[strategy] ? { options: SAMPLE_FEDERATED_OPTIONS[strategy] } : {}),
      });
      expect(created).toMatchObject({ status: 201, body: { strategy, display_name: strategy.toUpperCase(), enabled_clients: [ADMIN_CLIENT_ID] } });
    }
    for (const strategy of ['ad', 'google-oauth2', 'waad']) {
      expect(await api('POST', '/connections', { name: `s-${strategy}`, strategy })).toMatchObject({
        status: 400,
        body: {
          errorCode: 'invalid_body',
          message: `Payload validation error: 'No enum match for: "${strategy}"' on property strategy (Connection strategy: auth0, email, sms, samlp, oidc, oauth2.).`,
        },
      });
    }
  });

  it('updates partially: options and enabled_clients are replaced whole; name and strategy are fixed', async () => {
    const created = await api('POST', '/connections', { name: 'patchable', strategy: 'auth0', options: { requires_username: true, brute_force_protection: true }, metadata: { a: '1' } });
    const id = String(created.body.id);
    const updated = await api('PATCH', `/connections/${id}`, { options: { disable_signup: true }, enabled_clients: [ADMIN_CLIENT_ID], show_as_button: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, name: 'patchable', strategy: 'auth0', options: { disable_signup: true }, enabled_clients: [ADMIN_CLIENT_ID], show_as_button: true, metadata: { a: '1' } });
    expect(updated.body.options).not.toHaveProperty('requires_username');
    const reset = await api('PATCH', `/connections/${id}`, { options: null, enabled_clients: null });
    expect(reset.body.options).toEqual({});
    expect(reset.body.enabled_clients).toEqual([]);
    expect((await api('PATCH', `/connections/${id}`, { realms: [] })).body).toMatchObject({ realms: ['patchable'] });

    for (const field of [{ name: 'renamed' }, { strategy: 'sms' }]) {
      const rejected = await api('PATCH', `/connections/${id}`, field);
      expect(rejected).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
      expect(String(rejected.body.message)).toContain(`Additional properties not allowed: ${Object.keys(field)[0]}`);
    }
    expect((await api('GET', `/connections/${id}`)).body).toMatchObject({ name: 'patchable', strategy: 'auth0' });
  });

  it('keeps an upstream client secret sealed at rest and gives it back to logins and administrators', async () => {
    const secret = 'upstream-client-secret-0123456789';
    const options = { ...SAMPLE_FEDERATED_OPTIONS.oidc, client_id: 'latchkey-at-idp', client_secret: secret };
    const created = await api('POST', '/connections', { name: `sealed-${dialect}`, strategy: 'oidc', options });
    expect(created.status).toBe(201);
    expect(created.body.options).toEqual(options);
    expect(created.body).not.toHaveProperty('sealed_options');
    const id = String(created.body.id);
    const row = async () => JSON.stringify((await server.registry.storage.connections.get(server.registry.tenantId, id))?.data);
    expect(await row()).not.toContain(secret);
    expect(await row()).toContain('"sealed_options":{"client_secret":"v1.');
    expect((await api('GET', `/connections/${id}`)).body.options).toEqual(options);
    // An update that leaves options alone keeps the secret; one that replaces them seals the new one.
    expect((await api('PATCH', `/connections/${id}`, { display_name: 'Sealed' })).body.options).toEqual(options);
    expect(await row()).not.toContain(secret);
    const replaced = { ...options, client_secret: 'another-upstream-secret-987654321' };
    expect((await api('PATCH', `/connections/${id}`, { options: replaced })).body.options).toEqual(replaced);
    expect(await row()).not.toContain('another-upstream-secret-987654321');
    const listed = (await api('GET', `/connections?name=sealed-${dialect}`)).body;
    expect(listed[0]?.options).toEqual(replaced);
    // Another deployment secret cannot open it.
    const stored = (await server.registry.storage.connections.get(server.registry.tenantId, id))?.data;
    const { connectionSecrets } = await import('../src/services/connection-secrets.js');
    expect(() => connectionSecrets(Buffer.alloc(32, 9)).open(stored as never)).toThrow(/LATCHKEY_SECRET differs/);
    expect(server.registry.connectionSecrets.open(stored as never).options).toEqual(replaced);
  });

  it('reads a secret stored in clear before sealing existed, and seals it at the next update', async () => {
    const options = { ...SAMPLE_FEDERATED_OPTIONS.oidc, client_id: 'old-client', client_secret: 'stored-in-clear-secret-42' };
    const id = `con_clear${dialect}000000`.slice(0, 20);
    const data = { name: `clear-${dialect}`, strategy: 'oidc', options, enabled_clients: [], is_domain_connection: false, show_as_button: false, realms: [`clear-${dialect}`], metadata: {} };
    await server.registry.storage.connections.insert(server.registry.tenantId, { id, columns: { name: data.name, strategy: 'oidc' }, data: data as never, createdAt: new Date().toISOString() });
    expect((await api('GET', `/connections/${id}`)).body.options).toEqual(options);
    expect((await api('PATCH', `/connections/${id}`, { display_name: 'Now sealed' })).status).toBe(200);
    const row = JSON.stringify((await server.registry.storage.connections.get(server.registry.tenantId, id))?.data);
    expect(row).not.toContain('stored-in-clear-secret-42');
    expect((await api('GET', `/connections/${id}`)).body.options).toEqual(options);
  });

  it('404 for an unknown connection on GET and PATCH', async () => {
    const missing = { status: 404, body: { statusCode: 404, errorCode: 'inexistent_connection', message: 'The connection does not exist' } };
    expect(await api('GET', '/connections/con_missing')).toMatchObject(missing);
    expect(await api('PATCH', '/connections/con_missing', { display_name: 'x' })).toMatchObject(missing);
  });

  it('deletes with 204 together with its users; deleting again is still 204', async () => {
    const created = await api('POST', '/connections', { name: 'doomed', strategy: 'auth0' });
    const kept = await api('POST', '/connections', { name: 'kept', strategy: 'auth0' });
    const user = await api('POST', '/users', { connection: 'doomed', email: 'gone@example.com', password: 'a long passphrase 1' });
    const other = await api('POST', '/users', { connection: 'kept', email: 'gone@example.com', password: 'a long passphrase 1' });
    expect([user.status, other.status, kept.status]).toEqual([201, 201, 201]);
    expect(await api('DELETE', `/connections/${String(created.body.id)}`)).toMatchObject({ status: 204, body: undefined });
    expect((await api('GET', `/connections/${String(created.body.id)}`)).status).toBe(404);
    expect((await api('GET', `/users/${encodeURIComponent(String(user.body.user_id))}`)).status).toBe(404);
    expect((await api('GET', `/users/${encodeURIComponent(String(other.body.user_id))}`)).status).toBe(200);
    expect((await api('DELETE', `/connections/${String(created.body.id)}`)).status).toBe(204);
  });

  it('lists by strategy (repeatable) and name, with offset or checkpoint pagination', async () => {
    for (const strategy of ['email', 'sms', 'auth0', 'oidc']) {
      for (const n of [1, 2]) {
        const options = SAMPLE_FEDERATED_OPTIONS[strategy];
        expect((await api('POST', '/connections', { name: `list-${strategy}-${n}`, strategy, ...(options ? { options } : {}) })).status).toBe(201);
      }
    }
    // Only this test's connections (other tests add their own).
    const names = (body: { name?: unknown }[]) => body.map((connection) => String(connection.name)).filter((name) => name.startsWith('list-')).sort();
    expect(names((await api('GET', '/connections?strategy=sms')).body)).toEqual(['list-sms-1', 'list-sms-2']);
    expect(names((await api('GET', '/connections?strategy=sms&strategy=email')).body)).toEqual(['list-email-1', 'list-email-2', 'list-sms-1', 'list-sms-2']);
    expect(names((await api('GET', '/connections?name=list-email-2')).body)).toEqual(['list-email-2']);
    expect((await api('GET', '/connections?name=nothing')).body).toEqual([]);
    // A strategy of the platform that Latchkey does not have matches nothing.
    expect(await api('GET', '/connections?strategy=ad')).toMatchObject({ status: 200, body: [] });

    const all = await api('GET', '/connections?include_totals=true&per_page=100&fields=id,name');
    const total = Number(all.body.total);
    expect((all.body.connections as unknown[]).length).toBe(total);
    const ids = (all.body.connections as { id: string }[]).map((connection) => connection.id);
    expect((await api('GET', '/connections?per_page=3&page=1')).body.map((connection) => connection.id)).toEqual(ids.slice(3, 6));

    const first = await api('GET', '/connections?include_totals=true&take=4');
    expect((first.body.connections as { id: string }[]).map((connection) => connection.id)).toEqual(ids.slice(0, 4));
    const second = await api('GET', `/connections?take=4&from=${String(first.body.next)}`);
    expect((second.body.connections as { id: string }[]).map((connection) => connection.id)).toEqual(ids.slice(4, 8));
    const last = await api('GET', `/connections?take=100&from=${String(first.body.next)}`);
    expect(last.body).not.toHaveProperty('next');
    expect((last.body.connections as unknown[]).length).toBe(total - 4);
  });

  it.each([
    [{ strategy: 'auth0' }, `Payload validation error: 'Missing required property: name' on property name (Unique name: letters, digits and inner dashes.).`],
    [{ name: 'bad name', strategy: 'auth0' }, `Payload validation error: 'String does not match the required format: "bad name"' on property name (Unique name: letters, digits and inner dashes.).`],
    [{ name: '-edge', strategy: 'auth0' }, `Payload validation error: 'String does not match the required format: "-edge"'`],
    [{ name: 'x', strategy: 'auth0', options: 'strict' }, `Payload validation error: 'Expected type object but found type string' on property options`],
    [{ name: 'x', strategy: 'auth0', enabled_clients: 'all' }, `Payload validation error: 'Expected type array but found type string' on property enabled_clients`],
    [{ name: 'x', strategy: 'auth0', id: 'con_chosen' }, `Payload validation error: 'Additional properties not allowed: id'`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('POST', '/connections', body);
    expect(response).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(String(response.body.message).startsWith(message)).toBe(true);
  });

  it.each([
    ['GET', '/connections', undefined, 'read:connections'],
    ['GET', '/connections/con_x', undefined, 'read:connections'],
    ['POST', '/connections', { name: 'scoped', strategy: 'email' }, 'create:connections'],
    ['PATCH', '/connections/con_x', { display_name: 'x' }, 'update:connections'],
    ['DELETE', '/connections/con_x', undefined, 'delete:connections'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    expect(await api(method, path, body, await server.token('read:users'))).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope))).status).not.toBe(403);
  });
});
