import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { found, uniquely } from './unique.js';

export interface ResourceServerScope {
  value: string;
  description?: string;
}

export interface ResourceServerData {
  name: string;
  identifier: string;
  scopes: ResourceServerScope[];
  token_lifetime: number;
  signing_alg: 'RS256';
  allow_offline_access: boolean;
  skip_consent_for_verifiable_first_party_clients: boolean;
}

export const DEFAULT_TOKEN_LIFETIME = 86_400;

export function newResourceServerData(input: Partial<ResourceServerData> & { identifier: string }): ResourceServerData {
  return {
    ...input,
    name: input.name ?? input.identifier,
    identifier: input.identifier,
    scopes: input.scopes ?? [],
    token_lifetime: input.token_lifetime ?? DEFAULT_TOKEN_LIFETIME,
    signing_alg: 'RS256',
    allow_offline_access: input.allow_offline_access ?? false,
    skip_consent_for_verifiable_first_party_clients: input.skip_consent_for_verifiable_first_party_clients ?? true,
  };
}

export function newResourceServerId(): string {
  return randomHexId();
}

/** The Management API's identifier: `$LATCHKEY_ISSUER/api/v2/`. */
export function managementApiIdentifier(issuer: string): string {
  return `${issuer}/api/v2/`;
}

export interface ResourceServerView extends ResourceServerData {
  id: string;
  is_system: boolean;
}

export type ResourceServerInput = Partial<ResourceServerData>;

export interface ResourceServersDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

const SYSTEM_READ_ONLY = 'The Management API is a system resource server and cannot be changed or deleted.';

/** APIs that access tokens are issued for. The Management API itself is one (a system one). */
export function resourceServersService(deps: ResourceServersDeps) {
  const { storage, tenantId } = deps;
  const view = (id: string, isSystem: number, data: ResourceServerData): ResourceServerView => ({ ...data, id, is_system: isSystem === 1 });
  /** The platform addresses a resource server by its id or by its (URL-encoded) identifier. */
  const load = async (idOrIdentifier: string) =>
    found(
      (await storage.resourceServers.get(tenantId, idOrIdentifier)) ??
        (await storage.resourceServers.findOne(tenantId, { identifier: idOrIdentifier })),
      'The resource server does not exist.',
    );

  return {
    async list(window: PageWindow) {
      const page = await storage.resourceServers.list(tenantId, window);
      return { items: page.items.map((record) => view(record.id, record.columns.is_system, record.data)), total: page.total };
    },
    async get(idOrIdentifier: string) {
      const record = await load(idOrIdentifier);
      return view(record.id, record.columns.is_system, record.data);
    },
    async create(input: ResourceServerInput & { identifier: string }) {
      const data = newResourceServerData(input);
      const id = newResourceServerId();
      await uniquely(storage, 'A resource server with the same identifier already exists.', () =>
        storage.resourceServers.insert(tenantId, { id, columns: { identifier: data.identifier, is_system: 0 }, data, createdAt: deps.now().toISOString() }),
      );
      return view(id, 0, data);
    },
    async update(idOrIdentifier: string, patch: Omit<ResourceServerInput, 'identifier'>) {
      const record = await load(idOrIdentifier);
      if (record.columns.is_system === 1) throw new ServiceError('forbidden', SYSTEM_READ_ONLY);
      const data = { ...record.data, ...patch };
      await storage.resourceServers.update(tenantId, record.id, { data });
      return view(record.id, 0, data);
    },
    /** Removes the API and every client grant for it. */
    async remove(idOrIdentifier: string) {
      const record = await load(idOrIdentifier);
      if (record.columns.is_system === 1) throw new ServiceError('forbidden', SYSTEM_READ_ONLY);
      await storage.transaction(async (repos) => {
        await repos.clientGrants.removeWhere(tenantId, { audience: record.columns.identifier });
        await repos.resourceServers.remove(tenantId, record.id);
      });
    },
  };
}
