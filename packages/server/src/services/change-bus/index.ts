import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../../config/load.js';
import type { Storage } from '../../storage/storage.js';
import { startChangeBus, type ChangeBus } from './bus.js';
import { postgresTransport } from './postgres.js';
import { redisTransport } from './redis.js';

export type { ChangeBus } from './bus.js';

export interface DeploymentChangeBusDeps {
  database: DatabaseConfig;
  storage: Storage;
  redis: Redis | undefined;
  tenantId: string;
  /** PostgreSQL schema given to the storage (tests); a schema chosen in DATABASE_URL is not known here. */
  schema: string | undefined;
  log: Pick<Logger, 'warn' | 'info'>;
}

/** What the listening connection is called in pg_stat_activity or Redis's CLIENT LIST (at most 63 characters). */
export function changeBusConnectionName(tenantId: string): string {
  return `latchkey-changes:${tenantId}`.slice(0, 63);
}

/**
 * The change bus over an engine the deployment already runs: PostgreSQL LISTEN/NOTIFY when it stores there (the
 * database every node shares, so no node can miss a channel the others use), else Redis pub/sub when REDIS_URL is
 * set. Nodes on one SQLite file without Redis have none: they see each other's changes when caches expire.
 */
export function deploymentChangeBus(deps: DeploymentChangeBusDeps): ChangeBus | undefined {
  const { database, storage, redis, tenantId, log } = deps;
  const scope = `${deps.schema ?? ''}/${tenantId}`;
  const connectionName = changeBusConnectionName(tenantId);
  if (database.kind === 'postgres') {
    return startChangeBus({ storage, scope, log, transport: postgresTransport({ url: database.url, db: storage.dialect.db, connectionName, log }) });
  }
  if (redis) {
    return startChangeBus({ storage, scope, log, transport: redisTransport({ redis, channel: `latchkey:changes:${tenantId}`, connectionName, log }) });
  }
  return undefined;
}
