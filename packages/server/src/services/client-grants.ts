import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { ClientGrantData } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { found, uniquely } from './unique.js';

export type { ClientGrantData } from '../storage/records.js';

export interface ClientGrantView extends ClientGrantData {
  id: string;
}

export interface ClientGrantsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

const noGrant = () => new ServiceError('not_found', 'The client grant does not exist', 'inexistent_resource');

export function clientGrantsService(deps: ClientGrantsDeps) {
  const { storage, tenantId } = deps;
  const load = async (id: string) => found(await storage.clientGrants.get(tenantId, id), noGrant);
  const view = (id: string, data: ClientGrantData): ClientGrantView => ({ ...data, id });

  /** The audience must be an API that exists, and every scope one it defines. */
  async function checkScopes(audience: string, scopes: readonly string[]) {
    const api = found(
      await storage.resourceServers.findOne(tenantId, { identifier: audience }),
      () => new ServiceError('not_found', `No resource server found for audience ${audience}`, 'inexistent_resource'),
    );
    const defined = new Set(api.data.scopes.map((scope) => scope.value));
    const unknown = scopes.filter((scope) => !defined.has(scope));
    if (unknown.length > 0) throw new ServiceError('invalid', `Scopes not defined by the resource server: ${unknown.join(', ')}.`, 'invalid_body');
  }

  return {
    async list(window: PageWindow, where: { audience?: string; client_id?: string }) {
      const page = await storage.clientGrants.list(tenantId, window, where);
      return { items: page.items.map((record) => view(record.id, record.data)), total: page.total };
    },
    async get(id: string): Promise<ClientGrantView> {
      const record = await load(id);
      return view(record.id, record.data);
    },
    async create(input: { client_id: string; audience: string; scope?: string[] }): Promise<ClientGrantView> {
      found(await storage.clients.get(tenantId, input.client_id), () => new ServiceError('not_found', 'The client does not exist', 'inexistent_client'));
      const data = { client_id: input.client_id, audience: input.audience, scope: [...new Set(input.scope ?? [])] };
      await checkScopes(data.audience, data.scope);
      const id = `cgr_${randomHexId()}`;
      await uniquely(
        storage,
        () => new ServiceError('conflict', 'A client grant for this client and audience already exists', 'conflict'),
        () => storage.clientGrants.insert(tenantId, { id, columns: { client_id: data.client_id, audience: data.audience }, data, createdAt: deps.now().toISOString() }),
      );
      return view(id, data);
    },
    /** Replaces the scopes (`null` means none). */
    async update(id: string, patch: { scope?: string[] | null }): Promise<ClientGrantView> {
      const record = await load(id);
      const data = patch.scope === undefined ? record.data : { ...record.data, scope: [...new Set(patch.scope ?? [])] };
      await checkScopes(data.audience, data.scope);
      if (!(await storage.clientGrants.update(tenantId, id, { data }))) throw noGrant();
      return view(id, data);
    },
    /** Removing a missing grant is a no-op, as on the platform. */
    async remove(id: string) {
      await storage.clientGrants.remove(tenantId, id);
    },
  };
}
