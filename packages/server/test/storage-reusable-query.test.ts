import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reusableQuery } from '../src/storage/repositories/reusable-query.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';

/** Queries compiled once and re-run with new arguments (the hot lookups of the repositories), on both dialects. */
describe.each(DIALECTS)('reusable queries (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)).toISOString();

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    for (const tenant of ['t-a', 't-b']) await storage.tenants.insertIfMissing(tenant, {}, at(0));
    for (const [tenant, id, expires] of [['t-a', 'x', 10], ['t-a', 'y', 20], ['t-b', 'x', 30]] as const) {
      await storage.artifacts.insert(tenant, 'otp', { id, data: { tenant, id }, createdAt: at(0), expiresAt: at(expires) });
    }
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  it('puts each call’s arguments where the placeholders were, constants stay, one argument may be used twice', async () => {
    const { db } = storage.dialect;
    let builds = 0;
    const live = reusableQuery(db, 3, (tenantId: string, id: string, now: string) => {
      builds += 1;
      return db
        .selectFrom('artifacts')
        .select(['tenant_id', 'id', 'expires_at'])
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', 'otp')
        .where((eb) => eb.or([eb('id', '=', id), eb('expires_at', '<', now)]))
        .where('created_at', '<', now)
        .orderBy('id');
    });
    expect((await live('t-a', 'x', at(5))).rows.map((row) => row.id)).toEqual(['x']);
    expect((await live('t-a', 'nobody', at(15))).rows.map((row) => row.id)).toEqual(['x']);
    expect((await live('t-a', 'y', at(25))).rows.map((row) => row.id)).toEqual(['x', 'y']);
    expect((await live('t-b', 'y', at(5))).rows).toEqual([]);
    expect((await live('t-b', 'x', at(1))).rows).toEqual([{ tenant_id: 't-b', id: 'x', expires_at: at(30) }]);
    expect(builds).toBe(1);
  });

  it('refuses a builder that leaves an argument out of the bound parameters', async () => {
    const { db } = storage.dialect;
    const inlined = reusableQuery(db, 2, (tenantId: string, id: string) =>
      db.selectFrom('artifacts').selectAll().where('tenant_id', '=', tenantId).where(sql<boolean>`${sql.lit(String(id))} = 'x'`),
    );
    await expect(inlined('t-a', 'x')).rejects.toThrow(/each of the 2 arguments must be a bound parameter/);
  });

  it('keeps a statement made outside a transaction out of it, while the transaction waits in between its statements', async () => {
    // On SQLite the hot queries run straight on the one connection; while a transaction holds it they must wait.
    let inside!: () => void;
    const insideReached = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = storage.transaction(async (repos) => {
      await repos.artifacts.insert('t-a', 'otp', { id: 'in-tx', data: {}, createdAt: at(0), expiresAt: at(90) });
      inside();
      await released;
      throw new Error('roll back');
    });
    await insideReached;
    // Neither reads the transaction's uncommitted row nor writes into the transaction.
    const outside = Promise.all([
      storage.artifacts.get('t-a', 'otp', 'in-tx'),
      storage.artifacts.insert('t-a', 'otp', { id: 'outside-tx', data: {}, createdAt: at(0), expiresAt: at(90) }),
    ]);
    release();
    await expect(rolledBack).rejects.toThrow('roll back');
    const [seen, inserted] = await outside;
    expect(seen).toBeUndefined();
    expect(inserted).toBe(true);
    expect(await storage.artifacts.get('t-a', 'otp', 'in-tx')).toBeUndefined();
    expect(await storage.artifacts.get('t-a', 'otp', 'outside-tx')).toMatchObject({ id: 'outside-tx', consumedAt: null });
  });
});
