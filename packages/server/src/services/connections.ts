import { randomId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import { found, uniquely } from './unique.js';

export const STRATEGIES = ['auth0', 'email', 'sms', 'samlp', 'oidc'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface ConnectionData {
  name: string;
  strategy: Strategy;
  display_name?: string;
  enabled_clients: string[];
  options: Record<string, unknown>;
  is_domain_connection: boolean;
  realms: string[];
}

export interface ConnectionView extends ConnectionData {
  id: string;
}

export type ConnectionInput = Pick<ConnectionData, 'name' | 'strategy'> & Partial<Omit<ConnectionData, 'name' | 'strategy'>>;
export type ConnectionPatch = Partial<Pick<ConnectionData, 'display_name' | 'enabled_clients' | 'options' | 'is_domain_connection' | 'realms'>>;

export interface ConnectionsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

/** Where users come from: a database (`auth0`), passwordless (`email`, `sms`) or a federation (`samlp`, `oidc`). */
export function connectionsService(deps: ConnectionsDeps) {
  const { storage, tenantId } = deps;
  const load = async (id: string) => found(await storage.connections.get(tenantId, id), 'The connection does not exist.');

  return {
    async list(window: PageWindow, where: { strategy?: string; name?: string }) {
      const page = await storage.connections.list(tenantId, window, where);
      return { items: page.items.map((record): ConnectionView => ({ ...record.data, id: record.id })), total: page.total };
    },
    async get(id: string): Promise<ConnectionView> {
      const record = await load(id);
      return { ...record.data, id: record.id };
    },
    async create(input: ConnectionInput): Promise<ConnectionView> {
      const data: ConnectionData = {
        enabled_clients: [],
        options: {},
        is_domain_connection: false,
        realms: [input.name],
        ...input,
      };
      const id = `con_${randomId(16)}`;
      await uniquely(storage, 'A connection with the same name already exists.', () =>
        storage.connections.insert(tenantId, { id, columns: { name: data.name, strategy: data.strategy }, data, createdAt: deps.now().toISOString() }),
      );
      return { ...data, id };
    },
    /** Name and strategy are fixed at creation; `options` is replaced as a whole, as the platform does. */
    async update(id: string, patch: ConnectionPatch): Promise<ConnectionView> {
      const record = await load(id);
      const data = { ...record.data, ...patch };
      await storage.connections.update(tenantId, id, { data });
      return { ...data, id };
    },
    /** Removes the connection and the users that belong to it, together. */
    async remove(id: string) {
      const record = await load(id);
      await storage.transaction(async (repos) => {
        await repos.users.removeWhere(tenantId, { connection: record.data.name });
        await repos.connections.remove(tenantId, id);
      });
    },
  };
}
