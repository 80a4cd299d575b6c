/**
 * Bulk seeding of users for `npm run bench:users`, straight into the users table (not through the API), shaped as
 * Latchkey stores them (packages/server/src/storage/schema.ts, services/users.ts): the indexed columns and the
 * profile as JSON. The same users on both dialects: PostgreSQL generates them itself (`INSERT … SELECT … FROM
 * generate_series`, in chunks), SQLite takes them from this process in one transaction.
 *
 * User n (0-based): id `auth0|u<n>`, e-mail `user<n>@example<n % 50>.com`, a name from 50 given and 200 family
 * names, created at evenly spaced times over two years from 2024-01-01, in connection SEED_CONNECTIONS[1] when
 * n % 10 = 0 and SEED_CONNECTIONS[0] otherwise, `user_metadata.customer` `c<n>` (unique) and `plan`,
 * `app_metadata.tier`, a login count and (for three users in four) a last login.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

export const SEED_CONNECTIONS = ['bench-db', 'bench-db-2'] as const;
export const GIVEN = ['Ada', 'Alan', 'Barbara', 'Brian', 'Claude', 'Dana', 'Edsger', 'Frances', 'Grace', 'Hedy', 'Ivan', 'Joan', 'Ken', 'Leslie', 'Margaret', 'Niklaus', 'Ole', 'Peter', 'Radia', 'Sophie', 'Tim', 'Ursula', 'Vint', 'Whitfield', 'Xavier', 'Yukihiro', 'Zoe', 'Anita', 'Bjarne', 'Carol', 'Dennis', 'Elaine', 'Fran', 'Guido', 'Hal', 'Ida', 'John', 'Kathleen', 'Linus', 'Mary', 'Nancy', 'Olga', 'Pat', 'Rob', 'Shafi', 'Tony', 'Uma', 'Valerie', 'Wendy', 'Yvonne'];
const FAMILY = Array.from({ length: 200 }, (_, i) => `Family${String(i).padStart(3, '0')}`);
const PLANS = ['free', 'pro', 'team'];
export const SEED_START_MS = Date.parse('2024-01-01T00:00:00.000Z');
const SPAN_MS = 2 * 365 * 86_400_000;

export const seedEmail = (n: number) => `user${n}@example${n % 50}.com`;
export const seedCreatedAt = (n: number, count: number) => new Date(SEED_START_MS + Math.floor((n * SPAN_MS) / count)).toISOString();

/** One seeded user as a row of the users table. */
export function seedUserRow(tenantId: string, n: number, count: number) {
  const created = seedCreatedAt(n, count);
  const given = GIVEN[n % GIVEN.length] as string;
  const family = FAMILY[(n * 7) % FAMILY.length] as string;
  const email = seedEmail(n);
  const data = {
    email,
    email_verified: n % 2 === 0,
    name: `${given} ${family}`,
    given_name: given,
    family_name: family,
    nickname: `user${n}`,
    blocked: false,
    logins_count: n % 100,
    ...(n % 4 === 0 ? {} : { last_login: created }),
    user_metadata: { plan: PLANS[n % 3], customer: `c${n}` },
    app_metadata: { tier: n % 10 },
  };
  return {
    tenant_id: tenantId,
    user_id: `auth0|u${n}`,
    connection: SEED_CONNECTIONS[n % 10 === 0 ? 1 : 0],
    email,
    username: null,
    password_hash: null,
    data: JSON.stringify(data),
    created_at: created,
    updated_at: created,
    linked_to: null,
  };
}

/** Users per statement on PostgreSQL. */
const CHUNK = 100_000;

/** Seeds `count` users on PostgreSQL (the client's search_path names the schema), then analyses the table. */
export async function seedUsersPostgres(client: pg.Client, tenantId: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += CHUNK) {
    const last = Math.min(count, first + CHUNK) - 1;
    await client.query(
      `with generated as (
         select g,
                ($4::text[])[g % 50 + 1] as given,
                ($5::text[])[(g * 7) % 200 + 1] as family,
                to_char(to_timestamp(($6::double precision + floor(g * $7::double precision / $3::double precision)) / 1000) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created,
                'user' || g || '@example' || (g % 50) || '.com' as email
         from generate_series($1::bigint, $2::bigint) as g
       )
       insert into users (tenant_id, user_id, connection, email, username, password_hash, data, created_at, updated_at, linked_to)
       select $8, 'auth0|u' || g, case when g % 10 = 0 then $10 else $9 end, email, null, null,
              json_strip_nulls(json_build_object(
                'email', email, 'email_verified', g % 2 = 0, 'name', given || ' ' || family, 'given_name', given, 'family_name', family,
                'nickname', 'user' || g, 'blocked', false, 'logins_count', g % 100,
                'last_login', case when g % 4 = 0 then null else created end,
                'user_metadata', json_build_object('plan', ($11::text[])[g % 3 + 1], 'customer', 'c' || g),
                'app_metadata', json_build_object('tier', g % 10)
              ))::text,
              created, created, null
       from generated`,
      [first, last, count, GIVEN, FAMILY, SEED_START_MS, SPAN_MS, tenantId, SEED_CONNECTIONS[0], SEED_CONNECTIONS[1], PLANS],
    );
  }
  await client.query('analyze users');
}

/** Seeds `count` users into a Latchkey SQLite database, in one transaction, then analyses it. */
export function seedUsersSqlite(db: Database.Database, tenantId: string, count: number): void {
  const insert = db.prepare(
    'insert into users (tenant_id, user_id, connection, email, username, password_hash, data, created_at, updated_at, linked_to) values (@tenant_id, @user_id, @connection, @email, @username, @password_hash, @data, @created_at, @updated_at, @linked_to)',
  );
  db.transaction(() => {
    for (let n = 0; n < count; n += 1) insert.run(seedUserRow(tenantId, n, count));
  })();
  db.exec('analyze');
}
