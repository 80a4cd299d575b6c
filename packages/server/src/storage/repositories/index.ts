import type { Kysely } from 'kysely';
import type { ClientGrantData } from '../../services/client-grants.js';
import type { ClientData } from '../../services/clients.js';
import type { ConnectionData } from '../../services/connections.js';
import type { ResourceServerData } from '../../services/resource-servers.js';
import type { UserData } from '../../services/users.js';
import type { Database } from '../schema.js';
import { artifactsRepository } from './artifacts.js';
import { documentRepository, type DocumentTable } from './documents.js';
import { renderingConfigsRepository } from './rendering-configs.js';
import { signingKeysRepository } from './signing-keys.js';
import { tenantsRepository } from './tenants.js';

/** Tables whose writes are announced to storage.onChange listeners (the configuration caches). */
export type ChangedTable = DocumentTable | 'tenants' | 'rendering_configs';

export type ClientColumns = { secret_hash: string | null };
export type ResourceServerColumns = { identifier: string; is_system: number };
export type ClientGrantColumns = { client_id: string; audience: string };
export type ConnectionColumns = { name: string; strategy: string };
export type UserColumns = {
  connection: string;
  email: string | null;
  username: string | null;
  password_hash: string | null;
  updated_at: string;
  /** The primary of a linked secondary account (the one record of the link); lists of users leave such rows out. */
  linked_to: string | null;
};

/**
 * The repositories, bound to a database handle or to a transaction. Documents are typed with the services'
 * data shapes; the repositories themselves only know columns.
 */
export function createRepositories(db: Kysely<Database>, changed?: (table: ChangedTable) => void) {
  return {
    tenants: tenantsRepository(db, () => changed?.('tenants')),
    signingKeys: signingKeysRepository(db),
    clients: documentRepository<ClientData, ClientColumns>(db, 'clients', 'client_id', ['secret_hash'], changed),
    resourceServers: documentRepository<ResourceServerData, ResourceServerColumns>(db, 'resource_servers', 'id', [
      'identifier',
      'is_system',
    ], changed),
    clientGrants: documentRepository<ClientGrantData, ClientGrantColumns>(db, 'client_grants', 'id', ['client_id', 'audience'], changed),
    connections: documentRepository<ConnectionData, ConnectionColumns>(db, 'connections', 'id', ['name', 'strategy'], changed),
    users: documentRepository<UserData, UserColumns>(db, 'users', 'user_id', [
      'connection',
      'email',
      'username',
      'password_hash',
      'updated_at',
      'linked_to',
    ], changed),
    renderingConfigs: renderingConfigsRepository(db, () => changed?.('rendering_configs')),
    artifacts: artifactsRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
