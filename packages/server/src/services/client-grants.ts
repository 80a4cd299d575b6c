import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { found, uniquely } from './unique.js';

/** A client's permission to obtain tokens for an API, with the scopes it may receive. */
export interface ClientGrantData {
  client_id: string;
  audience: string;
  scope: string[];
}

export interface ClientGrantView extends ClientGrantData {
  id: string;
}

export interface ClientGrantsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

export function clientGrantsService(deps: ClientGrantsDeps) {
  const { storage, tenantId } = deps;
  const load = async (id: string) => found(await storage.clientGrants.get(tenantId, id), 'The client grant does not exist.');

  /** Every scope must be one the API defines. */
  async function checkScopes(audience: string, scopes: readonly string[]) {
    const api = found(await storage.resourceServers.findOne(tenantId, { identifier: audience }), `No resource server found for audience ${audience}.`);
    const defined = new Set(api.data.scopes.map((scope) => scope.value));
    const unknown = scopes.filter((scope) => !defined.has(scope));
    if (unknown.length > 0) throw new ServiceError('invalid', `Scopes not defined by the resource server: ${unknown.join(', ')}.`);
  }

  return {
    async list(window: PageWindow, where: { audience?: string; client_id?: string }) {
      const page = await storage.clientGrants.list(tenantId, window, where);
      return { items: page.items.map((record): ClientGrantView => ({ ...record.data, id: record.id })), total: page.total };
    },
    async create(input: ClientGrantData): Promise<ClientGrantView> {
      found(await storage.clients.get(tenantId, input.client_id), 'The client does not exist.');
      await checkScopes(input.audience, input.scope);
      const id = `cgr_${randomHexId()}`;
      const data = { client_id: input.client_id, audience: input.audience, scope: [...new Set(input.scope)] };
      await uniquely(storage, 'A client grant for this client and audience already exists.', () =>
        storage.clientGrants.insert(tenantId, { id, columns: { client_id: data.client_id, audience: data.audience }, data, createdAt: deps.now().toISOString() }),
      );
      return { ...data, id };
    },
    async update(id: string, patch: { scope?: string[] }): Promise<ClientGrantView> {
      const record = await load(id);
      const data = { ...record.data, ...(patch.scope ? { scope: [...new Set(patch.scope)] } : {}) };
      await checkScopes(data.audience, data.scope);
      await storage.clientGrants.update(tenantId, id, { data });
      return { ...data, id };
    },
    async remove(id: string) {
      await load(id);
      await storage.clientGrants.remove(tenantId, id);
    },
  };
}
