import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../src/storage/migrations/index.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';

/**
 * 0013-user-metadata-values (SQLite): users stored before it are searchable by metadata after it, and the triggers
 * keep the values in step with inserts, metadata changes, other changes (which leave them alone) and deletes.
 */
describe('migration 0013-user-metadata-values (sqlite)', () => {
  let database: TestDatabase;
  let storage: Storage;
  beforeAll(async () => {
    database = testDatabase('sqlite');
    storage = await database.open({ migrate: false });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  const found = async (q: Record<string, string | number | boolean>) => {
    const [[key, value]] = Object.entries(q) as [[string, string | number | boolean]];
    const [field, name] = key.split('.') as ['app_metadata' | 'user_metadata', string];
    const page = await storage.userSearch.search('t', { condition: { field: { metadata: field, key: name }, equals: value } }, { offset: 0, limit: 10 }, 100);
    return page.items.sort();
  };

  it('backfills existing users, then follows inserts, metadata changes and deletes', async () => {
    const { db, name } = storage.dialect;
    await migrateTo(db, name, '0012-user-metadata-indexes');
    const at = '2026-01-01T00:00:00.000Z';
    await db.insertInto('tenants').values({ id: 't', settings: '{}', created_at: at }).execute();
    const user = (id: string, data: Record<string, unknown>) =>
      db
        .insertInto('users')
        .values({ tenant_id: 't', user_id: id, connection: 'db', email: `${id}@example.com`, username: null, password_hash: null, data: JSON.stringify(data), created_at: at, updated_at: at, linked_to: null })
        .execute();
    await user('auth0|old', { app_metadata: { plan: 'gold', roles: ['admin', 'ops'], level: 3, nested: { plan: 'x' } }, user_metadata: { plan: 'free' } });
    await user('auth0|bare', { name: 'No metadata' });

    await migrateToLatest(db, name);
    expect(await found({ 'app_metadata.plan': 'gold' })).toEqual(['auth0|old']);
    expect(await found({ 'app_metadata.roles': 'ops' })).toEqual(['auth0|old']);
    expect(await found({ 'app_metadata.level': '3' })).toEqual(['auth0|old']);
    expect(await found({ 'user_metadata.plan': 'free' })).toEqual(['auth0|old']);
    // Only one level deep, and each object on its own.
    expect(await found({ 'app_metadata.plan': 'x' })).toEqual([]);
    expect(await found({ 'user_metadata.plan': 'gold' })).toEqual([]);

    await user('auth0|new', { app_metadata: { plan: 'gold' } });
    expect(await found({ 'app_metadata.plan': 'gold' })).toEqual(['auth0|new', 'auth0|old']);
    const change = (id: string, data: Record<string, unknown>) => db.updateTable('users').set({ data: JSON.stringify(data) }).where('user_id', '=', id).execute();
    await change('auth0|new', { app_metadata: { plan: 'silver' } });
    expect(await found({ 'app_metadata.plan': 'gold' })).toEqual(['auth0|old']);
    expect(await found({ 'app_metadata.plan': 'silver' })).toEqual(['auth0|new']);
    // A login's write leaves the metadata, and its values, as they were.
    await change('auth0|new', { app_metadata: { plan: 'silver' }, logins_count: 1 });
    expect(await found({ 'app_metadata.plan': 'silver' })).toEqual(['auth0|new']);
    expect(await db.selectFrom('user_metadata_values').selectAll().where('user_id', '=', 'auth0|new').execute()).toHaveLength(1);
    await db.deleteFrom('users').where('user_id', '=', 'auth0|old').execute();
    expect(await found({ 'app_metadata.roles': 'admin' })).toEqual([]);
    expect(await db.selectFrom('user_metadata_values').selectAll().where('user_id', '=', 'auth0|old').execute()).toHaveLength(0);
  });
});
