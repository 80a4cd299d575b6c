import type { Kysely } from 'kysely';
import type { ClientData, ClientGrantData, ConnectionData, ResourceServerData, UserData } from '../records.js';
import type { Database } from '../schema.js';
import { actionExecutionsRepository } from './action-executions.js';
import { actionsRepository, type ActionsChangedTable } from './actions.js';
import { artifactsRepository } from './artifacts.js';
import { authenticatorsRepository } from './authenticators.js';
import { documentRepository, type DocumentTable } from './documents.js';
import { grantRevocationsRepository } from './grant-revocations.js';
import { jobsRepository } from './jobs.js';
import { logEventsRepository } from './log-events.js';
import { logStreamsRepository } from './log-streams.js';
import { logSearchRepository } from './log-search.js';
import { organizationsRepository } from './organizations.js';
import { promptCustomTextsRepository } from './prompt-custom-texts.js';
import { renderingConfigsRepository } from './rendering-configs.js';
import { rolesRepository } from './roles.js';
import { signingKeysRepository } from './signing-keys.js';
import { tenantsRepository } from './tenants.js';
import { consentsRepository } from './consents.js';
import { userSearchRepository } from './user-search.js';

/**
 * What writes are announced as, to storage.onChange listeners (the caches) and through the change bus to other
 * nodes: tables, and `grant_revocations` (rows of the artifacts table, whose other writes are not announced).
 */
export type ChangedTable =
  | DocumentTable
  | 'tenants'
  | 'rendering_configs'
  | 'prompt_custom_texts'
  | 'signing_keys'
  | 'grant_revocations'
  | ActionsChangedTable;

// A record, so that the compiler insists on every name.
const ANNOUNCED: Record<ChangedTable, true> = {
  clients: true,
  resource_servers: true,
  client_grants: true,
  connections: true,
  users: true,
  tenants: true,
  rendering_configs: true,
  prompt_custom_texts: true,
  signing_keys: true,
  grant_revocations: true,
  actions: true,
  action_bindings: true,
};

/** Every announced name, for a node that must assume anything changed (a change bus that missed messages). */
export const CHANGED_TABLES = Object.keys(ANNOUNCED) as readonly ChangedTable[];

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
 * The repositories, bound to a database handle or to a transaction. Documents are typed with the stored shapes
 * (records.ts); the repositories themselves only know columns.
 */
export function createRepositories(db: Kysely<Database>, changed?: (table: ChangedTable) => void) {
  return {
    tenants: tenantsRepository(db, () => changed?.('tenants')),
    signingKeys: signingKeysRepository(db, () => changed?.('signing_keys')),
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
    promptCustomTexts: promptCustomTextsRepository(db, () => changed?.('prompt_custom_texts')),
    artifacts: artifactsRepository(db),
    grantRevocations: grantRevocationsRepository(db, () => changed?.('grant_revocations')),
    /** User search (`GET /api/v2/users?q=`): reads only. */
    userSearch: userSearchRepository(db),
    /** Management API jobs and their input; not announced (the runner polls them). */
    jobs: jobsRepository(db),
    /** Roles and permissions; not announced (read where they are used, nothing caches them). */
    roles: rolesRepository(db),
    /** Users' consent to applications (`/api/v2/grants`); not announced (read at each authorization). */
    consents: consentsRepository(db),
    /** Organizations, members, their roles, connections and invitations; not announced (read where used). */
    organizations: organizationsRepository(db),
    /** The tenant log; its writes are not announced (nothing caches it). */
    logEvents: logEventsRepository(db),
    /** Log streams and their delivery state; not announced (every read of them goes to the database). */
    logStreams: logStreamsRepository(db),
    /** Actions, their versions and the triggers' bindings; writes of actions and bindings are announced (the bound actions are cached). */
    actions: actionsRepository(db, (table) => changed?.(table)),
    /** What the triggers' runs of actions did; not announced (read by id only). */
    actionExecutions: actionExecutionsRepository(db),
    /** Users' multi-factor authenticators and remembered-browser revocations; not announced (read where used). */
    authenticators: authenticatorsRepository(db),
    /** Searching the tenant log (`GET /api/v2/logs?q=`) and its daily totals, on indexed columns only. */
    logSearch: logSearchRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
