import { ManagementClient } from 'auth0';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { ADMIN_CLIENT_ID, type TestServer } from './support/harness.js';
import { provisionLogin, signInOnHostedPage } from './support/login-fixture.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';

/**
 * The official Management SDK, unmodified, against Latchkey over real HTTPS (the SDK always builds
 * https://{domain}/api/v2 and fetches its token from https://{domain}/oauth/token).
 */
describe('official Management SDK (npm auth0) against Latchkey over HTTPS', () => {
  let sdk: SdkServer;
  let server: TestServer;
  let management: ManagementClient;
  let domain: string;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect: 'sqlite' });
    ({ server, management, domain } = sdk);
    // The SDK's database connection for users.
    await management.connections.create({ name: 'Username-Password-Authentication', strategy: 'auth0' });
  });
  afterAll(async () => sdk?.close());

  const withToken = (token: string) => new ManagementClient({ domain, token });

  it('obtains a token by client credentials and round-trips rendering configurations', async () => {
    const updated = await management.prompts.rendering.update('login-id', 'login-id', {
      rendering_mode: 'advanced',
      context_configuration: ['tenant.name', 'user.app_metadata.tier'],
      head_tags: [{ tag: 'script', attributes: { src: 'https://cdn.example/login.js' } }],
    });
    expect(updated).toMatchObject({ rendering_mode: 'advanced' });

    const got = await management.prompts.rendering.get('login-id', 'login-id');
    expect(got).toMatchObject({ prompt: 'login-id', screen: 'login-id', rendering_mode: 'advanced', context_configuration: ['tenant.name', 'user.app_metadata.tier'] });

    const bulk = await management.prompts.rendering.bulkUpdate({
      configs: [
        { prompt: 'signup', screen: 'signup', rendering_mode: 'advanced' },
        { prompt: 'login-password', screen: 'login-password', rendering_mode: 'standard' },
      ],
    });
    expect(bulk.configs).toHaveLength(2);

    const page = await management.prompts.rendering.list({ include_totals: true, per_page: 10 });
    expect(page.data.map((config) => config.screen)).toEqual(['login-id', 'signup', 'login-password']);
    const filtered = await management.prompts.rendering.list({ rendering_mode: 'advanced', include_totals: true });
    expect(filtered.data.map((config) => config.screen)).toEqual(['login-id', 'signup']);
  });

  it('creates, reads and updates users, and creates clients', async () => {
    const user = await management.users.create({ connection: 'Username-Password-Authentication', email: 'sdk@example.com', password: 'a long sdk passphrase 2', user_metadata: { a: 1 } });
    expect(user.user_id).toMatch(/^auth0\|/);
    const fetched = await management.users.get(String(user.user_id));
    expect(fetched).toMatchObject({ email: 'sdk@example.com', user_metadata: { a: 1 } });
    const updated = await management.users.update(String(user.user_id), { user_metadata: { b: 2 }, name: 'SDK User' });
    expect(updated).toMatchObject({ name: 'SDK User', user_metadata: { a: 1, b: 2 } });

    const client = await management.clients.create({ name: 'From the SDK', app_type: 'spa', callbacks: ['https://spa.example/cb'] });
    expect(client).toMatchObject({ name: 'From the SDK', app_type: 'spa', token_endpoint_auth_method: 'none' });
  });

  it('manages resource servers, client grants, connections and users, paging through every list', async () => {
    const collect = async <T>(page: AsyncIterable<T>) => {
      const items: T[] = [];
      for await (const item of page) items.push(item);
      return items;
    };
    const identifier = 'https://sdk.example/';
    const api = await management.resourceServers.create({ identifier, scopes: [{ value: 'read:things' }, { value: 'write:things' }] });
    expect(api).toMatchObject({ identifier, is_system: false, token_lifetime: 86400 });
    expect(await management.resourceServers.update(String(api.id), { token_lifetime: 600 })).toMatchObject({ token_lifetime: 600 });
    const conflict = await rejection(management.resourceServers.create({ identifier }));
    expect(conflict.constructor.name).toBe('ConflictError');

    const client = await management.clients.create({ name: 'SDK machine', app_type: 'non_interactive' });
    expect(client.client_secret).toEqual(expect.any(String));
    const clientId = String(client.client_id);
    expect(await management.clients.get(clientId)).not.toHaveProperty('client_secret');
    expect((await management.clients.rotateSecret(clientId)).client_secret).not.toBe(client.client_secret);
    const grant = await management.clientGrants.create({ client_id: clientId, audience: identifier, scope: ['read:things'] });
    expect(await management.clientGrants.update(String(grant.id), { scope: ['write:things'] })).toMatchObject({ scope: ['write:things'] });
    expect(await management.clientGrants.get(String(grant.id))).toMatchObject({ client_id: clientId, audience: identifier, scope: ['write:things'] });

    for (const name of ['sdk-email-1', 'sdk-email-2', 'sdk-email-3']) await management.connections.create({ name, strategy: 'email', enabled_clients: [clientId] });
    const connections = await collect(await management.connections.list({ take: 2 }));
    expect(connections.map((connection) => connection.name)).toEqual(['Username-Password-Authentication', 'sdk-email-1', 'sdk-email-2', 'sdk-email-3']);
    const emailOnly = await collect(await management.connections.list({ strategy: ['email'] }));
    expect(emailOnly.map((connection) => connection.name)).toEqual(['sdk-email-1', 'sdk-email-2', 'sdk-email-3']);
    const grants = await collect(await management.clientGrants.list({ take: 1 }));
    expect(grants.map((item) => item.id)).toContain(grant.id);
    expect((await collect(await management.clientGrants.list({ client_id: clientId }))).map((item) => item.id)).toEqual([grant.id]);
    const clients = await collect(await management.clients.list({ per_page: 2 }));
    expect(clients.map((item) => item.client_id)).toEqual(expect.arrayContaining([ADMIN_CLIENT_ID, clientId]));
    const apis = await collect(await management.resourceServers.list({ per_page: 1 }));
    expect(apis.map((item) => item.identifier)).toEqual([server.audience, identifier]);

    const user = await management.users.create({ connection: 'Username-Password-Authentication', email: 'Paging@Example.com', password: 'a long sdk passphrase 2' });
    expect((await management.users.listUsersByEmail({ email: 'paging@EXAMPLE.com' })).map((item) => item.user_id)).toEqual([user.user_id]);
    const users = await collect(await management.users.list({ per_page: 1, q: 'email:"paging@example.com"', search_engine: 'v3' }));
    expect(users.map((item) => item.user_id)).toContain(user.user_id);
    await management.users.delete(String(user.user_id));
    expect((await rejection(management.users.get(String(user.user_id)))).constructor.name).toBe('NotFoundError');

    await management.clientGrants.delete(String(grant.id));
    await management.clients.delete(clientId);
    await management.resourceServers.delete(String(api.id));
    const [kept] = await collect(await management.connections.list({ name: 'sdk-email-1' }));
    expect((await management.connections.get(String(kept?.id))).enabled_clients).toEqual([]);
    expect(await management.tenants.settings.get()).toMatchObject({ subscription: 'paid', flags: { enable_advanced_customizations: true } });
  });

  it('lists, reads and ends a user’s sessions and refresh tokens, and sets an application’s refresh-token settings', async () => {
    const fx = await provisionLogin(server, { suffix: 'sdk' });
    const settings = await management.clients.update(fx.web.clientId, { refresh_token: { rotation_type: 'non-rotating', expiration_type: 'expiring', leeway: 0, idle_token_lifetime: 3600, token_lifetime: 86400, infinite_token_lifetime: false, infinite_idle_token_lifetime: false } });
    expect(settings.refresh_token).toMatchObject({ rotation_type: 'non-rotating', idle_token_lifetime: 3600, token_lifetime: 86400 });

    // A browser login through the hosted page: an SSO session and a refresh token.
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid offline_access', state: 'sdk' });
    const code = (await signInOnHostedPage(browser, server, fx, `/authorize?${query.toString()}`)).searchParams.get('code') ?? '';
    const issued = (await (
      await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code, redirect_uri: fx.web.callback }),
      })
    ).json()) as { id_token: string; refresh_token: string };
    const sid = String(decodeJwt(issued.id_token).sid);

    const sessions = await management.users.sessions.list(fx.user.userId);
    expect(sessions.data.map((session) => session.id)).toEqual([sid]);
    expect(await management.sessions.get(sid)).toMatchObject({ id: sid, user_id: fx.user.userId, clients: [{ client_id: fx.web.clientId }] });
    const tokens = await management.users.refreshToken.list(fx.user.userId);
    expect(tokens.data).toHaveLength(1);
    const [listed] = tokens.data;
    expect(listed).toMatchObject({ client_id: fx.web.clientId, session_id: sid, rotating: false });
    expect(await management.refreshTokens.get(String(listed?.id))).toMatchObject({ id: listed?.id, user_id: fx.user.userId });

    // Ended through the SDK: the refresh token stops working, and the session is gone.
    await management.refreshTokens.delete(String(listed?.id));
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: issued.refresh_token }),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    await management.sessions.delete(sid);
    expect((await rejection(management.sessions.get(sid))).statusCode).toBe(404);
    expect((await management.users.sessions.list(fx.user.userId)).data).toEqual([]);
  });

  it('surfaces 400, 401, 402, 403 and 404 as the SDK’s error classes', async () => {
    const ManagementApi = await import('auth0');
    const badRequest = await rejection(management.prompts.rendering.list({ per_page: 101 }));
    expect(badRequest).toBeInstanceOf(ManagementApi.ManagementError);
    expect(badRequest.constructor.name).toBe('BadRequestError');
    expect(badRequest.statusCode).toBe(400);
    expect(badRequest.body).toMatchObject({ errorCode: 'invalid_query_string' });

    const unauthorized = await rejection(withToken('not-a-token').prompts.rendering.list());
    expect(unauthorized.constructor.name).toBe('UnauthorizedError');
    expect(unauthorized.statusCode).toBe(401);

    const narrow = await server.token('read:clients');
    const forbidden = await rejection(withToken(narrow).prompts.rendering.list());
    expect(forbidden.constructor.name).toBe('ForbiddenError');
    expect(forbidden.body).toMatchObject({ message: 'Insufficient scope, expected any of: read:prompts' });

    const notFound = await rejection(management.prompts.rendering.get('no-such-prompt' as 'login', 'login'));
    expect(notFound.constructor.name).toBe('NotFoundError');
    expect(notFound.statusCode).toBe(404);

    await management.tenants.settings.update({ subscription: 'free' } as Record<string, unknown>);
    try {
      const paymentRequired = await rejection(management.prompts.rendering.list());
      expect(paymentRequired.constructor.name).toBe('PaymentRequiredError');
      expect(paymentRequired.statusCode).toBe(402);
    } finally {
      await management.tenants.settings.update({ subscription: 'paid' } as Record<string, unknown>);
    }
  });
});
