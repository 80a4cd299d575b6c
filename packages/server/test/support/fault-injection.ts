import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { TestServer } from './harness.js';
import { POSTGRES_URL } from './services.js';

/**
 * Failures forced inside a running server's database, with the database's own means (a trigger that aborts a
 * statement), so that a test can show what one commit leaves behind when a write in it fails: no mock of our
 * code, the real storage layer sees a real error. Each helper opens its own connection, as an operator's
 * console would.
 */
export interface DatabaseConsole {
  /** Makes every insert of an artifact of `kind` fail until `allowInserts` runs. */
  failInserts(kind: string): Promise<void>;
  allowInserts(): Promise<void>;
  /** Artifacts of `kind` for `subject` (a user id) that are neither consumed nor revoked. */
  liveArtifacts(kind: string, subject: string): Promise<number>;
  /** Artifacts of `kind` of this tenant that are neither consumed nor revoked. */
  liveOfKind(kind: string): Promise<number>;
  close(): Promise<void>;
}

const TRIGGER = 'test_injected_failure';

export async function databaseConsole(server: TestServer): Promise<DatabaseConsole> {
  const tenant = server.env.LATCHKEY_TENANT ?? '';
  const url = server.env.DATABASE_URL ?? '';
  if (url.startsWith('sqlite:')) {
    const db = new BetterSqlite3(url.slice('sqlite:'.length));
    db.pragma('busy_timeout = 5000');
    const count = (sql: string, ...params: string[]) => (db.prepare(sql).get(...params) as { n: number }).n;
    return {
      async failInserts(kind) {
        db.exec(`create trigger ${TRIGGER} before insert on artifacts when new.kind = '${kind}' begin select raise(abort, 'injected failure'); end`);
      },
      async allowInserts() {
        db.exec(`drop trigger if exists ${TRIGGER}`);
      },
      async liveArtifacts(kind, subject) {
        return count('select count(*) as n from artifacts where tenant_id = ? and kind = ? and subject = ? and consumed_at is null', tenant, kind, subject);
      },
      async liveOfKind(kind) {
        return count('select count(*) as n from artifacts where tenant_id = ? and kind = ? and consumed_at is null', tenant, kind);
      },
      async close() {
        db.close();
      },
    };
  }
  const schema = server.env.TEST_PG_SCHEMA ?? '';
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`set search_path to ${schema}`);
  const count = async (sql: string, params: string[]) => Number((await client.query<{ n: string }>(sql, params)).rows[0]?.n);
  return {
    async failInserts(kind) {
      await client.query(`create or replace function ${TRIGGER}() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`);
      await client.query(`create trigger ${TRIGGER} before insert on artifacts for each row when (new.kind = '${kind}') execute function ${TRIGGER}()`);
    },
    async allowInserts() {
      await client.query(`drop trigger if exists ${TRIGGER} on artifacts`);
    },
    liveArtifacts: (kind, subject) =>
      count('select count(*) as n from artifacts where tenant_id = $1 and kind = $2 and subject = $3 and consumed_at is null', [tenant, kind, subject]),
    liveOfKind: (kind) => count('select count(*) as n from artifacts where tenant_id = $1 and kind = $2 and consumed_at is null', [tenant, kind]),
    async close() {
      await client.end();
    },
  };
}
