import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../src/config/load.js';
import { randomId } from '../src/crypto/random.js';
import { openStorage, runMigrations } from '../src/storage/open.js';
import type { DocumentRecord, DocumentRepository } from '../src/storage/repositories/documents.js';
import { isLogId, logIdOf } from '../src/storage/repositories/log-events.js';
import type { Repositories } from '../src/storage/repositories/index.js';
import type { SigningKeyRow } from '../src/storage/repositories/signing-keys.js';
import { createStorage, type Storage } from '../src/storage/storage.js';
import { dropSchema, testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS, POSTGRES_URL } from './support/services.js';

/**
 * One contract for the storage layer, run on SQLite and on PostgreSQL alike: what the services rely on must hold
 * on both. PostgreSQL runs in a fresh schema per suite; SQLite in a temporary file.
 */

type Columns = Record<string, string | number | null>;
type Doc = { name: string; n?: number; nested?: { list: string[] }; count?: number; writers?: number[] };
type AnyDocuments = DocumentRepository<Doc, Columns>;

/** The repositories are typed with the services' document shapes; the contract only needs JSON. */
const untyped = (repo: unknown) => repo as AnyDocuments;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each generic document repository, with records that fill its columns (unique ones distinct per index). */
interface DocumentCase {
  table: 'clients' | 'resourceServers' | 'clientGrants' | 'connections' | 'users';
  columns(i: number): Columns;
  /** A column filter that matches exactly the records with an even index. */
  evenFilter: Columns;
  /** Columns that collide with record 0's unique columns (under a different id), when the table has any. */
  collidingColumns?: Columns;
}

const DOCUMENT_CASES: DocumentCase[] = [
  { table: 'clients', columns: (i) => ({ secret_hash: i % 2 === 0 ? null : `hash-${i}` }), evenFilter: { secret_hash: null } },
  {
    table: 'resourceServers',
    columns: (i) => ({ identifier: `https://api-${i}.example/`, is_system: i % 2 === 0 ? 1 : 0 }),
    evenFilter: { is_system: 1 },
    collidingColumns: { identifier: 'https://api-0.example/', is_system: 0 },
  },
  {
    table: 'clientGrants',
    columns: (i) => ({ client_id: i % 2 === 0 ? 'even-client' : `client-${i}`, audience: `https://api-${i}.example/` }),
    evenFilter: { client_id: 'even-client' },
    collidingColumns: { client_id: 'even-client', audience: 'https://api-0.example/' },
  },
  {
    table: 'connections',
    columns: (i) => ({ name: `conn-${i}`, strategy: i % 2 === 0 ? 'auth0' : 'email' }),
    evenFilter: { strategy: 'auth0' },
    collidingColumns: { name: 'conn-0', strategy: 'sms' },
  },
  {
    table: 'users',
    columns: (i) => ({
      connection: i % 2 === 0 ? 'Username-Password-Authentication' : 'email',
      email: `user${i}@example.com`,
      username: i % 3 === 0 ? null : `user${i}`,
      password_hash: null,
      updated_at: `2024-01-01T00:00:0${i % 10}.000Z`,
      linked_to: i % 4 === 1 ? `primary-${i}` : null,
    }),
    evenFilter: { connection: 'Username-Password-Authentication' },
    collidingColumns: { connection: 'Username-Password-Authentication', email: 'user0@example.com', username: 'other', password_hash: null, updated_at: 'x', linked_to: null },
  },
];

