import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { documentRepository } from './documents.js';
import { renderingConfigsRepository } from './rendering-configs.js';
import { signingKeysRepository } from './signing-keys.js';
import { tenantsRepository } from './tenants.js';

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
};

/**
 * The repositories, bound to a database handle or to a transaction. Documents are typed by their services;
 * the repositories only know columns.
 */
export function createRepositories(db: Kysely<Database>) {
  return {
    tenants: tenantsRepository(db),
    signingKeys: signingKeysRepository(db),
    clients: documentRepository<Record<string, unknown>, ClientColumns>(db, 'clients', 'client_id', ['secret_hash']),
    resourceServers: documentRepository<Record<string, unknown>, ResourceServerColumns>(db, 'resource_servers', 'id', [
      'identifier',
      'is_system',
    ]),
    clientGrants: documentRepository<Record<string, unknown>, ClientGrantColumns>(db, 'client_grants', 'id', ['client_id', 'audience']),
    connections: documentRepository<Record<string, unknown>, ConnectionColumns>(db, 'connections', 'id', ['name', 'strategy']),
    users: documentRepository<Record<string, unknown>, UserColumns>(db, 'users', 'user_id', [
      'connection',
      'email',
      'username',
      'password_hash',
      'updated_at',
    ]),
    renderingConfigs: renderingConfigsRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
