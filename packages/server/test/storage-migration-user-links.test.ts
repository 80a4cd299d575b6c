import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../src/storage/migrations/index.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';

/** 0003-user-links: accounts linked before the column existed get it from their JSON document (both dialects). */
describe.each(DIALECTS)('migration 0003-user-links (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open({ migrate: false });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  it('copies linked_to out of the documents of linked accounts and leaves every other user unlinked', async () => {
    const { db, name } = storage.dialect;
    await migrateTo(db, name, '0002-artifacts');
    const at = '2026-01-01T00:00:00.000Z';
    await db.insertInto('tenants').values({ id: 't', settings: '{}', created_at: at }).execute();
    const user = (id: string, data: Record<string, unknown>) =>
      db
        .insertInto('users')
        .values({ tenant_id: 't', user_id: id, connection: 'db', email: `${id}@example.com`, username: null, password_hash: null, data: JSON.stringify(data), created_at: at, updated_at: at } as never)
        .execute();
    await user('primary', { name: 'Primary', linked_identities: [{ provider: 'auth0', user_id: 'secondary' }] });
    await user('secondary', { name: 'Secondary', linked_to: 'primary' });
    await user('alone', { name: 'Alone', nickname: 'says "linked_to" in a nickname' });

    await migrateToLatest(db, name);
    const rows = await db.selectFrom('users').select(['user_id', 'linked_to']).orderBy('user_id').execute();
    expect(rows).toEqual([
      { user_id: 'alone', linked_to: null },
      { user_id: 'primary', linked_to: null },
      { user_id: 'secondary', linked_to: 'primary' },
    ]);
    const listed = await storage.users.list('t', { offset: 0, limit: 10 }, { linked_to: null });
    expect([listed.total, listed.items.map((record) => record.id).sort()]).toEqual([2, ['alone', 'primary']]);
  });
});
