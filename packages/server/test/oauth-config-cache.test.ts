import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

/**
 * The token endpoint reads clients, APIs and client grants through a short-lived cache. A change made through a
 * node must apply there at once; a change made through another node within LATCHKEY_CONFIG_CACHE_SECONDS.
 */
describe.each(DIALECTS)('configuration cache of the token endpoint (%s)', (dialect) => {
  let nodeA: TestServer;
  let nodeB: TestServer;
  beforeAll(async () => {
    nodeA = await startTestServer({ dialect, listen: true, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '1' } });
    nodeB = await startTestServer({ dialect, listen: true, shareWith: nodeA, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '1' } });
  });
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
  });

  const tokenStatus = async (node: TestServer, clientId: string, clientSecret: string) => {
    const response = await fetch(`${node.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: nodeA.audience }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  async function machineClient(name: string) {
    const api = managementApi(nodeA, 'socket');
    const token = await nodeA.token('create:clients create:client_grants delete:client_grants update:client_keys');
    const client = await api('POST', '/clients', { name, app_type: 'non_interactive' }, token);
    expect(client.status).toBe(201);
    const clientId = String(client.body.client_id);
    const grant = await api('POST', '/client-grants', { client_id: clientId, audience: nodeA.audience, scope: ['read:users'] }, token);
    expect(grant.status).toBe(201);
    return { api, token, clientId, secret: String(client.body.client_secret), grantId: String(grant.body.id) };
  }

  it('applies a removed client grant and a rotated secret on the same node at once', async () => {
    const { api, token, clientId, secret, grantId } = await machineClient(`cache-local-${dialect}`);
    expect(await tokenStatus(nodeA, clientId, secret)).toBe(200);
    expect((await api('DELETE', `/client-grants/${grantId}`, undefined, token)).status).toBe(204);
    expect(await tokenStatus(nodeA, clientId, secret)).toBe(403);

    const rotated = await api('POST', `/clients/${clientId}/rotate-secret`, undefined, token);
    expect(rotated.status).toBe(200);
    expect(await tokenStatus(nodeA, clientId, secret)).toBe(401);
  });

  it('applies a change made through another node within the cache lifetime', async () => {
    const { api, token, clientId, secret, grantId } = await machineClient(`cache-remote-${dialect}`);
    expect(await tokenStatus(nodeB, clientId, secret)).toBe(200);
    expect((await api('DELETE', `/client-grants/${grantId}`, undefined, token)).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await tokenStatus(nodeB, clientId, secret)).toBe(403);
  });

  it('serves tenant settings, rendering configurations and database connections to the login pages the same way', async () => {
    const api = managementApi(nodeA, 'socket');
    const token = await nodeA.token('update:tenant_settings update:prompts create:connections update:connections');
    const friendly = () => Promise.all([nodeA, nodeB].map(async (node) => (await node.registry.oauthConfig.tenantDocument())?.settings.friendly_name));
    const headTags = () => Promise.all([nodeA, nodeB].map(async (node) => (await node.registry.oauthConfig.renderingConfig('login-id', 'login-id'))?.head_tags));
    const connectionNames = () => Promise.all([nodeA, nodeB].map(async (node) => (await node.registry.oauthConfig.databaseConnections()).map((c) => c.name)));
    const name = `cache-db-${dialect}`;
    const before = { friendly: await friendly(), headTags: await headTags(), connections: await connectionNames() };
    expect(before.connections[0]).not.toContain(name);

    expect((await api('PATCH', '/tenants/settings', { friendly_name: `Cached ${dialect}` }, token)).status).toBe(200);
    const tags = [{ tag: 'meta', attributes: { name: 'cached', content: dialect } }];
    expect((await api('PATCH', '/prompts/login-id/screen/login-id/rendering', { rendering_mode: 'advanced', head_tags: tags }, token)).status).toBe(200);
    expect((await api('POST', '/connections', { name, strategy: 'auth0' }, token)).status).toBe(201);
    // The node that wrote sees every change at once. Without a change bus (one SQLite file and no Redis), the other
    // keeps what it read until its entries expire; on PostgreSQL it hears of the change (change-bus.test.ts).
    expect((await friendly())[0]).toBe(`Cached ${dialect}`);
    expect((await headTags())[0]).toEqual(tags);
    expect((await connectionNames())[0]).toContain(name);
    if (dialect === 'sqlite') {
      expect((await friendly())[1]).toBe(before.friendly[1]);
      expect((await headTags())[1]).toEqual(before.headTags[1]);
      expect((await connectionNames())[1]).not.toContain(name);
    }
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await friendly()).toEqual([`Cached ${dialect}`, `Cached ${dialect}`]);
    expect(await headTags()).toEqual([tags, tags]);
    expect((await connectionNames())[1]).toContain(name);
  });

  it('still answers the admin client on both nodes', async () => {
    expect(await tokenStatus(nodeA, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)).toBe(200);
    expect(await tokenStatus(nodeB, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)).toBe(200);
  });
});
