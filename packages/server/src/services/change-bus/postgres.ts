import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { CONNECT_TIMEOUT_MS } from '../../storage/dialects/postgres.js';
import type { Database } from '../../storage/schema.js';
import type { ChangeTransport } from './bus.js';

/** One channel for every deployment on the database; messages name their scope (bus.ts). */
const CHANNEL = 'latchkey_changes';

/** Attempts to listen again back off by this much per failed attempt, up to the cap; they never stop. */
const RETRY_STEP_MS = 250;
const RETRY_CAP_MS = 5000;

export interface PostgresTransportOptions {
  /** DATABASE_URL: the listening connection goes to the same database as the pool. */
  url: string;
  /** The storage's pool: announcements go out on any healthy connection, whatever happens to the listening one. */
  db: Kysely<Database>;
  /** The listening connection's application_name (pg_stat_activity shows whose it is). */
  connectionName: string;
  log: Pick<Logger, 'warn' | 'info'>;
}

/**
 * PostgreSQL LISTEN/NOTIFY: one connection of its own listens (a pooled one would be handed to queries); NOTIFY goes
 * through the pool. When the listening connection breaks (a restart, a failover, a terminated backend) it is
 * opened again with backoff, for as long as it takes; every error is heard, so none ends the process.
 */
export function postgresTransport(options: PostgresTransportOptions): ChangeTransport {
  const { url, db, connectionName, log } = options;
  let handlers: Parameters<ChangeTransport['listen']>[0] | undefined;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let attempts = 0;
  let down = false;
  let closed = false;

  function reportDown(error: unknown) {
    if (down) return;
    down = true;
    log.warn({ reason: (error as Error | undefined)?.message }, 'change bus: not listening to PostgreSQL; retrying (other nodes\' changes are seen when caches expire meanwhile)');
  }

  function scheduleRetry() {
    if (closed || retry) return;
    attempts += 1;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, Math.min(attempts * RETRY_STEP_MS, RETRY_CAP_MS));
    retry.unref();
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: connectionName });
    let lost = false;
    const lose = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (current === client) current = undefined;
      if (closed) return;
      client.end().catch(() => {});
      reportDown(error ?? new Error('connection ended'));
      scheduleRetry();
    };
    // Stays attached after `lose`: an error nobody hears would end the process.
    client.on('error', lose);
    client.on('end', () => lose());
    client.on('notification', (notification) => {
      if (notification.channel === CHANNEL && notification.payload !== undefined) handlers?.onMessage(notification.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lose(error);
      return;
    }
    if (closed || lost) {
      if (!lost) await client.end().catch(() => {});
      return;
    }
    current = client;
    attempts = 0;
    if (down) log.info('change bus: listening to PostgreSQL again');
    down = false;
    handlers?.onListening();
  }

  return {
    async publish(message) {
      await sql`select pg_notify(${CHANNEL}, ${message})`.execute(db);
    },
    listen(given) {
      handlers = given;
      void connect();
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = current;
      current = undefined;
      await client?.end().catch(() => {});
    },
  };
}
