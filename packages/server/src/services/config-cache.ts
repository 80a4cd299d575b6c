import type { ClientGrantData } from './client-grants.js';
import type { ClientData } from './clients.js';
import type { ConnectionData } from './connections.js';
import type { CustomTexts } from './prompts/custom-texts.js';
import type { ResourceServerData } from './resource-servers.js';
import type { TenantDocument } from './tenant-settings.js';
import type { ChangedTable } from '../storage/repositories/index.js';
import type { PageOf, PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';

export interface CachedClient {
  clientId: string;
  secretHash: string | null;
  data: ClientData;
}

export interface OAuthConfigDeps {
  storage: Storage;
  tenantId: string;
  /** How long a looked-up entry may serve other requests; 0 reads the database every time. */
  ttlMs: number;
  nowMs?: () => number;
  /** APIs that exist without being stored (the MFA API's audience): found by their identifier before the stored ones. */
  builtInApis?: readonly ResourceServerData[];
}

const CACHED_TABLES: ReadonlySet<ChangedTable> = new Set(['clients', 'resource_servers', 'client_grants', 'connections', 'tenants', 'rendering_configs', 'prompt_custom_texts']);

/**
 * The clients, APIs, client grants, database connections, tenant settings, rendering configurations and custom
 * texts that every token request and login reads, kept for a short while. Three indexed
 * lookups cost a client-credentials request about a fifth of its time on SQLite (bench/). A write through this
 * process clears the cache at once, and so does a write through another node that the change bus reports
 * (services/change-bus: PostgreSQL LISTEN/NOTIFY or Redis pub/sub); without a bus, such a write is seen after at
 * most `ttlMs` (LATCHKEY_CONFIG_CACHE_SECONDS).
 */
/** Every document of a paginated list, page after page. */
async function everyPage<Data>(list: (window: PageWindow) => Promise<PageOf<{ data: Data }>>): Promise<Data[]> {
  const all: Data[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await list({ offset, limit: 100 });
    all.push(...page.items.map((record) => record.data));
    if (offset + 100 >= page.total) return all;
  }
}

export function oauthConfigCache(deps: OAuthConfigDeps) {
  const { storage, tenantId, ttlMs } = deps;
  const nowMs = deps.nowMs ?? Date.now;
  const entries = new Map<string, { value: unknown; expires: number }>();
  // Bumped by every local write: a lookup that began before a write must not store what it read.
  let generation = 0;
  storage.onChange((table) => {
    if (!CACHED_TABLES.has(table)) return;
    generation += 1;
    entries.clear();
  });

  async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (ttlMs <= 0) return load();
    const hit = entries.get(key);
    if (hit && hit.expires > nowMs()) return hit.value as T;
    const startedAt = generation;
    const value = await load();
    if (startedAt === generation) entries.set(key, { value, expires: nowMs() + ttlMs });
    return value;
  }

  return {
    client: (clientId: string): Promise<CachedClient | undefined> =>
      cached(`c:${clientId}`, async () => {
        const record = await storage.clients.get(tenantId, clientId);
        return record && { clientId: record.id, secretHash: record.columns.secret_hash, data: record.data };
      }),
    resourceServer: (identifier: string): Promise<ResourceServerData | undefined> =>
      cached(`r:${identifier}`, async () => deps.builtInApis?.find((api) => api.identifier === identifier) ?? (await storage.resourceServers.findOne(tenantId, { identifier }))?.data),
    /** Every origin some application allows (web origins and allowed origins): the tenant's CORS list. */
    allowedOrigins: (): Promise<ReadonlySet<string>> =>
      cached('origins', async () => {
        const clients = await everyPage((window) => storage.clients.list(tenantId, window));
        return new Set(clients.flatMap((client) => [...client.web_origins, ...client.allowed_origins]));
      }),
    /** The database connections (strategy `auth0`) in creation order; a login reads them on every page. */
    databaseConnections: (): Promise<readonly ConnectionData[]> =>
      cached('db-connections', () => everyPage((window) => storage.connections.list(tenantId, window, { strategy: 'auth0' }))),
    /**
     * The connections whose login happens at another provider (OpenID Connect, OAuth 2.0, SAML) in creation order:
     * the login and signup screens offer them on every page.
     */
    federatedConnections: (): Promise<readonly ConnectionData[]> =>
      cached('federated-connections', () => everyPage((window) => storage.connections.list(tenantId, window, { strategy: ['oidc', 'oauth2', 'samlp'] }))),
    /** The tenant's settings document (the hosted pages and logout read it on every request). */
    tenantDocument: (): Promise<TenantDocument | undefined> => cached('tenant', async () => (await storage.tenants.get<TenantDocument>(tenantId))?.settings),
    /** The stored rendering configuration of one prompt and screen (the hosted pages apply it). */
    renderingConfig: (prompt: string, screen: string): Promise<Record<string, unknown> | undefined> =>
      cached(`rc:${prompt}\n${screen}`, async () => (await storage.renderingConfigs.get<Record<string, unknown>>(tenantId, prompt, screen))?.data),
    /**
     * The stored custom texts of one prompt in one language (the hosted pages show them); frozen, since every
     * request that reads them shares the one object.
     */
    customTexts: (prompt: string, language: string): Promise<Readonly<CustomTexts> | undefined> =>
      cached(`ct:${prompt}\n${language}`, async () => {
        const texts = await storage.promptCustomTexts.get<CustomTexts>(tenantId, prompt, language);
        if (!texts) return undefined;
        for (const screen of Object.values(texts)) Object.freeze(screen);
        return Object.freeze(texts);
      }),
    /** One connection by name, with its id (post-login Actions describe the login's connection on every sign-in). */
    connectionNamed: (name: string): Promise<{ id: string; data: ConnectionData } | undefined> =>
      cached(`cn:${name}`, async () => {
        const record = await storage.connections.findOne(tenantId, { name });
        return record && { id: record.id, data: record.data };
      }),
    clientGrant: (clientId: string, audience: string): Promise<ClientGrantData | undefined> =>
      cached(`g:${clientId}\n${audience}`, async () => (await storage.clientGrants.findOne(tenantId, { client_id: clientId, audience }))?.data),
  };
}

export type OAuthConfig = ReturnType<typeof oauthConfigCache>;
