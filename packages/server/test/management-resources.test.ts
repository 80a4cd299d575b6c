import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, startTestServer, type TestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

type Json = Record<string, unknown>;

describe.each(DIALECTS)('Management API resources (%s)', (dialect) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    token = await server.token();
  });
  afterAll(async () => server?.close());

  /** Over the real socket: every resource's flow runs through fetch. */
  const api = async (method: string, path: string, body?: unknown, bearer = token) => {
    const response = await fetch(`${server.url}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json & Json[] };
  };
  const tokenFor = async (clientId: string, clientSecret: string, audience: string) => {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };

  describe('clients', () => {
    it('creates a confidential client whose secret is shown once and works at the token endpoint', async () => {
      const created = await api('POST', '/clients', { name: 'Backend', app_type: 'non_interactive', client_metadata: { team: 'a' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'Backend',
        app_type: 'non_interactive',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_post',
        jwt_configuration: { alg: 'RS256' },
        client_metadata: { team: 'a' },
        tenant: server.registry.tenantId,
      });
      const clientId = String(created.body.client_id);
      const secret = String(created.body.client_secret);
      expect(secret.length).toBeGreaterThanOrEqual(43);
      const fetched = await api('GET', `/clients/${clientId}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).not.toHaveProperty('client_secret');

      const api2 = await api('POST', '/resource-servers', { identifier: `https://api-${dialect}.example/`, name: 'Orders', scopes: [{ value: 'read:orders' }, { value: 'write:orders' }] });
      expect(api2.status).toBe(201);
      expect((await tokenFor(clientId, secret, `https://api-${dialect}.example/`)).status).toBe(403);
      const grant = await api('POST', '/client-grants', { client_id: clientId, audience: `https://api-${dialect}.example/`, scope: ['read:orders'] });
      expect(grant.status).toBe(201);
      const issued = await tokenFor(clientId, secret, `https://api-${dialect}.example/`);
      expect(issued).toMatchObject({ status: 200, body: { scope: 'read:orders' } });

      const rotated = await api('POST', `/clients/${clientId}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const newSecret = String(rotated.body.client_secret);
      expect(newSecret).not.toBe(secret);
      expect((await tokenFor(clientId, secret, `https://api-${dialect}.example/`)).status).toBe(401);
      expect((await tokenFor(clientId, newSecret, `https://api-${dialect}.example/`)).status).toBe(200);

      const row = await server.registry.storage.clients.get(server.registry.tenantId, clientId);
      expect(JSON.stringify(row)).not.toContain(newSecret);
    });

    it('defaults a SPA to a public client without a secret; rotate-secret on it is 400', async () => {
      const spa = await api('POST', '/clients', { name: 'SPA', app_type: 'spa', callbacks: ['https://app.example/cb'], web_origins: ['https://app.example'] });
      expect(spa.status).toBe(201);
      expect(spa.body).toMatchObject({ token_endpoint_auth_method: 'none', grant_types: ['implicit', 'authorization_code', 'refresh_token'], callbacks: ['https://app.example/cb'] });
      expect(spa.body).not.toHaveProperty('client_secret');
      expect((await api('POST', `/clients/${String(spa.body.client_id)}/rotate-secret`)).status).toBe(400);
    });

    it('updates partially, lists with totals, deletes (204) together with its grants', async () => {
      const created = await api('POST', '/clients', { name: 'Temp', app_type: 'regular_web' });
      const id = String(created.body.client_id);
      const updated = await api('PATCH', `/clients/${id}`, { callbacks: ['https://x.example/cb'], jwt_configuration: { alg: 'HS256' }, cross_origin_authentication: true });
      expect(updated.body).toMatchObject({ name: 'Temp', callbacks: ['https://x.example/cb'], jwt_configuration: { alg: 'HS256', lifetime_in_seconds: 36000 }, cross_origin_authentication: true });
      const listed = await api('GET', '/clients?include_totals=true&per_page=100');
      expect(listed.body).toMatchObject({ start: 0, limit: 100 });
      expect((listed.body.clients as Json[]).some((client) => client.client_id === id)).toBe(true);
      expect((listed.body.clients as Json[]).some((client) => client.client_id === ADMIN_CLIENT_ID)).toBe(true);
      await api('POST', '/client-grants', { client_id: id, audience: server.audience, scope: ['read:users'] });
      expect((await api('DELETE', `/clients/${id}`)).status).toBe(204);
      expect((await api('GET', `/clients/${id}`)).status).toBe(404);
      expect(((await api('GET', `/client-grants?client_id=${id}`)).body as Json[]).length).toBe(0);
    });

    it('rejects bad bodies with 400 invalid_body naming the property, and wrong scopes with 403', async () => {
      const missing = await api('POST', '/clients', { app_type: 'spa' });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ errorCode: 'invalid_body', message: `Payload validation error: 'Missing required property: name' on property name (Name of the application.).` });
      expect((await api('POST', '/clients', { name: 'x', app_type: 'desktop' })).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body' });
      expect((await api('POST', '/clients', { name: 'x', unknown_field: 1 })).status).toBe(400);
      expect((await api('PATCH', '/clients/nope', { name: 'y' })).status).toBe(404);
      const reader = await server.token('read:clients');
      expect((await api('POST', '/clients', { name: 'x' }, reader)).body).toMatchObject({ statusCode: 403, message: 'Insufficient scope, expected any of: create:clients' });
    });
  });

  describe('resource servers and client grants', () => {
    it('keeps identifiers unique, addresses a resource server by id or identifier, protects the system API', async () => {
      const identifier = `urn:test:${dialect}:billing`;
      const created = await api('POST', '/resource-servers', { identifier, scopes: [{ value: 'read:bills', description: 'Read bills' }] });
      expect(created).toMatchObject({ status: 201, body: { identifier, name: identifier, token_lifetime: 86400, signing_alg: 'RS256', is_system: false } });
      expect(await api('POST', '/resource-servers', { identifier })).toMatchObject({ status: 409, body: { statusCode: 409, errorCode: 'conflict' } });
      expect((await api('GET', `/resource-servers/${encodeURIComponent(identifier)}`)).body).toMatchObject({ id: created.body.id });
      expect((await api('PATCH', `/resource-servers/${String(created.body.id)}`, { token_lifetime: 600 })).body).toMatchObject({ token_lifetime: 600, identifier });
      expect((await api('PATCH', `/resource-servers/${String(created.body.id)}`, { identifier: 'other' })).status).toBe(400);
      const system = await api('GET', `/resource-servers/${encodeURIComponent(server.audience)}`);
      expect(system.body).toMatchObject({ is_system: true, identifier: server.audience });
      expect((system.body.scopes as Json[]).length).toBeGreaterThan(30);
      expect((await api('DELETE', `/resource-servers/${String(system.body.id)}`)).status).toBe(403);
      expect((await api('PATCH', `/resource-servers/${String(system.body.id)}`, { name: 'x' })).status).toBe(403);
      expect((await api('DELETE', `/resource-servers/${String(created.body.id)}`)).status).toBe(204);
      expect((await api('GET', `/resource-servers/${String(created.body.id)}`)).status).toBe(404);
    });

    it('client grants: existing client and API, defined scopes, one per pair, filters, update, delete', async () => {
      const client = await api('POST', '/clients', { name: 'Grantee', app_type: 'non_interactive' });
      const clientId = String(client.body.client_id);
      expect((await api('POST', '/client-grants', { client_id: 'ghost', audience: server.audience, scope: [] })).status).toBe(404);
      expect((await api('POST', '/client-grants', { client_id: clientId, audience: 'https://ghost/', scope: [] })).status).toBe(404);
      expect((await api('POST', '/client-grants', { client_id: clientId, audience: server.audience, scope: ['fly:planes'] })).status).toBe(400);
      const grant = await api('POST', '/client-grants', { client_id: clientId, audience: server.audience, scope: ['read:users', 'read:users'] });
      expect(grant).toMatchObject({ status: 201, body: { client_id: clientId, audience: server.audience, scope: ['read:users'] } });
      expect((await api('POST', '/client-grants', { client_id: clientId, audience: server.audience, scope: [] })).status).toBe(409);
      expect(((await api('GET', `/client-grants?client_id=${clientId}&audience=${encodeURIComponent(server.audience)}`)).body as Json[]).map((g) => g.id)).toEqual([grant.body.id]);
      expect((await api('PATCH', `/client-grants/${String(grant.body.id)}`, { scope: ['read:users', 'read:clients'] })).body).toMatchObject({ scope: ['read:users', 'read:clients'] });
      expect((await api('DELETE', `/client-grants/${String(grant.body.id)}`)).status).toBe(204);
      expect((await api('DELETE', `/client-grants/${String(grant.body.id)}`)).status).toBe(404);
    });
  });

  describe('connections and users', () => {
    let connectionId: string;
    beforeAll(async () => {
      const created = await api('POST', '/connections', { name: 'Username-Password', strategy: 'auth0', options: { requires_username: false } });
      expect(created.status).toBe(201);
      connectionId = String(created.body.id);
    });

    it('connections: strategies, unique names, filters, update, delete with their users', async () => {
      expect((await api('POST', '/connections', { name: 'Username-Password', strategy: 'auth0' })).status).toBe(409);
      expect((await api('POST', '/connections', { name: 'bad name', strategy: 'auth0' })).status).toBe(400);
      const strategy = await api('POST', '/connections', { name: 'ldap', strategy: 'ad' });
      expect(strategy.status).toBe(400);
      expect(String(strategy.body.message)).toContain('strategy');
      const sms = await api('POST', '/connections', { name: 'sms', strategy: 'sms', enabled_clients: [ADMIN_CLIENT_ID] });
      expect(sms.body).toMatchObject({ name: 'sms', strategy: 'sms', enabled_clients: [ADMIN_CLIENT_ID], realms: ['sms'] });
      expect(((await api('GET', '/connections?strategy=sms')).body as Json[]).map((c) => c.name)).toEqual(['sms']);
      expect((await api('PATCH', `/connections/${String(sms.body.id)}`, { options: { disable_signup: true } })).body).toMatchObject({ options: { disable_signup: true } });
      expect((await api('PATCH', `/connections/${String(sms.body.id)}`, { name: 'renamed' })).status).toBe(400);
      const user = await api('POST', '/users', { connection: 'sms', phone_number: '+15551234567' });
      expect(user).toMatchObject({ status: 201, body: { identities: [{ provider: 'sms', connection: 'sms' }] } });
      expect((await api('DELETE', `/connections/${String(sms.body.id)}`)).status).toBe(204);
      expect((await api('GET', `/users/${encodeURIComponent(String(user.body.user_id))}`)).status).toBe(404);
    });

    it('users: argon2id hashes, ids with raw or encoded pipes, metadata merge, e-mail lookups, conflicts', async () => {
      const created = await api('POST', '/users', {
        connection: 'Username-Password',
        email: 'Ada@Example.com',
        password: 'correct horse battery staple',
        user_metadata: { theme: 'dark', lang: 'en' },
        app_metadata: { plan: 'pro' },
      });
      expect(created.status).toBe(201);
      const userId = String(created.body.user_id);
      expect(userId).toMatch(/^auth0\|[0-9a-f]{24}$/);
      expect(created.body).toMatchObject({
        email: 'ada@example.com',
        email_verified: false,
        nickname: 'ada',
        blocked: false,
        identities: [{ connection: 'Username-Password', provider: 'auth0', user_id: userId.split('|')[1], isSocial: false }],
      });
      expect(created.body).not.toHaveProperty('password');
      const row = await server.registry.storage.users.get(server.registry.tenantId, userId);
      expect(row?.columns.password_hash).toMatch(/^\$argon2id\$/);

      expect((await api('GET', `/users/${userId}`)).body).toMatchObject({ user_id: userId });
      expect((await api('GET', `/users/${encodeURIComponent(userId)}`)).body).toMatchObject({ user_id: userId });

      const patched = await api('PATCH', `/users/${encodeURIComponent(userId)}`, { user_metadata: { lang: null, tz: 'UTC' }, name: 'Ada Lovelace' });
      expect(patched.body).toMatchObject({ name: 'Ada Lovelace', user_metadata: { theme: 'dark', tz: 'UTC' }, app_metadata: { plan: 'pro' } });
      expect(patched.body.user_metadata).not.toHaveProperty('lang');

      const before = row?.columns.password_hash;
      await api('PATCH', `/users/${userId}`, { password: 'another long passphrase' });
      const after = await server.registry.storage.users.get(server.registry.tenantId, userId);
      expect(after?.columns.password_hash).toMatch(/^\$argon2id\$/);
      expect(after?.columns.password_hash).not.toBe(before);

      expect(((await api('GET', '/users-by-email?email=ADA%40example.COM')).body as Json[]).map((u) => u.user_id)).toEqual([userId]);
      expect((await api('GET', '/users-by-email?email=nobody%40example.com')).body).toEqual([]);
      expect(await api('POST', '/users', { connection: 'Username-Password', email: 'ada@EXAMPLE.com', password: 'x1y2z3w4' })).toMatchObject({
        status: 409,
        body: { statusCode: 409, error: 'Conflict', message: 'The user already exists.' },
      });
      const listed = await api('GET', '/users?include_totals=true&connection=Username-Password');
      expect(listed.body).toMatchObject({ total: 1 });
      expect((await api('DELETE', `/users/${encodeURIComponent(userId)}`)).status).toBe(204);
      expect((await api('GET', `/users/${userId}`)).status).toBe(404);
    });

    it('users: validation and connection rules', async () => {
      expect((await api('POST', '/users', { connection: 'Username-Password', email: 'not-an-email', password: 'x' })).status).toBe(400);
      expect((await api('POST', '/users', { connection: 'Username-Password', email: 'b@example.com' })).body).toMatchObject({ statusCode: 400 });
      expect((await api('POST', '/users', { connection: 'nope', email: 'b@example.com', password: 'pw123456' })).status).toBe(400);
      expect((await api('POST', '/users', { email: 'b@example.com', password: 'pw123456' })).status).toBe(400);
      await api('PATCH', `/connections/${connectionId}`, { options: { requires_username: true } });
      expect((await api('POST', '/users', { connection: 'Username-Password', email: 'c@example.com', password: 'pw123456' })).status).toBe(400);
      expect((await api('POST', '/users', { connection: 'Username-Password', email: 'c@example.com', password: 'pw123456', username: 'charlie' })).status).toBe(201);
      expect((await api('PATCH', '/users/auth0%7Cmissing', { name: 'x' })).status).toBe(404);
    });
  });

  describe('tenant settings', () => {
    it('reads and merges settings; subscription and the feature flag gate advanced customizations', async () => {
      const initial = await api('GET', '/tenants/settings');
      expect(initial.body).toEqual({
        friendly_name: server.registry.tenantId,
        enabled_locales: ['en'],
        allowed_logout_urls: [],
        subscription: 'paid',
        flags: { enable_advanced_customizations: true },
      });
      expect((await api('PATCH', '/tenants/settings', { friendly_name: 'Acme', flags: { other_flag: true } })).body).toMatchObject({
        friendly_name: 'Acme',
        flags: { enable_advanced_customizations: true, other_flag: true },
      });
      expect((await api('PATCH', '/tenants/settings', { subscription: 'gold' })).status).toBe(400);
      expect((await api('PATCH', '/tenants/settings', { bootstrap: {} })).status).toBe(400);
      expect((await api('PATCH', '/tenants/settings', { subscription: 'free' })).status).toBe(200);
      expect((await api('GET', '/prompts/rendering')).status).toBe(402);
      await api('PATCH', '/tenants/settings', { subscription: 'paid', flags: { enable_advanced_customizations: false } });
      expect((await api('GET', '/prompts/rendering')).status).toBe(403);
      await api('PATCH', '/tenants/settings', { flags: { enable_advanced_customizations: true } });
      expect((await api('GET', '/prompts/rendering')).status).toBe(200);
      const reader = await server.token('read:tenant_settings');
      expect((await api('PATCH', '/tenants/settings', { friendly_name: 'x' }, reader)).status).toBe(403);
    });
  });
});
