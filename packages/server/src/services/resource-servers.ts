import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { ResourceServerData } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { found, uniquely } from './unique.js';

export type { ResourceServerData, ResourceServerScope } from '../storage/records.js';
import type { TokenDialect } from '../storage/records.js';

export const DEFAULT_TOKEN_LIFETIME = 86_400;
/** The longest access-token lifetime an API may set (30 days, as on the platform). */
export const MAX_TOKEN_LIFETIME = 2_592_000;

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
    enforce_policies: input.enforce_policies ?? false,
    token_dialect: input.token_dialect ?? 'access_token',
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
  enforce_policies: boolean;
  token_dialect: TokenDialect;
}

export type ResourceServerInput = Partial<ResourceServerData>;

/** The identifier is fixed at creation (the platform's update body has no such field). */
export type ResourceServerPatch = Omit<ResourceServerInput, 'identifier'>;

export interface ResourceServersDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

/**
 * Fields of the system API that the bootstrap owns: it writes them again on every start, so a change would
 * silently revert. Its token lifetime and consent settings remain the operator's.
 */
const SYSTEM_OWNED = ['name', 'scopes'] as const;

const noResourceServer = () => new ServiceError('not_found', 'The resource server does not exist', 'inexistent_resource');

/** APIs that access tokens are issued for. The Management API itself is one (a system one). */
export function resourceServersService(deps: ResourceServersDeps) {
  const { storage, tenantId } = deps;
  // APIs stored before RBAC have neither field: they answer with the defaults.
  const view = (id: string, isSystem: number, data: ResourceServerData): ResourceServerView => ({ enforce_policies: false, token_dialect: 'access_token', ...data, id, is_system: isSystem === 1 });
  /** The platform addresses a resource server by its id or by its (URL-encoded) identifier. */
  const lookup = async (idOrIdentifier: string) =>
    (await storage.resourceServers.get(tenantId, idOrIdentifier)) ?? (await storage.resourceServers.findOne(tenantId, { identifier: idOrIdentifier }));

  return {
    async list(window: PageWindow, where: { identifiers?: readonly string[] } = {}) {
      const page = await storage.resourceServers.list(tenantId, window, where.identifiers ? { identifier: where.identifiers } : {});
      return { items: page.items.map((record) => view(record.id, record.columns.is_system, record.data)), total: page.total };
    },
    async get(idOrIdentifier: string) {
      const record = found(await lookup(idOrIdentifier), noResourceServer);
      return view(record.id, record.columns.is_system, record.data);
    },
    async create(input: ResourceServerInput & { identifier: string }) {
      const data = newResourceServerData(input);
      const id = newResourceServerId();
      await uniquely(
        storage,
        () => new ServiceError('conflict', 'A resource server with the same identifier already exists', 'conflict'),
        () => storage.resourceServers.insert(tenantId, { id, columns: { identifier: data.identifier, is_system: 0 }, data, createdAt: deps.now().toISOString() }),
      );
      return view(id, 0, data);
    },
    async update(idOrIdentifier: string, patch: ResourceServerPatch) {
      const record = found(await lookup(idOrIdentifier), noResourceServer);
      const owned = SYSTEM_OWNED.filter((field) => patch[field] !== undefined);
      if (record.columns.is_system === 1 && owned.length > 0) {
        throw new ServiceError('forbidden', `The ${owned.join(' and ')} of the system Management API cannot be changed.`, 'forbidden');
      }
      const data = { ...record.data, ...patch };
      // A scope taken off the API is no longer a permission: roles and users lose it in the same transaction.
      const updated = await storage.transaction(async (repos) => {
        if (!(await repos.resourceServers.update(tenantId, record.id, { data }))) return false;
        if (patch.scopes !== undefined) await repos.roles.removePermissionsOfApi(tenantId, record.columns.identifier, patch.scopes.map((scope) => scope.value));
        return true;
      });
      if (!updated) throw noResourceServer();
      return view(record.id, record.columns.is_system, data);
    },
    /** Removes the API, every client grant for it and its permissions held by roles and users; removing a missing one is a no-op, the system one is refused. */
    async remove(idOrIdentifier: string) {
      const record = await lookup(idOrIdentifier);
      if (!record) return;
      if (record.columns.is_system === 1) {
        throw new ServiceError('forbidden', 'The system Management API cannot be deleted.', 'forbidden');
      }
      await storage.transaction(async (repos) => {
        await repos.clientGrants.removeWhere(tenantId, { audience: record.columns.identifier });
        await repos.roles.removePermissionsOfApi(tenantId, record.columns.identifier);
        await repos.consents.removeWhere(tenantId, { audience: record.columns.identifier });
        await repos.resourceServers.remove(tenantId, record.id);
      });
    },
  };
}
