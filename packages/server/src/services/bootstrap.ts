import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateClientSecret, hashClientSecret } from '../crypto/client-secret.js';
import { randomHexId } from '../crypto/random.js';
import { MANAGEMENT_SCOPES } from './management-scopes.js';
import type { Repositories } from '../storage/repositories/index.js';
import type { Storage } from '../storage/storage.js';
import { newClientData, newClientId } from './clients.js';
import { managementApiIdentifier, newResourceServerData, newResourceServerId } from './resource-servers.js';
import { defaultTenantDocument, type TenantDocument } from './tenant-settings.js';

export interface BootstrapOptions {
  storage: Storage;
  tenantId: string;
  issuer: string;
  clientSecretKey: Buffer;
  dataDir: string;
  /** Fixed admin credentials from the environment; otherwise they are generated once. */
  adminCredentials: { clientId: string; clientSecret: string } | undefined;
  now: () => Date;
}

export interface BootstrapResult {
  adminClientId: string;
  /** Where generated credentials were written, if they were. */
  credentialsFile: string | undefined;
}

const CREDENTIALS_FILE = 'admin-credentials.json';

/**
 * The platform's name for its Management API. Tools recognise the system API by this name alone (the platform's
 * deploy CLI leaves it out of exports and refuses to configure it), so Latchkey's carries the same one.
 */
export const MANAGEMENT_API_NAME = 'Auth0 Management API';

async function ensureManagementApi(repos: Repositories, tenantId: string, issuer: string, at: string) {
  const identifier = managementApiIdentifier(issuer);
  const scopes = MANAGEMENT_SCOPES.map((value) => ({ value, description: value }));
  const existing = await repos.resourceServers.findOne(tenantId, { identifier });
  const data = newResourceServerData({ ...(existing?.data ?? {}), name: MANAGEMENT_API_NAME, identifier, scopes });
  if (existing) {
    await repos.resourceServers.update(tenantId, existing.id, { data });
  } else {
    await repos.resourceServers.insert(tenantId, { id: newResourceServerId(), columns: { identifier, is_system: 1 }, data, createdAt: at });
  }
  return identifier;
}

async function ensureGrant(repos: Repositories, tenantId: string, clientId: string, audience: string, at: string) {
  const existing = await repos.clientGrants.findOne(tenantId, { client_id: clientId, audience });
  const data = { client_id: clientId, audience, scope: [...MANAGEMENT_SCOPES] };
  if (existing) await repos.clientGrants.update(tenantId, existing.id, { data });
  else await repos.clientGrants.insert(tenantId, { id: `cgr_${randomHexId()}`, columns: { client_id: clientId, audience }, data, createdAt: at });
}

function readCredentialsFile(file: string): { client_id: string; client_secret: string } | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as { client_id: string; client_secret: string };
}

/**
 * Makes sure the tenant, the Management API resource server (every scope) and the admin application with a
 * client grant for every scope exist. Safe to run on every start, and on several nodes at once.
 */
export async function bootstrap(options: BootstrapOptions): Promise<BootstrapResult> {
  const { storage, tenantId, issuer, clientSecretKey, dataDir, now } = options;
  return storage.exclusive(`latchkey:bootstrap:${tenantId}`, async (repos) => {
    const at = now().toISOString();
    await repos.tenants.insertIfMissing(tenantId, defaultTenantDocument(tenantId), at);
    const tenant = await repos.tenants.get<TenantDocument>(tenantId);
    if (!tenant) throw new Error('tenant vanished during bootstrap');
    const audience = await ensureManagementApi(repos, tenantId, issuer, at);
    const adminData = newClientData({
      name: 'Latchkey Admin (bootstrap)',
      app_type: 'non_interactive',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
    });

    let clientId: string;
    let credentialsFile: string | undefined;
    if (options.adminCredentials) {
      clientId = options.adminCredentials.clientId;
      const secretHash = hashClientSecret(clientSecretKey, options.adminCredentials.clientSecret);
      const inserted = await repos.clients.insert(tenantId, { id: clientId, columns: { secret_hash: secretHash }, data: adminData, createdAt: at }, { ifMissing: true });
      if (!inserted) await repos.clients.update(tenantId, clientId, { columns: { secret_hash: secretHash } });
    } else {
      const file = join(dataDir, CREDENTIALS_FILE);
      const saved = readCredentialsFile(file);
      const known = tenant.settings.bootstrap.admin_client_id;
      if (saved && (await repos.clients.get(tenantId, saved.client_id))) {
        clientId = saved.client_id;
      } else if (known && !saved && (await repos.clients.get(tenantId, known))) {
        // Another node generated the credentials; this one has no copy of the secret and must not mint a second admin.
        clientId = known;
      } else {
        clientId = newClientId();
        const secret = generateClientSecret();
        await repos.clients.insert(tenantId, {
          id: clientId,
          columns: { secret_hash: hashClientSecret(clientSecretKey, secret) },
          data: adminData,
          createdAt: at,
        });
        mkdirSync(dataDir, { recursive: true });
        writeFileSync(file, `${JSON.stringify({ client_id: clientId, client_secret: secret, audience }, null, 2)}\n`, { mode: 0o600 });
        credentialsFile = file;
      }
    }
    if (tenant.settings.bootstrap.admin_client_id !== clientId) {
      await repos.tenants.updateSettings(tenantId, { ...tenant.settings, bootstrap: { admin_client_id: clientId } });
    }
    await ensureGrant(repos, tenantId, clientId, audience, at);
    return { adminClientId: clientId, credentialsFile };
  });
}
