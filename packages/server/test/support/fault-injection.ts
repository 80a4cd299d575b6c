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
  /**
   * Deletes the connection `name` in the very commit that spends an artifact of `kind`: an administrator's
   * change landing in the middle of a login. Lasts until `clearChanges` runs.
   */
  deleteConnectionWhenSpent(kind: string, name: string): Promise<void>;
  clearChanges(): Promise<void>;
  /** Artifacts of `kind` for `subject` (a user id) that are neither consumed nor revoked. */
  liveArtifacts(kind: string, subject: string): Promise<number>;
  /** Artifacts of `kind` of this tenant that are neither consumed nor revoked. */
  liveOfKind(kind: string): Promise<number>;
  close(): Promise<void>;
}

const TRIGGER = 'test_injected_failure';
const CHANGE = 'test_injected_change';

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
      async deleteConnectionWhenSpent(kind, name) {
        db.exec(
          `create trigger ${CHANGE} after update on artifacts when new.kind = '${kind}' and new.consumed_at is not null ` +
            `begin delete from connections where tenant_id = new.tenant_id and name = '${name}'; end`,
        );
      },
      async clearChanges() {
        db.exec(`drop trigger if exists ${CHANGE}`);
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
    async deleteConnectionWhenSpent(kind, name) {
      await client.query(
        `create or replace function ${CHANGE}() returns trigger language plpgsql as $$ begin delete from ${schema}.connections where tenant_id = new.tenant_id and name = '${name}'; return new; end $$`,
      );
      await client.query(`create trigger ${CHANGE} after update on artifacts for each row when (new.kind = '${kind}' and new.consumed_at is not null) execute function ${CHANGE}()`);
    },
    async clearChanges() {
      await client.query(`drop trigger if exists ${CHANGE} on artifacts`);
    },
    liveArtifacts: (kind, subject) =>
      count('select count(*) as n from artifacts where tenant_id = $1 and kind = $2 and subject = $3 and consumed_at is null', [tenant, kind, subject]),
    liveOfKind: (kind) => count('select count(*) as n from artifacts where tenant_id = $1 and kind = $2 and consumed_at is null', [tenant, kind]),
    async close() {
      await client.end();
    },
  };
}