describe.each(DIALECTS)('storage contract (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  const tenantA = 'tenant-a';
  const tenantB = 'tenant-b';
  let clock = Date.parse('2024-01-01T00:00:00.000Z');
  /** Strictly increasing ISO timestamps: creation order is explicit in every test. */
  const tick = () => new Date((clock += 1000)).toISOString();

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    await storage.tenants.insertIfMissing(tenantA, { name: 'A' }, tick());
    await storage.tenants.insertIfMissing(tenantB, { name: 'B' }, tick());
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  describe('migrations', () => {
    it('running them again is a no-op, on this connection and on a second one', async () => {
      const again = await runMigrations(storage.dialect);
      expect(again.error).toBeUndefined();
      expect(again.results).toEqual([]);
      const second = await database.open();
      try {
        expect(await second.tenants.get(tenantA)).toMatchObject({ id: tenantA, settings: { name: 'A' } });
      } finally {
        await second.close();
      }
    });
  });

  if (dialect === 'sqlite') {
    it('runs SQLite in WAL mode with a busy timeout and foreign keys on', async () => {
      const pragma = async (name: string) => Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(storage.dialect.db)).rows[0] ?? {})[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('foreign_keys')).toBe(1);
    });
  }

  describe('tenants', () => {
    it('inserts once, then leaves an existing tenant alone', async () => {
      const at = tick();
      expect(await storage.tenants.insertIfMissing('tenant-once', { v: 1 }, at)).toBe(true);
      expect(await storage.tenants.insertIfMissing('tenant-once', { v: 2 }, tick())).toBe(false);
      expect(await storage.tenants.get('tenant-once')).toEqual({ id: 'tenant-once', settings: { v: 1 }, createdAt: at });
      expect(await storage.tenants.get('no-such-tenant')).toBeUndefined();
    });

    it('replaces settings as a whole JSON document', async () => {
      await storage.tenants.insertIfMissing('tenant-settings', { a: 1, b: { c: [1, 2] } }, tick());
      await storage.tenants.updateSettings('tenant-settings', { b: { c: [3] }, d: null, s: 'ünïcødé ✓' });
      expect((await storage.tenants.get('tenant-settings'))?.settings).toEqual({ b: { c: [3] }, d: null, s: 'ünïcødé ✓' });
    });
  });

  describe('signing keys', () => {
    const row = (tenant: string, kid: string, status: SigningKeyRow['status'], createdAt: string): SigningKeyRow => ({
      tenant_id: tenant,
      kid,
      status,
      public_jwk: JSON.stringify({ kid }),
      private_key_sealed: `sealed-${kid}`,
      created_at: createdAt,
      current_since: status === 'current' ? createdAt : null,
      current_until: null,
      revoked_at: null,
    });

    it('lists a tenant’s keys in creation order (kid breaks ties), and only that tenant’s', async () => {
      const first = tick();
      const second = tick();
      await storage.signingKeys.insert(row(tenantA, 'kid-z', 'current', first));
      await storage.signingKeys.insert(row(tenantA, 'kid-b', 'next', second));
      await storage.signingKeys.insert(row(tenantA, 'kid-a', 'next', second));
      await storage.signingKeys.insert(row(tenantB, 'kid-other', 'current', first));
      const listed = await storage.signingKeys.list(tenantA);
      expect(listed.map((key) => key.kid)).toEqual(['kid-z', 'kid-a', 'kid-b']);
      expect(listed[0]).toEqual(row(tenantA, 'kid-z', 'current', first));
      expect((await storage.signingKeys.list(tenantB)).map((key) => key.kid)).toEqual(['kid-other']);
    });

    it('rejects a second key with the same kid in one tenant as a unique violation', async () => {
      const error = await storage.signingKeys.insert(row(tenantA, 'kid-z', 'next', tick())).catch((caught: unknown) => caught);
      expect(storage.isUniqueViolation(error)).toBe(true);
    });

    it('changes a status and its times, touching nothing else and no other tenant', async () => {
      const until = tick();
      await storage.signingKeys.insert(row(tenantB, 'kid-z', 'current', tick()));
      await storage.signingKeys.setStatus(tenantA, 'kid-z', 'previous', { current_until: until });
      const [changed] = await storage.signingKeys.list(tenantA);
      expect(changed).toMatchObject({ kid: 'kid-z', status: 'previous', current_until: until, revoked_at: null, private_key_sealed: 'sealed-kid-z' });
      expect(changed?.current_since).not.toBeNull();
      expect((await storage.signingKeys.list(tenantB)).find((key) => key.kid === 'kid-z')?.status).toBe('current');
      const revokedAt = tick();
      await storage.signingKeys.setStatus(tenantA, 'kid-z', 'revoked', { revoked_at: revokedAt });
      expect((await storage.signingKeys.list(tenantA))[0]).toMatchObject({ status: 'revoked', current_until: until, revoked_at: revokedAt });
    });
  });

  describe.each(DOCUMENT_CASES)('documents: $table', (spec) => {
    const repo = (repos: Repositories = storage) => untyped(repos[spec.table]);
    const record = (i: number, createdAt: string): DocumentRecord<Doc, Columns> => ({
      id: `${spec.table}-${i}`,
      columns: spec.columns(i),
      data: { name: `record ${i}`, n: i, nested: { list: [`x${i}`] } },
      createdAt,
    });
    const ids = (records: { id: string }[]) => records.map((item) => item.id);
    const created: DocumentRecord<Doc, Columns>[] = [];

    beforeAll(async () => {
      // Inserted out of id order: listing follows creation time, not the id.
      for (const i of [3, 0, 4, 1, 2]) {
        const item = record(i, tick());
        created.push(item);
        expect(await repo().insert(tenantA, item)).toBe(true);
      }
      // The same ids and unique columns in another tenant do not collide, and stay invisible to tenant A.
      expect(await repo().insert(tenantB, record(0, tick()))).toBe(true);
    });

    it('reads back a record exactly as inserted (columns, JSON data, creation time)', async () => {
      const first = created[0];
      expect(await repo().get(tenantA, String(first?.id))).toEqual(first);
      expect(await repo().get(tenantA, 'missing')).toBeUndefined();
      expect(await repo().get('no-such-tenant', String(first?.id))).toBeUndefined();
    });

    it('finds one record by column values (null matches IS NULL), the earliest created first', async () => {
      const found = await repo().findOne(tenantA, spec.evenFilter);
      expect(found?.id).toBe(`${spec.table}-0`);
      const exact = await repo().findOne(tenantA, spec.columns(1));
      expect(exact?.id).toBe(`${spec.table}-1`);
      expect(await repo().findOne(tenantA, spec.columns(99))).toBeUndefined();
      expect(await repo().findOne(tenantB, spec.columns(1))).toBeUndefined();
      expect((await repo().findOne(tenantA, {}))?.id).toBe(`${spec.table}-3`);
    });

    it('lists a window in creation order with the total of all matching rows', async () => {
      const all = await repo().list(tenantA, { offset: 0, limit: 50 });
      expect(ids(all.items)).toEqual(ids(created));
      expect(all.total).toBe(5);
      const window = await repo().list(tenantA, { offset: 1, limit: 2 });
      expect(ids(window.items)).toEqual(ids(created.slice(1, 3)));
      expect(window.total).toBe(5);
      const past = await repo().list(tenantA, { offset: 10, limit: 2 });
      expect(past).toEqual({ items: [], total: 5 });
      const even = await repo().list(tenantA, { offset: 0, limit: 2 }, spec.evenFilter);
      expect(ids(even.items)).toEqual([`${spec.table}-0`, `${spec.table}-4`]);
      expect(even.total).toBe(3);
      expect((await repo().list(tenantB, { offset: 0, limit: 50 })).total).toBe(1);
    });

    it('lists by a set of values per column: any of them matches, an empty set matches nothing', async () => {
      const column = String(Object.keys(spec.columns(1)).find((name) => spec.columns(1)[name] !== null));
      const values = [spec.columns(1)[column] ?? null, spec.columns(3)[column] ?? null];
      const some = await repo().list(tenantA, { offset: 0, limit: 50 }, { [column]: [...values, 'no-such-value'] });
      expect(ids(some.items).sort()).toEqual([`${spec.table}-1`, `${spec.table}-3`]);
      expect(some.total).toBe(2);
      expect(await repo().list(tenantA, { offset: 0, limit: 50 }, { [column]: [] })).toEqual({ items: [], total: 0 });
      const window = await repo().list(tenantA, { offset: 0, limit: 1 }, { [column]: values });
      expect(window).toEqual({ items: [created[0]], total: 2 });
    });

    it('walks records in id order after a given id, with filters, in steps of a given size', async () => {
      const sorted = [...ids(created)].sort();
      expect(ids(await repo().listAfter(tenantA, undefined, 2))).toEqual(sorted.slice(0, 2));
      expect(ids(await repo().listAfter(tenantA, sorted[1], 2))).toEqual(sorted.slice(2, 4));
      expect(ids(await repo().listAfter(tenantA, sorted[4], 2))).toEqual([]);
      expect(ids(await repo().listAfter(tenantA, undefined, 50, spec.evenFilter))).toEqual([`${spec.table}-0`, `${spec.table}-2`, `${spec.table}-4`]);
      expect(ids(await repo().listAfter(tenantA, `${spec.table}-0`, 50, spec.evenFilter))).toEqual([`${spec.table}-2`, `${spec.table}-4`]);
    });

    it('inserts several records in one statement, or none of them when one is a duplicate', async () => {
      await storage.tenants.insertIfMissing('tenant-many', {}, tick());
      const at = tick();
      const many = [20, 21, 22].map((i) => record(i, at));
      await repo().insertMany('tenant-many', many);
      expect(ids((await repo().list('tenant-many', { offset: 0, limit: 50 })).items)).toEqual(ids(many));
      let failure: unknown;
      try {
        await repo().insertMany('tenant-many', [record(23, at), record(20, at)]);
      } catch (error) {
        failure = error;
      }
      expect(storage.isUniqueViolation(failure)).toBe(true);
      expect(await repo().get('tenant-many', `${spec.table}-23`)).toBeUndefined();
      await repo().insertMany('tenant-many', []);
    });

    it('orders records created at the same instant by id', async () => {
      const at = tick();
      await repo().insert(tenantB, { ...record(8, at), id: `${spec.table}-same-b`, columns: spec.columns(8) });
      await repo().insert(tenantB, { ...record(9, at), id: `${spec.table}-same-a`, columns: spec.columns(9) });
      const listed = await repo().list(tenantB, { offset: 1, limit: 5 });
      expect(ids(listed.items)).toEqual([`${spec.table}-same-a`, `${spec.table}-same-b`]);
    });

    it('insert: a duplicate is a unique violation; with ifMissing it is left alone and reported', async () => {
      const duplicate = { ...record(1, tick()), data: { name: 'duplicate' } };
      const error = await repo().insert(tenantA, duplicate).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(storage.isUniqueViolation(error)).toBe(true);
      expect(await repo().insert(tenantA, duplicate, { ifMissing: true })).toBe(false);
      expect((await repo().get(tenantA, `${spec.table}-1`))?.data.name).toBe('record 1');
      if (spec.collidingColumns) {
        // Same unique column values under a new id: also a conflict, also left alone with ifMissing.
        const collision = { id: `${spec.table}-collides`, columns: spec.collidingColumns, data: { name: 'collision' }, createdAt: tick() };
        expect(storage.isUniqueViolation(await repo().insert(tenantA, collision).catch((caught: unknown) => caught))).toBe(true);
        expect(await repo().insert(tenantA, collision, { ifMissing: true })).toBe(false);
        expect(await repo().get(tenantA, collision.id)).toBeUndefined();
      }
      const fresh = record(7, tick());
      expect(await repo().insert(tenantA, fresh, { ifMissing: true })).toBe(true);
      expect(await repo().get(tenantA, fresh.id)).toEqual(fresh);
      expect(await repo().remove(tenantA, fresh.id)).toBe(true);
    });

    it('updates data and columns of one record in one tenant; reports a missing record', async () => {
      const id = `${spec.table}-2`;
      const before = await repo().get(tenantA, id);
      expect(await repo().update(tenantA, id, { data: { name: 'renamed', nested: { list: [] } } })).toBe(true);
      expect(await repo().get(tenantA, id)).toEqual({ ...before, data: { name: 'renamed', nested: { list: [] } } });
      const columns = spec.columns(12);
      expect(await repo().update(tenantA, id, { columns })).toBe(true);
      expect((await repo().get(tenantA, id))?.columns).toEqual(columns);
      expect((await repo().get(tenantA, id))?.createdAt).toBe(before?.createdAt);
      expect(await repo().update(tenantA, id, {})).toBe(true);
      expect(await repo().update(tenantA, 'missing', { data: { name: 'x' } })).toBe(false);
      expect(await repo().update(tenantA, 'missing', {})).toBe(false);
      expect(await repo().update('no-such-tenant', id, { data: { name: 'x' } })).toBe(false);
      expect((await repo().get(tenantB, `${spec.table}-0`))?.data.name).toBe('record 0');
    });

    it('modify: concurrent read-modify-writes of one record all land (each re-runs on the newer document); nothing to change writes nothing', async () => {
      const id = `${spec.table}-4`;
      await repo().update(tenantA, id, { data: { name: 'counted', count: 0 } });
      const runs: number[] = [];
      const writers = Array.from({ length: 6 }, (_, writer) =>
        repo().modify(tenantA, id, (current) => {
          runs.push(writer);
          return { data: { ...current.data, count: (current.data.count ?? 0) + 1, writers: [...(current.data.writers ?? []), writer] } };
        }),
      );
      const results = await Promise.all(writers);
      const stored = (await repo().get(tenantA, id))?.data;
      expect(stored?.count).toBe(6);
      expect([...(stored?.writers ?? [])].sort()).toEqual([0, 1, 2, 3, 4, 5]);
      // Each writer's answer is the document it wrote.
      expect(results.map((result) => result?.data.count).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(runs.length).toBeGreaterThanOrEqual(6);

      const unchanged = await repo().modify(tenantA, id, () => undefined);
      expect(unchanged?.data).toEqual(stored);
      const columns = spec.columns(13);
      const withColumns = await repo().modify(tenantA, id, (current) => ({ columns, data: { ...current.data, name: 'recolumned' } }));
      expect(withColumns?.columns).toEqual(columns);
      expect(await repo().get(tenantA, id)).toEqual(withColumns);
      expect(await repo().modify(tenantA, 'missing', () => ({ data: { name: 'x' } }))).toBeUndefined();
      expect(await repo().modify(tenantB, id, () => ({ data: { name: 'x' } }))).toBeUndefined();
      // Back to its own column values, which the removal test below filters on.
      await repo().update(tenantA, id, { columns: spec.columns(4) });
    });

    it('modify from a record read earlier: writes when it is still stored, re-reads when it changed meanwhile', async () => {
      const id = `${spec.table}-2`;
      await repo().update(tenantA, id, { data: { name: 'read earlier', count: 1 } });
      const read = await repo().get(tenantA, id);
      if (!read) throw new Error('record missing');
      const bump = (current: typeof read) => ({ data: { ...current.data, count: (current.data.count ?? 0) + 1 } });

      expect((await repo().modify(tenantA, id, bump, read))?.data).toEqual({ name: 'read earlier', count: 2 });
      expect((await repo().get(tenantA, id))?.data).toEqual({ name: 'read earlier', count: 2 });
      // `read` is stale now (count 1): the change runs again on the stored document instead of overwriting it.
      const seen: unknown[] = [];
      const again = await repo().modify(tenantA, id, (current) => (seen.push(current.data.count), bump(current)), read);
      expect(seen).toEqual([1, 2]);
      expect(again?.data).toEqual({ name: 'read earlier', count: 3 });
      expect((await repo().get(tenantA, id))?.data.count).toBe(3);
      // Nothing to change answers with the stored record, not the stale one.
      expect((await repo().modify(tenantA, id, () => undefined, read))?.data.count).toBe(3);
      // A record of another id, or of a row removed meanwhile, is not written over anything.
      expect((await repo().modify(tenantA, `${spec.table}-1`, (current) => ({ data: { ...current.data } }), read))?.id).toBe(`${spec.table}-1`);
      expect((await repo().get(tenantA, `${spec.table}-1`))?.data.name).not.toBe('read earlier');
      expect(await repo().modify(tenantA, 'missing', bump, { ...read, id: 'missing' })).toBeUndefined();
    });

    it('removes by id and by column values, only in the given tenant', async () => {
      expect(await repo().remove(tenantA, `${spec.table}-3`)).toBe(true);
      expect(await repo().remove(tenantA, `${spec.table}-3`)).toBe(false);
      expect(await repo().get(tenantA, `${spec.table}-3`)).toBeUndefined();
      expect(await repo().removeWhere(tenantA, spec.evenFilter)).toBe(3);
      expect(await repo().removeWhere(tenantA, spec.evenFilter)).toBe(0);
      expect(ids((await repo().list(tenantA, { offset: 0, limit: 50 })).items)).toEqual([`${spec.table}-1`]);
      expect(await repo().get(tenantB, `${spec.table}-0`)).toBeDefined();
      expect(await repo().removeWhere(tenantA, {})).toBe(1);
      expect((await repo().list(tenantA, { offset: 0, limit: 50 })).total).toBe(0);
      expect((await repo().list(tenantB, { offset: 0, limit: 50 })).total).toBe(3);
    });
  });

  describe('rendering configurations', () => {
    const tenant = 'tenant-rendering';
    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, {}, tick());
    });

    it('keeps creation order (the first write), and a re-write keeps its place', async () => {
      await storage.renderingConfigs.put(tenant, 'signup', 'signup', { rendering_mode: 'advanced' });
      await storage.renderingConfigs.put(tenant, 'login', 'login', { rendering_mode: 'standard' });
      await storage.renderingConfigs.put(tenant, 'login-id', 'login-id', { rendering_mode: 'advanced' });
      await storage.renderingConfigs.put(tenant, 'signup', 'signup', { rendering_mode: 'standard', head_tags: [{ tag: 'script' }] });
      await storage.renderingConfigs.put(tenantB, 'login', 'login', { other: true });
      const all = await storage.renderingConfigs.window(tenant, { offset: 0, limit: 10 });
      expect(all.total).toBe(3);
      expect(all.items).toEqual([
        { prompt: 'signup', screen: 'signup', data: { rendering_mode: 'standard', head_tags: [{ tag: 'script' }] } },
        { prompt: 'login', screen: 'login', data: { rendering_mode: 'standard' } },
        { prompt: 'login-id', screen: 'login-id', data: { rendering_mode: 'advanced' } },
      ]);
    });

    it('cuts windows from that order and counts every configuration of the tenant', async () => {
      const page = await storage.renderingConfigs.window(tenant, { offset: 1, limit: 1 });
      expect(page).toEqual({ items: [{ prompt: 'login', screen: 'login', data: { rendering_mode: 'standard' } }], total: 3 });
      expect(await storage.renderingConfigs.window(tenant, { offset: 3, limit: 5 })).toEqual({ items: [], total: 3 });
      expect(await storage.renderingConfigs.window('no-such-tenant', { offset: 0, limit: 5 })).toEqual({ items: [], total: 0 });
    });

    it('gets one configuration by prompt and screen, in its tenant only', async () => {
      expect(await storage.renderingConfigs.get(tenant, 'login-id', 'login-id')).toEqual({ prompt: 'login-id', screen: 'login-id', data: { rendering_mode: 'advanced' } });
      expect(await storage.renderingConfigs.get(tenant, 'login-id', 'login')).toBeUndefined();
      expect(await storage.renderingConfigs.get(tenantB, 'login', 'login')).toMatchObject({ data: { other: true } });
      expect(await storage.renderingConfigs.get(tenantB, 'signup', 'signup')).toBeUndefined();
    });
  });

  describe('prompt custom texts', () => {
    const tenant = 'tenant-custom-texts';
    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, {}, tick());
    });

    it('has nothing for a prompt and language never written', async () => {
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'en')).toBeUndefined();
    });

    it('replaces the whole document of one prompt and language, and announces the write', async () => {
      const announced: string[] = [];
      storage.onChange((table) => announced.push(table));
      await storage.promptCustomTexts.put(tenant, 'login', 'en', { login: { title: 'One', description: 'ünïcødé ✓ ${userName}' } });
      await storage.promptCustomTexts.put(tenant, 'login', 'en', { login: { buttonText: 'Two' } });
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'en')).toEqual({ login: { buttonText: 'Two' } });
      expect(announced.filter((table) => table === 'prompt_custom_texts')).toHaveLength(2);
    });

    it('keeps prompts, languages (matched exactly) and tenants apart', async () => {
      await storage.promptCustomTexts.put(tenant, 'login', 'pt-BR', { login: { title: 'Olá' } });
      await storage.promptCustomTexts.put(tenant, 'login-id', 'en', { 'login-id': { title: 'Id' } });
      await storage.promptCustomTexts.put(tenantB, 'login', 'en', { login: { title: 'B' } });
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'pt-BR')).toEqual({ login: { title: 'Olá' } });
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'pt-br')).toBeUndefined();
      expect(await storage.promptCustomTexts.get(tenant, 'login-id', 'en')).toEqual({ 'login-id': { title: 'Id' } });
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'en')).toEqual({ login: { buttonText: 'Two' } });
      expect(await storage.promptCustomTexts.get(tenantB, 'login', 'en')).toEqual({ login: { title: 'B' } });
    });

    it('roll back with the transaction that wrote them', async () => {
      const failure = new Error('boom');
      const outcome = storage.transaction(async (repos) => {
        await repos.promptCustomTexts.put(tenant, 'login', 'en', { login: { title: 'rolled back' } });
        await repos.promptCustomTexts.put(tenant, 'signup', 'en', { signup: { title: 'rolled back' } });
        expect(await repos.promptCustomTexts.get(tenant, 'signup', 'en')).toEqual({ signup: { title: 'rolled back' } });
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await storage.promptCustomTexts.get(tenant, 'login', 'en')).toEqual({ login: { buttonText: 'Two' } });
      expect(await storage.promptCustomTexts.get(tenant, 'signup', 'en')).toBeUndefined();
    });

    it('refuse texts of a tenant that does not exist', async () => {
      const error = await storage.promptCustomTexts.put('no-such-tenant', 'login', 'en', {}).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(await storage.promptCustomTexts.get('no-such-tenant', 'login', 'en')).toBeUndefined();
    });
  });

  describe('log events', () => {
    const tenant = 'tenant-log-events';
    const day = (n: number, time = '12:00:00.000') => `2024-03-${String(n).padStart(2, '0')}T${time}Z`;
    type Event = { date: string; type: string; user_id?: string; client_id?: string; connection?: string; ip?: string; description?: string };
    const store = (on: Storage, events: Event[], tenantId = tenant, expiresAt = '2099-01-01T00:00:00.000Z') =>
      on.transaction((repos) => repos.logEvents.insertBatch(tenantId, events.map((event) => ({ event, expiresAt }))));
    const all = async (on: Storage = storage, tenantId = tenant) => (await on.logEvents.list<Event>(tenantId, { limit: 10_000, sort: 'asc' })).events;

    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, {}, tick());
    });

    it('assigns fixed-width ids in the order given, per tenant, and reads events back as written', async () => {
      const ids = await store(storage, [
        { date: day(1), type: 's', user_id: 'u1', client_id: 'c1', connection: 'db', ip: '10.0.0.1', description: 'ünïcødé ✓' },
        { date: day(1, '12:00:01.000'), type: 'fp', user_id: 'u2', ip: '10.0.0.2' },
      ]);
      expect(ids).toEqual([logIdOf(1), logIdOf(2)]);
      expect(ids.every(isLogId)).toBe(true);
      expect(ids[0]).toMatch(/^90020\d{20}$/);
      expect(await storage.logEvents.get(tenant, ids[0] as string)).toEqual({
        log_id: ids[0],
        date: day(1),
        type: 's',
        user_id: 'u1',
        client_id: 'c1',
        connection: 'db',
        ip: '10.0.0.1',
        description: 'ünïcødé ✓',
      });
      // Another tenant counts on its own; its events are not this tenant's.
      expect(await store(storage, [{ date: day(1), type: 's' }], tenantB)).toEqual([logIdOf(1)]);
      expect(await storage.logEvents.get(tenant, logIdOf(3))).toBeUndefined();
      expect(await storage.logEvents.get(tenantB, ids[1] as string)).toBeUndefined();
      // Text order is numeric order, past a change in the number of digits.
      expect(logIdOf(9) < logIdOf(10) && logIdOf(99_999) < logIdOf(100_000)).toBe(true);
    });

    it('leaves no trace of a batch whose transaction rolled back: ids go on without a gap', async () => {
      const before = (await all()).map((event) => event.log_id);
      const failure = new Error('rolled back');
      await expect(
        storage.transaction(async (repos) => {
          await repos.logEvents.insertBatch(tenant, [{ event: { date: day(2), type: 'f' }, expiresAt: day(30) }]);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect((await all()).map((event) => event.log_id)).toEqual(before);
      const [next] = await store(storage, [{ date: day(2), type: 'ss', user_id: 'u3' }]);
      expect(next).toBe(logIdOf(before.length + 1));
    });

    it('stores large batches in order (several statements) and lists them with filters, order, windows and totals', async () => {
      const types = ['s', 'f', 'seccft'];
      const batch: Event[] = Array.from({ length: 300 }, (_, i) => ({
        date: day(3 + (i % 5), `10:00:${String(i % 60).padStart(2, '0')}.000`),
        type: types[i % 3] as string,
        user_id: `user-${i % 7}`,
        client_id: `client-${i % 2}`,
        connection: i % 2 === 0 ? 'db' : 'email',
        ip: `10.1.0.${i % 4}`,
        description: `#${i}`,
      }));
      const ids = await store(storage, batch);
      expect(ids).toHaveLength(300);
      expect([...ids].sort()).toEqual(ids);
      const window = await storage.logEvents.list<Event>(tenant, { where: { user_id: 'user-3', type: 'f' }, sort: 'asc', offset: 1, limit: 3, includeTotal: true });
      const matching = batch.filter((event) => event.user_id === 'user-3' && event.type === 'f');
      expect(window.total).toBe(matching.length);
      expect(window.events.map((event) => event.description)).toEqual(matching.slice(1, 4).map((event) => event.description));
      const newest = await storage.logEvents.list<Event>(tenant, { where: { client_id: 'client-1', connection: 'email', ip: '10.1.0.1' }, limit: 2 });
      expect(newest.total).toBeUndefined();
      const expected = batch.filter((event) => event.client_id === 'client-1' && event.connection === 'email' && event.ip === '10.1.0.1').reverse();
      expect(newest.events.map((event) => event.description)).toEqual(expected.slice(0, 2).map((event) => event.description));
      const anyOf = await storage.logEvents.list<Event>(tenant, { where: { types: ['seccft', 'ss'] }, limit: 1000, includeTotal: true });
      expect(anyOf.total).toBe(batch.filter((event) => event.type === 'seccft').length + 1);
      expect((await storage.logEvents.list(tenant, { where: { types: [] }, limit: 10, includeTotal: true })).total).toBe(0);
      // Date bounds are inclusive.
      const dated = await storage.logEvents.list<Event>(tenant, { where: { dateFrom: day(4, '10:00:00.000'), dateTo: day(5, '10:00:59.000') }, limit: 1000, includeTotal: true });
      expect(dated.total).toBe(batch.filter((event) => event.date >= day(4, '10:00:00.000') && event.date <= day(5, '10:00:59.000')).length);
    });

    it('pages by checkpoint: from the start or after an id, with filters, never repeating an event', async () => {
      const everything = await all();
      const seen: string[] = [];
      let from: string | undefined;
      for (;;) {
        const page = await storage.logEvents.after<Event>(tenant, from, 37);
        if (page.length === 0) break;
        seen.push(...page.map((event) => event.log_id));
        from = page.at(-1)?.log_id;
      }
      expect(seen).toEqual(everything.map((event) => event.log_id));
      const users = await storage.logEvents.after<Event>(tenant, everything[10]?.log_id, 5, { user_id: 'user-2' });
      expect(users.every((event) => event.user_id === 'user-2' && event.log_id > (everything[10]?.log_id ?? ''))).toBe(true);
      expect(users).toHaveLength(5);
    });

    it('counts events per day and type, and the distinct users of some types since a date', async () => {
      const other = 'tenant-log-stats';
      await storage.tenants.insertIfMissing(other, {}, tick());
      await store(
        storage,
        [
          { date: day(10, '00:00:00.000'), type: 's', user_id: 'a' },
          { date: day(10, '23:59:59.999'), type: 's', user_id: 'b' },
          { date: day(10, '08:00:00.000'), type: 'ss', user_id: 'b' },
          { date: day(11, '08:00:00.000'), type: 's', user_id: 'a' },
          { date: day(11, '09:00:00.000'), type: 'pwd_leak' },
          { date: day(12, '09:00:00.000'), type: 's', user_id: 'c' },
          { date: day(11, '10:00:00.000'), type: 'f', user_id: 'd' },
        ],
        other,
      );
      const totals = await storage.logSearch.dayTotals(other, { from: day(10, '00:00:00.000'), to: day(12, '00:00:00.000'), types: ['s', 'ss', 'pwd_leak'] });
      expect(totals.find((total) => total.day === '2024-03-10' && total.type === 's')).toMatchObject({ first: day(10, '00:00:00.000'), last: day(10, '23:59:59.999') });
      const counts = totals.map(({ day: date, type, count }) => ({ day: date, type, count }));
      expect(counts).toEqual([
        { day: '2024-03-10', type: 's', count: 2 },
        { day: '2024-03-10', type: 'ss', count: 1 },
        { day: '2024-03-11', type: 'pwd_leak', count: 1 },
        { day: '2024-03-11', type: 's', count: 1 },
      ]);
      expect(await storage.logEvents.activeUsers(other, { since: day(10, '00:00:00.000'), types: ['s'] })).toBe(3);
      expect(await storage.logEvents.activeUsers(other, { since: day(11, '00:00:00.000'), types: ['s', 'ss'] })).toBe(2);
      expect(await storage.logEvents.activeUsers(other, { since: day(1), types: [] })).toBe(0);
    });

    it('deletes expired events of every tenant in batches, and only those', async () => {
      const sweepTenant = 'tenant-log-sweep';
      await storage.tenants.insertIfMissing(sweepTenant, {}, tick());
      const expiring = Array.from({ length: 5 }, (_, i) => ({ date: day(1), type: 'f', description: `old-${i}` }));
      await store(storage, expiring, sweepTenant, '2024-04-01T00:00:00.000Z');
      await store(storage, [{ date: day(1), type: 's', description: 'kept' }], sweepTenant, '2024-05-01T00:00:00.000Z');
      expect(await storage.logEvents.deleteExpired('2024-04-01T00:00:00.000Z', 3)).toBe(3);
      expect(await storage.logEvents.deleteExpired('2024-04-01T00:00:00.000Z', 3)).toBe(2);
      expect(await storage.logEvents.deleteExpired('2024-04-01T00:00:00.000Z', 3)).toBe(0);
      expect((await all(storage, sweepTenant)).map((event) => event.description)).toEqual(['kept']);
    });

    it('orders concurrent writers by commit: a writer waits for the tenant lock, so a reader paging by checkpoint never skips an event', async () => {
      const race = 'tenant-log-race';
      await storage.tenants.insertIfMissing(race, {}, tick());
      // PostgreSQL: a second pool on the same database, as another node has. SQLite: the same storage (its one
      // connection serialises transactions; other processes wait for BEGIN IMMEDIATE, tested above); a second
      // connection in this process would block the thread the first one needs to commit.
      const second = dialect === 'postgres' ? await database.open({ migrate: false }) : storage;
      try {
        // A holds the lock with its ids taken and not yet committed; B, on the other node, must wait for A.
        const order: string[] = [];
        let taken = () => {};
        const aHasIds = new Promise<void>((resolve) => (taken = resolve));
        const a = storage.transaction(async (repos) => {
          const ids = await repos.logEvents.insertBatch(race, [{ event: { date: day(1), type: 's', description: 'a' }, expiresAt: day(30) }]);
          taken();
          await sleep(150);
          order.push('a:commit');
          return ids;
        });
        await aHasIds;
        const b = store(second, [{ date: day(1), type: 's', description: 'b' }], race).then((ids) => {
          order.push('b:commit');
          return ids;
        });
        const [idsA, idsB] = await Promise.all([a, b]);
        expect(order).toEqual(['a:commit', 'b:commit']);
        expect((idsA[0] ?? '') < (idsB[0] ?? '')).toBe(true);

        // Writers on both nodes, each transaction lingering before its commit, while a reader pages by checkpoint.
        let writing = true;
        const writer = async (on: Storage, label: string) => {
          for (let i = 0; i < 12; i += 1) {
            await on.transaction(async (repos) => {
              await repos.logEvents.insertBatch(race, [1, 2, 3].map((n) => ({ event: { date: day(2), type: 's', description: `${label}-${i}-${n}` }, expiresAt: day(30) })));
              await sleep(5);
            });
          }
        };
        const seen: string[] = [];
        const reader = async () => {
          let from: string | undefined;
          for (;;) {
            const stillWriting = writing;
            const page = await second.logEvents.after<Event>(race, from, 4);
            seen.push(...page.map((event) => event.log_id));
            from = page.at(-1)?.log_id ?? from;
            if (page.length === 0 && !stillWriting) return;
            if (page.length === 0) await sleep(2);
          }
        };
        const reading = reader();
        await Promise.all([writer(storage, 'one'), writer(second, 'two')]);
        writing = false;
        await reading;
        const stored = (await all(storage, race)).map((event) => event.log_id);
        expect(stored).toHaveLength(2 + 2 * 12 * 3);
        expect(seen).toEqual(stored);
        expect(stored).toEqual(stored.map((_, i) => logIdOf(i + 1)));
      } finally {
        if (second !== storage) await second.close();
      }
    });
  });

  describe('log streams', () => {
    const tenant = 'tenant-log-streams';
    type Settings = { name: string; sink: { url: string } };
    const at = (seconds: number) => new Date(Date.parse('2024-05-01T00:00:00.000Z') + seconds * 1000).toISOString();
    let n = 0;
    const newStream = async (on: Storage = storage, status: 'active' | 'paused' = 'active', tenantId = tenant) => {
      n += 1;
      const id = `lst_${n}`;
      await on.logStreams.insert<Settings>(tenantId, { id, data: { name: `stream ${n}`, sink: { url: `https://logs-${n}.example/` } }, status, position: null, createdAt: tick() });
      return id;
    };

    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, {}, tick());
    });

    it('stores settings as JSON beside the delivery state, lists a tenant’s streams oldest first, updates and removes them', async () => {
      const other = 'tenant-log-streams-other';
      await storage.tenants.insertIfMissing(other, {}, tick());
      const first = await newStream();
      const second = await newStream(storage, 'paused');
      await newStream(storage, 'active', other);
      expect(await storage.logStreams.get<Settings>(tenant, first)).toEqual({
        id: first,
        data: { name: expect.any(String), sink: { url: expect.stringMatching(/^https:/) } },
        status: 'active',
        statusReason: null,
        position: null,
        failingSince: null,
        lastError: null,
        leaseOwner: null,
        leaseExpiresAt: null,
        createdAt: expect.any(String),
      });
      expect((await storage.logStreams.list(tenant)).map((stream) => stream.id).slice(-2)).toEqual([first, second]);
      expect(await storage.logStreams.count(other)).toBe(1);
      expect(await storage.logStreams.get(other, first)).toBeUndefined();

      expect(await storage.logStreams.update<Settings>(tenant, second, { data: { name: 'renamed', sink: { url: 'https://x.example/' } }, status: 'active' })).toBe(true);
      expect(await storage.logStreams.get<Settings>(tenant, second)).toMatchObject({ data: { name: 'renamed' }, status: 'active' });
      expect(await storage.logStreams.update(tenant, 'lst_missing', { status: 'paused' })).toBe(false);
      expect(await storage.logStreams.update(other, second, { status: 'paused' })).toBe(false);

      expect(await storage.logStreams.remove(other, first)).toBe(false);
      expect(await storage.logStreams.remove(tenant, first)).toBe(true);
      expect(await storage.logStreams.remove(tenant, first)).toBe(false);
      expect(await storage.logStreams.get(tenant, first)).toBeUndefined();
    });

    it('leases a stream to one owner at a time: renewed by its owner, taken over only after it expired, never while paused', async () => {
      const id = await newStream();
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(0), at(30))).toBe(true);
      expect(await storage.logStreams.claim(tenant, id, 'node-b', at(10), at(40))).toBe(false);
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(20), at(50))).toBe(true);
      expect(await storage.logStreams.claim(tenant, id, 'node-b', at(49), at(79))).toBe(false);
      expect(await storage.logStreams.claim(tenant, id, 'node-b', at(51), at(81))).toBe(true);
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ leaseOwner: 'node-b', leaseExpiresAt: at(81) });

      // Fencing: the previous owner can neither renew, nor move the position, nor record failures, nor release.
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(52), at(82))).toBe(false);
      expect(await storage.logStreams.advance(tenant, id, 'node-a', logIdOf(5), at(82))).toBe(false);
      expect(await storage.logStreams.failed(tenant, id, 'node-a', at(52), 'boom')).toBeUndefined();
      await storage.logStreams.release(tenant, id, 'node-a');
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ leaseOwner: 'node-b', position: null, failingSince: null });

      await storage.logStreams.release(tenant, id, 'node-b');
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
      await storage.logStreams.update(tenant, id, { status: 'paused' });
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(60), at(90))).toBe(false);
    });

    it('keeps the start of a run of failures until a delivery succeeds; suspends with the reason, ending the lease; resuming forgets them', async () => {
      const id = await newStream();
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(0), at(30))).toBe(true);
      expect(await storage.logStreams.advance(tenant, id, 'node-a', logIdOf(3), at(31))).toBe(true);
      expect(await storage.logStreams.failed(tenant, id, 'node-a', at(1), 'HTTP 500')).toBe(at(1));
      expect(await storage.logStreams.failed(tenant, id, 'node-a', at(2), 'HTTP 502')).toBe(at(1));
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ position: logIdOf(3), failingSince: at(1), lastError: 'HTTP 502' });
      expect(await storage.logStreams.advance(tenant, id, 'node-a', logIdOf(7), at(40))).toBe(true);
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ position: logIdOf(7), failingSince: null, lastError: null, leaseExpiresAt: at(40) });

      await storage.logStreams.failed(tenant, id, 'node-a', at(5), 'timeout');
      expect(await storage.logStreams.suspend(tenant, id, 'node-b', 'not the owner')).toBe(false);
      expect(await storage.logStreams.suspend(tenant, id, 'node-a', 'failing for 15 min')).toBe(true);
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ status: 'suspended', statusReason: 'failing for 15 min', leaseOwner: null, failingSince: at(5) });
      expect(await storage.logStreams.claim(tenant, id, 'node-a', at(6), at(36))).toBe(false);

      expect(await storage.logStreams.update(tenant, id, { status: 'active', resume: true })).toBe(true);
      expect(await storage.logStreams.get(tenant, id)).toMatchObject({ status: 'active', statusReason: null, failingSince: null, lastError: null, position: logIdOf(7) });
    });

    it('gives a free lease to exactly one of many concurrent claimers, across connections', async () => {
      const second = dialect === 'postgres' ? await database.open({ migrate: false }) : storage;
      try {
        const id = await newStream();
        const claims = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? storage : second).logStreams.claim(tenant, id, `node-${i}`, at(0), at(30)));
        expect((await Promise.all(claims)).filter(Boolean)).toHaveLength(1);
      } finally {
        if (second !== storage) await second.close();
      }
    });
  });

  describe('jobs', () => {
    const tenant = 'tenant-jobs';
    const at = (seconds: number) => new Date(Date.parse('2024-06-01T00:00:00.000Z') + seconds * 1000).toISOString();
    const skipLocked = () => storage.dialect.name === 'postgres';
    type Data = { n: number };

    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, {}, tick());
    });

    it('keeps a job\'s input in ordered chunks, hands each unfinished job to one owner at a time, resumes it after an expired lease, and drops the input when it ends', async () => {
      await storage.jobs.insert<Data>(tenant, { id: 'job_a', type: 'users_import', data: { n: 1 }, createdAt: at(0) });
      await storage.jobs.insert<Data>(tenant, { id: 'job_b', type: 'users_import', data: { n: 2 }, createdAt: at(1) });
      await storage.jobs.appendInput(tenant, 'job_a', 0, '[{"a":1},');
      await storage.jobs.appendInput(tenant, 'job_a', 1, '{"a":2}]');
      expect([await storage.jobs.inputChunk(tenant, 'job_a', 0), await storage.jobs.inputChunk(tenant, 'job_a', 1), await storage.jobs.inputChunk(tenant, 'job_a', 2)]).toEqual([
        '[{"a":1},',
        '{"a":2}]',
        undefined,
      ]);

      // Two nodes claiming at once get different jobs (or one gets none), never the same one.
      const [first, second] = await Promise.all([
        storage.jobs.claimNext<Data>(tenant, 'node-a', at(10), at(40), skipLocked()),
        storage.jobs.claimNext<Data>(tenant, 'node-b', at(10), at(40), skipLocked()),
      ]);
      const claimed = [first, second].filter((job) => job !== undefined);
      expect(new Set(claimed.map((job) => job.id)).size).toBe(claimed.length);
      expect(claimed.length).toBeGreaterThan(0);
      const a = await storage.jobs.get<Data>(tenant, 'job_a');
      expect(a).toMatchObject({ status: 'processing', position: 0, leaseExpiresAt: at(40), data: { n: 1 } });
      const owner = a?.leaseOwner ?? '';
      // Nothing more to take while the leases hold.
      if (claimed.length === 2) expect(await storage.jobs.claimNext(tenant, 'node-c', at(20), at(50), skipLocked())).toBeUndefined();

      const other = owner === 'node-a' ? 'node-b' : 'node-a';
      expect(await storage.jobs.advance<Data>(tenant, 'job_a', other, { position: 5, data: { n: 9 }, until: at(60) })).toBe(false);
      expect(await storage.jobs.advance<Data>(tenant, 'job_a', owner, { position: 1, data: { n: 3 }, until: at(60) })).toBe(true);
      // The holder stops without a word: after its lease, another node takes the job over where it was.
      const takeover = await storage.jobs.claimNext<Data>(tenant, 'node-c', at(61), at(90), skipLocked());
      expect(takeover).toMatchObject({ id: claimed.length === 2 ? 'job_a' : expect.any(String), leaseOwner: 'node-c' });
      const resumed = await storage.jobs.get<Data>(tenant, 'job_a');
      expect(resumed).toMatchObject({ position: 1, data: { n: 3 } });
      const holder = resumed?.leaseOwner ?? '';
      expect(await storage.jobs.finish<Data>(tenant, 'job_a', owner === holder ? 'nobody' : owner, 'completed', { n: 4 })).toBe(false);
      expect(await storage.jobs.finish<Data>(tenant, 'job_a', holder, 'completed', { n: 4 })).toBe(true);
      expect(await storage.jobs.get<Data>(tenant, 'job_a')).toMatchObject({ status: 'completed', leaseOwner: null, data: { n: 4 } });
      expect(await storage.jobs.inputChunk(tenant, 'job_a', 0)).toBeUndefined();

      // A released lease is free at once.
      const b = await storage.jobs.get<Data>(tenant, 'job_b');
      if (b?.leaseOwner) await storage.jobs.release(tenant, 'job_b', b.leaseOwner);
      expect(await storage.jobs.claimNext<Data>(tenant, 'node-d', at(62), at(92), skipLocked())).toMatchObject({ id: 'job_b', leaseOwner: 'node-d' });
      expect(await storage.jobs.claimNext<Data>(tenant, 'node-e', at(63), at(93), skipLocked())).toBeUndefined();
    });

    it('keeps a job\'s output as ordered chunks of bytes, drops them from a chunk on, and stores a job done at once as completed', async () => {
      await storage.jobs.insert<Data>(tenant, { id: 'job_done', type: 'verification_email', data: { n: 1 }, createdAt: at(100), status: 'completed' });
      expect(await storage.jobs.get<Data>(tenant, 'job_done')).toMatchObject({ status: 'completed', leaseOwner: null });
      // A completed job is never claimed (job_b is still held by node-d then).
      expect(await storage.jobs.claimNext<Data>(tenant, 'node-f', at(70), at(130), skipLocked())).toBeUndefined();
      const bytes = (n: number) => Uint8Array.from([0, 255, n, 10, 13]);
      for (const seq of [0, 1, 2]) await storage.jobs.appendOutput(tenant, 'job_done', seq, bytes(seq));
      expect(Buffer.from((await storage.jobs.outputChunk(tenant, 'job_done', 1)) ?? [])).toEqual(Buffer.from(bytes(1)));
      await storage.jobs.dropOutput(tenant, 'job_done', 1);
      expect(await storage.jobs.outputChunk(tenant, 'job_done', 1)).toBeUndefined();
      expect(Buffer.from((await storage.jobs.outputChunk(tenant, 'job_done', 0)) ?? [])).toEqual(Buffer.from(bytes(0)));
      await expect(storage.jobs.appendOutput(tenant, 'job_done', 0, bytes(9))).rejects.toThrow();
      await storage.jobs.dropOutput(tenant, 'job_done');
      expect(await storage.jobs.outputChunk(tenant, 'job_done', 0)).toBeUndefined();
    });
  });

  describe('roles', () => {
    const tenant = 'tenant-roles';
    const at = '2026-02-01T00:00:00.000Z';
    const perm = (permission_name: string, resource_server_identifier = 'https://a.example/') => ({ resource_server_identifier, permission_name });

    it('filters names literally and case-insensitively, counts, and cleans up after roles, users and scopes', async () => {
      for (const [id, name] of [['rol_1', 'Admin'], ['rol_2', '50%_off'], ['rol_3', 'administrator'], ['rol_4', '50 percent']] as const) {
        await storage.roles.insert(tenant, { id, name, description: null, createdAt: at });
      }
      await expect(storage.roles.insert(tenant, { id: 'rol_5', name: 'Admin', description: null, createdAt: at })).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
      const names = async (filter?: string) => (await storage.roles.list(tenant, { offset: 0, limit: 10 }, filter)).items.map((role) => role.name);
      expect(await names('ADMIN')).toEqual(['Admin', 'administrator']);
      // % and _ are letters here, not wildcards.
      expect(await names('%_')).toEqual(['50%_off']);
      expect((await storage.roles.list(tenant, { offset: 1, limit: 1 })).total).toBe(4);

      await storage.roles.addPermissions(tenant, 'rol_1', [perm('read'), perm('write'), perm('other', 'https://b.example/')], at);
      await storage.roles.addPermissions(tenant, 'rol_1', [perm('read')], at);
      await storage.roles.assign(tenant, [{ userId: 'u1', roleId: 'rol_1' }, { userId: 'u1', roleId: 'rol_1' }, { userId: 'u2', roleId: 'rol_1' }], at);
      await storage.roles.addUserPermissions(tenant, 'u1', [perm('read')], at);
      const held = await storage.roles.permissionsOfUser(tenant, 'u1');
      expect(held.map((entry) => [entry.permission_name, entry.sources.map((source) => source.type).sort()])).toEqual([
        ['read', ['DIRECT', 'ROLE']],
        ['write', ['ROLE']],
        ['other', ['ROLE']],
      ]);
      // What a token for one API may carry: direct and role permissions once each, in name order.
      expect(await storage.roles.permissionNamesOfUser(tenant, 'u1', 'https://b.example/')).toEqual(['other']);
      expect(await storage.roles.permissionNamesOfUser(tenant, 'u1', 'https://a.example/')).toEqual(['read', 'write']);
      expect((await storage.roles.usersOfRole(tenant, 'rol_1', { offset: 0, limit: 10 })).items).toEqual(['u1', 'u2']);

      await storage.roles.removePermissionsOfApi(tenant, 'https://a.example/', ['write']);
      expect((await storage.roles.permissionsOfUser(tenant, 'u1')).map((entry) => entry.permission_name)).toEqual(['write', 'other']);
      await storage.roles.removeUser(tenant, 'u1');
      expect(await storage.roles.permissionsOfUser(tenant, 'u1')).toEqual([]);
      expect(await storage.transaction((repos) => repos.roles.remove(tenant, 'rol_1'))).toBe(true);
      expect(await storage.roles.usersOfRole(tenant, 'rol_1', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect(await storage.roles.permissionsOf(tenant, 'rol_1', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect(await storage.roles.remove(tenant, 'rol_1')).toBe(false);
    });
  });

  describe('authenticators (multi-factor)', () => {
    const tenant = 'tenant-mfa';
    const at = '2026-02-01T00:00:00.000Z';
    const base = { name: null, phoneNumber: null, email: null, secretSealed: null, codeHash: null, lastStep: null, credentialId: null, signCount: null, data: {}, enrolledAt: null, lastAuthAt: null } as const;

    it('keeps a user\'s authenticators in creation order, spends a TOTP step and a recovery code once, and removes by user and type', async () => {
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_1', userId: 'u1', type: 'otp', status: 'pending', secretSealed: 'v1.sealed', createdAt: '2026-02-01T00:00:01.000Z' });
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_2', userId: 'u1', type: 'recovery-code', status: 'confirmed', codeHash: 'h1', createdAt: '2026-02-01T00:00:02.000Z' });
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_3', userId: 'u1', type: 'sms', status: 'confirmed', phoneNumber: '+15550001', data: { preferred_authentication_method: 'sms' }, createdAt: '2026-02-01T00:00:03.000Z' });
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_4', userId: 'u2', type: 'email', status: 'confirmed', email: 'b@example.com', createdAt: at });
      await expect(storage.authenticators.insert(tenant, { ...base, id: 'dev_4', userId: 'u2', type: 'email', status: 'confirmed', createdAt: at })).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
      expect((await storage.authenticators.listOfUser(tenant, 'u1')).map((a) => a.id)).toEqual(['dev_1', 'dev_2', 'dev_3']);
      expect(await storage.authenticators.listOfUser(tenantB, 'u1')).toEqual([]);
      expect((await storage.authenticators.get(tenant, 'dev_3'))?.data).toEqual({ preferred_authentication_method: 'sms' });

      // A time step is accepted once; an earlier one after it, never.
      expect(await storage.authenticators.useStep(tenant, 'dev_1', 59_000_000_001, at)).toBe(true);
      expect(await storage.authenticators.useStep(tenant, 'dev_1', 59_000_000_001, at)).toBe(false);
      expect(await storage.authenticators.useStep(tenant, 'dev_1', 59_000_000_000, at)).toBe(false);
      const [first, second] = await Promise.all([
        storage.authenticators.useStep(tenant, 'dev_1', 59_000_000_002, at),
        storage.authenticators.useStep(tenant, 'dev_1', 59_000_000_002, at),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect((await storage.authenticators.get(tenant, 'dev_1'))?.lastStep).toBe(59_000_000_002);

      expect(await storage.authenticators.update(tenant, 'dev_1', { status: 'confirmed', enrolledAt: at, name: 'phone app' })).toBe(true);
      expect(await storage.authenticators.get(tenant, 'dev_1')).toMatchObject({ status: 'confirmed', enrolledAt: at, name: 'phone app', secretSealed: 'v1.sealed' });
      expect(await storage.authenticators.update(tenant, 'dev_missing', { name: 'x' })).toBe(false);

      expect(await storage.authenticators.removeIfCode(tenant, 'dev_2', 'other')).toBe(false);
      expect(await storage.authenticators.removeIfCode(tenant, 'dev_2', 'h1')).toBe(true);
      expect(await storage.authenticators.removeIfCode(tenant, 'dev_2', 'h1')).toBe(false);

      expect(await storage.authenticators.removeOfUser(tenant, 'u1', ['sms'])).toBe(1);
      expect(await storage.authenticators.removeOfUser(tenant, 'u1', [])).toBe(0);
      expect((await storage.authenticators.listOfUser(tenant, 'u1')).map((a) => a.type)).toEqual(['otp']);
      expect(await storage.authenticators.removeOfUser(tenant, 'u1')).toBe(1);
      expect(await storage.authenticators.remove(tenant, 'dev_4')).toBe(true);
      expect(await storage.authenticators.remove(tenant, 'dev_4')).toBe(false);
    });

    it('finds a WebAuthn credential by its id within the tenant, refuses it twice, and raises its counter once', async () => {
      const key = { ...base, userId: 'u5', type: 'webauthn-roaming', status: 'confirmed', createdAt: at } as const;
      await storage.authenticators.insert(tenant, { ...key, id: 'dev_k1', credentialId: 'cred-1', signCount: 5, data: { publicKey: 'pk' } });
      await storage.authenticators.insert(tenant, { ...key, id: 'dev_k2', credentialId: 'cred-2', signCount: 0 });
      // Many authenticators without a credential share the null (TOTP, SMS, ...).
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_k3', userId: 'u5', type: 'otp', status: 'confirmed', createdAt: at });
      await storage.authenticators.insert(tenant, { ...base, id: 'dev_k4', userId: 'u6', type: 'otp', status: 'confirmed', createdAt: at });
      await expect(storage.authenticators.insert(tenant, { ...key, id: 'dev_k5', userId: 'u6', credentialId: 'cred-1', signCount: 0 })).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
      // Another tenant may hold the same credential id (a credential is scoped to a relying party, not to us).
      await storage.authenticators.insert(tenantB, { ...key, id: 'dev_k1', credentialId: 'cred-1', signCount: 0 });

      expect(await storage.authenticators.getByCredentialId(tenant, 'cred-1')).toMatchObject({ id: 'dev_k1', userId: 'u5', credentialId: 'cred-1', signCount: 5, data: { publicKey: 'pk' } });
      expect(await storage.authenticators.getByCredentialId(tenant, 'cred-missing')).toBeUndefined();
      expect((await storage.authenticators.getByCredentialId(tenantB, 'cred-1'))?.signCount).toBe(0);

      // replay: a counter is accepted once, a lower one never; of two racers with the same counter one wins.
      expect(await storage.authenticators.useSignCount(tenant, 'dev_k1', 5, at)).toBe(false);
      expect(await storage.authenticators.useSignCount(tenant, 'dev_k1', 6, '2026-02-01T00:00:06.000Z')).toBe(true);
      expect(await storage.authenticators.useSignCount(tenant, 'dev_k1', 6, at)).toBe(false);
      const race = await Promise.all([storage.authenticators.useSignCount(tenant, 'dev_k1', 9, at), storage.authenticators.useSignCount(tenant, 'dev_k1', 9, at)]);
      expect(race.filter(Boolean)).toHaveLength(1);
      expect(await storage.authenticators.get(tenant, 'dev_k1')).toMatchObject({ signCount: 9, lastAuthAt: at });
      // A counter of 0 (an authenticator that keeps none) only records the time.
      expect(await storage.authenticators.useSignCount(tenant, 'dev_k2', 0, '2026-02-01T00:00:07.000Z')).toBe(true);
      expect(await storage.authenticators.get(tenant, 'dev_k2')).toMatchObject({ signCount: 0, lastAuthAt: '2026-02-01T00:00:07.000Z' });
      expect(await storage.authenticators.useSignCount(tenant, 'dev_missing', 0, at)).toBe(false);
      await storage.authenticators.removeOfUser(tenant, 'u5');
      expect(await storage.authenticators.getByCredentialId(tenant, 'cred-1')).toBeUndefined();
    });

    it('records when remembered browsers were invalidated, the last time counting', async () => {
      expect(await storage.authenticators.rememberedBrowsersRevokedAt(tenant, 'u9')).toBeUndefined();
      await storage.authenticators.revokeRememberedBrowsers(tenant, 'u9', '2026-02-01T00:00:00.000Z');
      await storage.authenticators.revokeRememberedBrowsers(tenant, 'u9', '2026-02-02T00:00:00.000Z');
      expect(await storage.authenticators.rememberedBrowsersRevokedAt(tenant, 'u9')).toBe('2026-02-02T00:00:00.000Z');
      await storage.authenticators.removeUser(tenant, 'u9');
      expect(await storage.authenticators.rememberedBrowsersRevokedAt(tenant, 'u9')).toBeUndefined();
    });
  });

  describe('consents (user grants)', () => {
    const tenant = 'tenant-consents';
    const at = '2026-02-01T00:00:00.000Z';

    it('adds scopes to one grant per user, application and API, lists by filter in a stable order, and deletes by id or filter', async () => {
      await storage.consents.grant(tenant, { id: 'cgr_1', userId: 'u1', clientId: 'c1', audience: 'https://a.example/', scope: ['openid', 'read'] }, at);
      await storage.consents.grant(tenant, { id: 'cgr_unused', userId: 'u1', clientId: 'c1', audience: 'https://a.example/', scope: ['read', 'write'] }, '2026-02-02T00:00:00.000Z');
      await storage.consents.grant(tenant, { id: 'cgr_2', userId: 'u1', clientId: 'c2', audience: 'https://a.example/', scope: ['read'] }, at);
      await storage.consents.grant(tenant, { id: 'cgr_3', userId: 'u2', clientId: 'c1', audience: 'https://b.example/', scope: ['x'] }, at);
      expect(await storage.consents.find(tenant, 'u1', 'c1', 'https://a.example/')).toEqual({
        id: 'cgr_1',
        userId: 'u1',
        clientId: 'c1',
        audience: 'https://a.example/',
        scope: ['openid', 'read', 'write'],
        createdAt: at,
        updatedAt: '2026-02-02T00:00:00.000Z',
      });
      const ids = async (filter: Parameters<typeof storage.consents.list>[1], window = { offset: 0, limit: 10 }) => {
        const page = await storage.consents.list(tenant, filter, window);
        return { ids: page.items.map((grant) => grant.id), total: page.total };
      };
      expect(await ids({})).toEqual({ ids: ['cgr_1', 'cgr_2', 'cgr_3'], total: 3 });
      expect(await ids({ userId: 'u1' }, { offset: 1, limit: 1 })).toEqual({ ids: ['cgr_2'], total: 2 });
      expect(await ids({ clientId: 'c1', audience: 'https://b.example/' })).toEqual({ ids: ['cgr_3'], total: 1 });
      expect(await storage.consents.remove(tenant, 'cgr_2')).toBe(true);
      expect(await storage.consents.remove(tenant, 'cgr_2')).toBe(false);
      expect(await storage.consents.removeWhere(tenant, { userId: 'u1' })).toBe(1);
      expect(await ids({})).toEqual({ ids: ['cgr_3'], total: 1 });
      expect(await storage.consents.removeWhere('another-tenant', { clientId: 'c1' })).toBe(0);
    });
  });

  describe('actions', () => {
    const tenant = 'tenant-actions';
    const at = (second: number) => `2026-03-01T00:00:${String(second).padStart(2, '0')}.000Z`;
    type Draft = { code: string; secrets?: string[] };
    const action = (id: string, name: string, triggerId: string, second: number) => ({
      id,
      name,
      triggerId,
      deployedVersionId: null,
      data: { code: `// ${name}` } as Draft,
      createdAt: at(second),
      updatedAt: at(second),
      bundledCode: `bundle of ${name}`,
    });
    const version = (id: string, actionId: string, number: number) => ({ id, actionId, number, data: { code: `v${number}`, secrets: ['sealed'] } as Draft, createdAt: at(number), updatedAt: at(number), bundledCode: `bundle v${number} of ${actionId}` });

    it('keeps actions with their draft, unique names per tenant, lists them by filter in creation order, and announces writes', async () => {
      const announced: string[] = [];
      storage.onChange((table) => announced.push(table));
      await storage.actions.insert(tenant, action('act-1', 'First', 'post-login', 1));
      await storage.actions.insert(tenant, action('act-2', 'Second', 'credentials-exchange', 2));
      await storage.actions.insert(tenant, action('act-3', 'Third', 'post-login', 3));
      await storage.actions.insert(tenantB, action('act-1', 'First', 'post-login', 1));
      await expect(storage.actions.insert(tenant, action('act-4', 'First', 'post-login', 4))).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
      expect(announced.filter((table) => table === 'actions')).toHaveLength(4);

      expect(await storage.actions.get<Draft>(tenant, 'act-1')).toEqual({ id: 'act-1', name: 'First', triggerId: 'post-login', deployedVersionId: null, data: { code: '// First' }, createdAt: at(1), updatedAt: at(1) });
      expect(await storage.actions.draftBundle(tenant, 'act-1')).toBe('bundle of First');
      expect(await storage.actions.draftBundle(tenant, 'nope')).toBeUndefined();
      expect((await storage.actions.getByName(tenant, 'Second'))?.id).toBe('act-2');
      expect((await storage.actions.getMany(tenant, ['act-3', 'act-1', 'nope'])).map((found) => found.id).sort()).toEqual(['act-1', 'act-3']);
      const ids = async (filter: Parameters<typeof storage.actions.list>[1], window = { offset: 0, limit: 10 }) => {
        const page = await storage.actions.list(tenant, filter, window);
        return { ids: page.items.map((found) => found.id), total: page.total };
      };
      expect(await ids({})).toEqual({ ids: ['act-1', 'act-2', 'act-3'], total: 3 });
      expect(await ids({ triggerId: 'post-login' }, { offset: 1, limit: 1 })).toEqual({ ids: ['act-3'], total: 2 });
      expect(await ids({ name: 'Second' })).toEqual({ ids: ['act-2'], total: 1 });
      expect(await ids({ deployed: true })).toEqual({ ids: [], total: 0 });

      // A failed build keeps no bundle; null is stored as such.
      expect(await storage.actions.update(tenant, 'act-2', { name: 'Renamed', data: { code: 'broken' }, bundledCode: null, updatedAt: at(9) })).toBe(true);
      expect(await storage.actions.get<Draft>(tenant, 'act-2')).toMatchObject({ name: 'Renamed', data: { code: 'broken' }, updatedAt: at(9) });
      expect(await storage.actions.draftBundle(tenant, 'act-2')).toBeNull();
      expect(await storage.actions.update(tenant, 'nope', { name: 'x' })).toBe(false);
      await expect(storage.actions.update(tenant, 'act-2', { name: 'First' })).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
    });

    it('numbers versions per action, lists them newest first, deploys one, and prunes the oldest but the deployed one', async () => {
      expect(await storage.actions.lastVersionNumber(tenant, 'act-1')).toBe(0);
      for (const number of [1, 2, 3, 4]) await storage.actions.insertVersion(tenant, version(`ver-${number}`, 'act-1', number));
      await expect(storage.actions.insertVersion(tenant, version('ver-dup', 'act-1', 4))).rejects.toSatisfy((error: unknown) => storage.isUniqueViolation(error));
      expect(await storage.actions.lastVersionNumber(tenant, 'act-1')).toBe(4);
      const page = await storage.actions.listVersions<Draft>(tenant, 'act-1', { offset: 1, limit: 2 });
      expect(page).toEqual({ total: 4, items: [expect.objectContaining({ id: 'ver-3', number: 3 }), expect.objectContaining({ id: 'ver-2', number: 2 })] });
      expect(await storage.actions.getVersion<Draft>(tenant, 'act-1', 'ver-2')).toEqual({ id: 'ver-2', actionId: 'act-1', number: 2, data: { code: 'v2', secrets: ['sealed'] }, createdAt: at(2), updatedAt: at(2) });
      expect(await storage.actions.getVersion(tenant, 'act-3', 'ver-2')).toBeUndefined();
      expect(await storage.actions.versionBundle(tenant, 'ver-2')).toBe('bundle v2 of act-1');

      expect(await storage.actions.update(tenant, 'act-1', { deployedVersionId: 'ver-1' })).toBe(true);
      expect((await storage.actions.list(tenant, { deployed: true }, { offset: 0, limit: 10 })).items.map((found) => found.id)).toEqual(['act-1']);
      expect((await storage.actions.list(tenant, { deployed: false }, { offset: 0, limit: 10 })).items.map((found) => found.id)).toEqual(['act-2', 'act-3']);
      // Keep the 2 newest: 3 and 4 stay, 2 goes, 1 stays because it is deployed.
      expect(await storage.actions.pruneVersions(tenant, 'act-1', 2, 'ver-1')).toBe(1);
      expect((await storage.actions.listVersions(tenant, 'act-1', { offset: 0, limit: 10 })).items.map((found) => found.number)).toEqual([4, 3, 1]);
    });

    it('replaces a trigger\u2019s bindings in order, and reads what it runs (deployed versions only) in that order', async () => {
      await storage.actions.insertVersion(tenant, version('ver-3a', 'act-3', 1));
      await storage.actions.update(tenant, 'act-3', { deployedVersionId: 'ver-3a' });
      const announced: string[] = [];
      storage.onChange((table) => announced.push(table));
      const binding = (id: string, actionId: string) => ({ id, actionId, displayName: `shown ${actionId}`, createdAt: at(20), updatedAt: at(21) });
      await storage.transaction((repos) => repos.actions.replaceBindings(tenant, 'post-login', [binding('b-1', 'act-3'), binding('b-2', 'act-2'), binding('b-3', 'act-1')]));
      expect(announced).toContain('action_bindings');
      expect((await storage.actions.bindings(tenant, 'post-login')).map((found) => found.id)).toEqual(['b-1', 'b-2', 'b-3']);
      expect(await storage.actions.bindingsOfAction(tenant, 'act-2')).toEqual([{ id: 'b-2', triggerId: 'post-login', actionId: 'act-2', displayName: 'shown act-2', createdAt: at(20), updatedAt: at(21) }]);
      // act-2 was never deployed: it is bound but does not run.
      expect(await storage.actions.bound<Draft>(tenant, 'post-login')).toEqual([
        { actionId: 'act-3', actionName: 'Third', versionId: 'ver-3a', data: { code: 'v1', secrets: ['sealed'] }, bundledCode: 'bundle v1 of act-3' },
        { actionId: 'act-1', actionName: 'First', versionId: 'ver-1', data: { code: 'v1', secrets: ['sealed'] }, bundledCode: 'bundle v1 of act-1' },
      ]);
      expect(await storage.actions.bound(tenantB, 'post-login')).toEqual([]);
      await storage.actions.replaceBindings(tenant, 'post-login', [binding('b-4', 'act-1'), binding('b-5', 'act-3')]);
      expect((await storage.actions.bound(tenant, 'post-login')).map((found) => found.actionId)).toEqual(['act-1', 'act-3']);
    });

    it('removes an action with its versions and bindings, leaving the others\u2019 order', async () => {
      expect(await storage.transaction((repos) => repos.actions.remove(tenant, 'act-1'))).toBe(true);
      expect(await storage.actions.get(tenant, 'act-1')).toBeUndefined();
      expect(await storage.actions.listVersions(tenant, 'act-1', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect((await storage.actions.bindings(tenant, 'post-login')).map((found) => found.actionId)).toEqual(['act-3']);
      expect(await storage.actions.remove(tenant, 'act-1')).toBe(false);
      // The other tenant's action of the same id is untouched.
      expect((await storage.actions.get(tenantB, 'act-1'))?.name).toBe('First');
    });

    it('keeps executions until they expire, then the sweep deletes them in batches', async () => {
      const execution = (id: string, expiresAt: string) => ({ id, triggerId: 'post-login', status: 'final', results: [{ action_name: 'First' }], createdAt: at(30), updatedAt: at(31), expiresAt });
      await storage.actionExecutions.insert(tenant, execution('exe-1', '2026-03-11T00:00:00.000Z'));
      await storage.actionExecutions.insert(tenant, execution('exe-2', '2026-03-11T00:00:00.000Z'));
      await storage.actionExecutions.insert(tenant, execution('exe-3', '2026-03-12T00:00:00.000Z'));
      expect(await storage.actionExecutions.get(tenant, 'exe-1', '2026-03-10T00:00:00.000Z')).toEqual({ ...execution('exe-1', '2026-03-11T00:00:00.000Z') });
      expect(await storage.actionExecutions.get(tenantB, 'exe-1', '2026-03-10T00:00:00.000Z')).toBeUndefined();
      expect(await storage.actionExecutions.get(tenant, 'exe-1', '2026-03-11T00:00:00.000Z')).toBeUndefined();
      expect(await storage.actionExecutions.deleteExpired('2026-03-11T00:00:00.000Z', 1)).toBe(1);
      expect(await storage.actionExecutions.deleteExpired('2026-03-11T00:00:00.000Z', 1)).toBe(1);
      expect(await storage.actionExecutions.deleteExpired('2026-03-11T00:00:00.000Z', 1)).toBe(0);
      expect(await storage.actionExecutions.get(tenant, 'exe-3', '2026-03-11T00:00:00.000Z')).toMatchObject({ id: 'exe-3' });
    });
  });

  describe('transactions', () => {
    it('commit everything and return the result of the work', async () => {
      const result = await storage.transaction(async (repos) => {
        await repos.tenants.insertIfMissing('tenant-committed', {}, tick());
        await untyped(repos.connections).insert('tenant-committed', { id: 'con-1', columns: { name: 'db', strategy: 'auth0' }, data: { name: 'db' }, createdAt: tick() });
        // Reads inside the transaction see its own writes.
        return (await repos.connections.get('tenant-committed', 'con-1'))?.columns.name;
      });
      expect(result).toBe('db');
      expect(await storage.connections.get('tenant-committed', 'con-1')).toBeDefined();
    });

    it('roll back everything when the work throws, and pass the error on', async () => {
      const failure = new Error('boom');
      await storage.tenants.insertIfMissing('tenant-rollback', { before: true }, tick());
      await storage.renderingConfigs.put('tenant-rollback', 'login', 'login', { v: 1 });
      const outcome = storage.transaction(async (repos) => {
        await repos.tenants.insertIfMissing('tenant-never', {}, tick());
        await repos.tenants.updateSettings('tenant-rollback', { before: false });
        await untyped(repos.clients).insert('tenant-rollback', { id: 'cli-rolled-back', columns: { secret_hash: 'h' }, data: { name: 'x' }, createdAt: tick() });
        await repos.renderingConfigs.put('tenant-rollback', 'login', 'login', { v: 2 });
        await repos.renderingConfigs.put('tenant-rollback', 'signup', 'signup', { v: 1 });
        await repos.signingKeys.insert({
          tenant_id: 'tenant-rollback',
          kid: 'kid-rolled-back',
          status: 'next',
          public_jwk: '{}',
          private_key_sealed: 'x',
          created_at: tick(),
          current_since: null,
          current_until: null,
          revoked_at: null,
        });
        expect(await repos.clients.get('tenant-rollback', 'cli-rolled-back')).toBeDefined();
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await storage.tenants.get('tenant-never')).toBeUndefined();
      expect((await storage.tenants.get('tenant-rollback'))?.settings).toEqual({ before: true });
      expect(await storage.clients.get('tenant-rollback', 'cli-rolled-back')).toBeUndefined();
      expect(await storage.renderingConfigs.window('tenant-rollback', { offset: 0, limit: 10 })).toEqual({
        items: [{ prompt: 'login', screen: 'login', data: { v: 1 } }],
        total: 1,
      });
      expect(await storage.signingKeys.list('tenant-rollback')).toEqual([]);
    });

    it('roll back a database error part-way through, and the storage stays usable', async () => {
      const outcome = storage.transaction(async (repos) => {
        await repos.tenants.insertIfMissing('tenant-partial', {}, tick());
        await repos.tenants.insertIfMissing('tenant-partial-2', {}, tick());
        // Duplicate primary key: the database itself fails the statement.
        await untyped(repos.connections).insert('tenant-partial', { id: 'c', columns: { name: 'a', strategy: 'auth0' }, data: { name: 'a' }, createdAt: tick() });
        await untyped(repos.connections).insert('tenant-partial', { id: 'c', columns: { name: 'b', strategy: 'auth0' }, data: { name: 'b' }, createdAt: tick() });
      });
      const error = await outcome.catch((caught: unknown) => caught);
      expect(storage.isUniqueViolation(error)).toBe(true);
      expect(await storage.tenants.get('tenant-partial')).toBeUndefined();
      expect(await storage.tenants.get('tenant-partial-2')).toBeUndefined();
      expect(await storage.tenants.insertIfMissing('tenant-partial', {}, tick())).toBe(true);
    });
  });

  describe('unique violations', () => {
    it('recognise primary-key and unique-constraint violations of this dialect, and nothing else', async () => {
      await storage.tenants.insertIfMissing('tenant-unique', {}, tick());
      const primaryKey = await storage.dialect.db
        .insertInto('tenants')
        .values({ id: 'tenant-unique', settings: '{}', created_at: tick() })
        .execute()
        .catch((caught: unknown) => caught);
      await storage.renderingConfigs.put('tenant-unique', 'login', 'login', {});
      const uniqueConstraint = await storage.dialect.db
        .insertInto('rendering_configs')
        .values({ tenant_id: 'tenant-unique', prompt: 'login', screen: 'login', data: '{}' })
        .execute()
        .catch((caught: unknown) => caught);
      const foreignKey = await untyped(storage.clients).insert('no-such-tenant', { id: 'c', columns: { secret_hash: null }, data: { name: 'x' }, createdAt: tick() })
        .catch((caught: unknown) => caught);
      const notNull = await storage.dialect.db
        .insertInto('tenants')
        .values({ id: 'tenant-null', settings: null as unknown as string, created_at: tick() })
        .execute()
        .catch((caught: unknown) => caught);
      const syntax = await storage.dialect.db.selectFrom('no_such_table' as 'tenants').selectAll().execute().catch((caught: unknown) => caught);

      for (const error of [primaryKey, uniqueConstraint]) {
        expect(error).toBeInstanceOf(Error);
        expect(storage.isUniqueViolation(error)).toBe(true);
      }
      for (const error of [foreignKey, notNull, syntax]) {
        expect(error).toBeInstanceOf(Error);
        expect(storage.isUniqueViolation(error)).toBe(false);
      }
      for (const value of [new Error('duplicate key'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }, { code: '23503' }, null, undefined, 'unique']) {
        expect(storage.isUniqueViolation(value)).toBe(false);
      }
    });
  });

  describe('exclusive sections', () => {
    const tenant = 'tenant-exclusive';
    beforeAll(async () => {
      await storage.tenants.insertIfMissing(tenant, { counter: 0 }, tick());
    });

    /** A read-modify-write that yields in the middle: without mutual exclusion, concurrent runs lose updates. */
    const increment = (on: Storage, log: string[], label: string, lockName = 'latchkey:test:counter') =>
      on.exclusive(lockName, async (repos) => {
        log.push(`${label}:start`);
        const current = (await repos.tenants.get<{ counter: number }>(tenant))?.settings.counter ?? NaN;
        await sleep(60);
        await repos.tenants.updateSettings(tenant, { counter: current + 1 });
        log.push(`${label}:end`);
        return current + 1;
      });
    const counter = async () => (await storage.tenants.get<{ counter: number }>(tenant))?.settings.counter;
    /** Each section's start is directly followed by its own end. */
    const expectSerial = (log: string[]) => {
      for (let i = 0; i < log.length; i += 2) expect(log[i]?.replace(':start', ':end')).toBe(log[i + 1]);
    };

    it('serialise concurrent callers on one storage', async () => {
      const log: string[] = [];
      const before = Number(await counter());
      const results = await Promise.all(['a', 'b', 'c'].map((label) => increment(storage, log, label)));
      expectSerial(log);
      expect([...results].sort()).toEqual([before + 1, before + 2, before + 3]);
      expect(await counter()).toBe(before + 3);
    });

    it('roll back when the work throws, and release the lock', async () => {
      const before = await counter();
      await expect(
        storage.exclusive('latchkey:test:counter', async (repos) => {
          await repos.tenants.updateSettings(tenant, { counter: -1 });
          throw new Error('abandoned');
        }),
      ).rejects.toThrow('abandoned');
      expect(await counter()).toBe(before);
      const log: string[] = [];
      await increment(storage, log, 'after');
      expect(log).toEqual(['after:start', 'after:end']);
    });

    if (dialect === 'postgres') {
      it('serialise callers on separate connections (two nodes) under the same name, not under different names', async () => {
        const second = await database.open({ migrate: false });
        try {
          const log: string[] = [];
          const before = Number(await counter());
          await Promise.all([increment(storage, log, 'a'), increment(second, log, 'b'), increment(storage, log, 'c'), increment(second, log, 'd')]);
          expectSerial(log);
          expect(log).toHaveLength(8);
          expect(await counter()).toBe(before + 4);

          // Differently named locks are independent; the same name waits for the holder.
          const order: string[] = [];
          let entered = () => {};
          const holding = new Promise<void>((resolve) => (entered = resolve));
          let release = () => {};
          const gate = new Promise<void>((resolve) => (release = resolve));
          const held = storage.exclusive('latchkey:test:one', async () => {
            entered();
            await gate;
            order.push('one:released');
          });
          let sameName: Promise<void> | undefined;
          try {
            await holding;
            await second.exclusive('latchkey:test:two', async () => {
              order.push('two');
            });
            sameName = second.exclusive('latchkey:test:one', async () => {
              order.push('one:again');
            });
            await sleep(150);
            expect(order).toEqual(['two']);
          } finally {
            release();
          }
          await Promise.all([held, sameName]);
          expect(order).toEqual(['two', 'one:released', 'one:again']);
        } finally {
          await second.close();
        }
      });

      it('concurrent first-time migrations of one schema both succeed', async () => {
        const schema = `sc_${randomId(12).toLowerCase()}`;
        const config: DatabaseConfig = { kind: 'postgres', url: POSTGRES_URL };
        try {
          const opened = await Promise.all([openStorage(config, { schema }), openStorage(config, { schema }), openStorage(config, { schema })]);
          const fresh = createStorage(opened[0] as NonNullable<(typeof opened)[0]>);
          expect(await fresh.tenants.insertIfMissing('t', {}, tick())).toBe(true);
          await Promise.all(opened.map((dialectHandle) => dialectHandle.close()));
        } finally {
          await dropSchema(schema);
        }
      });
    }

    if (dialect === 'sqlite') {
      it('and transactions take the file’s write lock up front, so another process waits instead of invalidating them', async () => {
        if (database.config.kind !== 'sqlite') throw new Error('unreachable');
        // A second connection to the file, as another process has; no busy timeout, so it reports instead of waiting.
        const other = new BetterSqlite3(database.config.path, { timeout: 0 });
        try {
          let otherWrite: string | undefined;
          const before = Number(await counter());
          for (const run of [storage.transaction.bind(storage), (work: (repos: Repositories) => Promise<void>) => storage.exclusive('any', work)]) {
            await run(async (repos) => {
              const current = (await repos.tenants.get<{ counter: number }>(tenant))?.settings.counter ?? NaN;
              try {
                other.prepare('update tenants set settings = ? where id = ?').run(JSON.stringify({ counter: 1000 }), tenant);
                otherWrite = 'succeeded';
              } catch (error) {
                otherWrite = (error as { code?: string }).code;
              }
              // A deferred transaction would fail here with SQLITE_BUSY_SNAPSHOT had the other write gone through.
              await repos.tenants.updateSettings(tenant, { counter: current + 1 });
            });
            expect(otherWrite).toBe('SQLITE_BUSY');
          }
          expect(await counter()).toBe(before + 2);
        } finally {
          other.close();
        }
      });

      it('concurrent migrations of one file by several processes all succeed', async () => {
        const { spawn } = await import('node:child_process');
        const dir = mkdtempSync(join(tmpdir(), 'latchkey-migrate-race-'));
        const cli = fileURLToPath(new URL('../bin/latchkey.js', import.meta.url));
        try {
          const run = () =>
            new Promise<{ code: number | null; output: string }>((resolve) => {
              const child = spawn(process.execPath, [cli, 'migrate'], {
                env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'race.db')}`, LATCHKEY_DATA_DIR: dir },
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              let output = '';
              child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
              child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
              child.once('exit', (code) => resolve({ code, output }));
            });
          const results = await Promise.all([run(), run(), run()]);
          for (const result of results) expect(result).toEqual({ code: 0, output: 'migrations applied\n' });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
});
