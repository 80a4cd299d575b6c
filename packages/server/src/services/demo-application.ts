import { randomHexId, randomId } from '../crypto/random.js';
import { CURRENT_USER_SCOPES } from './management-scopes.js';
import type { Storage } from '../storage/storage.js';
import { newClientData } from './clients.js';
import type { ConnectionData } from './connections.js';
import { managementApiIdentifier } from './resource-servers.js';

/** The demo's public single-page application (a fixed, readable id: it has no secret and exists only in development). */
export const DEMO_CLIENT_ID = 'latchkey-demo';
export const DEMO_DATABASE_CONNECTION = 'Username-Password-Authentication';
export const DEMO_PASSWORDLESS_CONNECTION = 'email';

export interface DemoDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  now: () => Date;
}

/**
 * Provisions what the development demo at `/demo/` uses, once: its client (redirect, popup and embedded login
 * from the service's own origin), a database and an e-mail connection enabled for it, and a client grant for
 * the current-user Management API scopes. Existing objects are kept as an operator may have changed them; the
 * demo client is only added to the connections' enabled clients.
 */
export async function ensureDemoApplication(deps: DemoDeps): Promise<void> {
  const { storage, tenantId, issuer } = deps;
  await storage.exclusive(`latchkey:demo:${tenantId}`, async (repos) => {
    const at = deps.now().toISOString();
    const origin = new URL(issuer).origin;
    const client = newClientData({
      name: 'Latchkey demo (development only)',
      app_type: 'spa',
      callbacks: [`${issuer}/demo/`, `${issuer}/demo/popup-callback.html`],
      allowed_logout_urls: [`${issuer}/demo/`],
      web_origins: [origin],
      allowed_origins: [origin],
      cross_origin_authentication: true,
      grant_types: ['authorization_code', 'implicit', 'refresh_token'],
    });
    await repos.clients.insert(tenantId, { id: DEMO_CLIENT_ID, columns: { secret_hash: null }, data: client, createdAt: at }, { ifMissing: true });

    for (const [name, strategy] of [[DEMO_DATABASE_CONNECTION, 'auth0'], [DEMO_PASSWORDLESS_CONNECTION, 'email']] as const) {
      const existing = await repos.connections.findOne(tenantId, { name });
      if (existing) {
        if (!existing.data.enabled_clients.includes(DEMO_CLIENT_ID)) {
          await repos.connections.update(tenantId, existing.id, { data: { ...existing.data, enabled_clients: [...existing.data.enabled_clients, DEMO_CLIENT_ID] } });
        }
        continue;
      }
      const data: ConnectionData = { name, strategy, enabled_clients: [DEMO_CLIENT_ID], options: {}, is_domain_connection: false, show_as_button: false, realms: [name], metadata: {} };
      await repos.connections.insert(tenantId, { id: `con_${randomId(16)}`, columns: { name, strategy }, data, createdAt: at });
    }

    const audience = managementApiIdentifier(issuer);
    if (!(await repos.clientGrants.findOne(tenantId, { client_id: DEMO_CLIENT_ID, audience }))) {
      const data = { client_id: DEMO_CLIENT_ID, audience, scope: [...CURRENT_USER_SCOPES] };
      await repos.clientGrants.insert(tenantId, { id: `cgr_${randomHexId()}`, columns: { client_id: DEMO_CLIENT_ID, audience }, data, createdAt: at });
    }
  });
}
