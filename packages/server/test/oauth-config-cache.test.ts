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

  it('still answers the admin client on both nodes', async () => {
    expect(await tokenStatus(nodeA, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)).toBe(200);
    expect(await tokenStatus(nodeB, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)).toBe(200);
  });
});
