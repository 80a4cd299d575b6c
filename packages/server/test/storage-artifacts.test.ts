import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';

/** The artifacts repository's contract (sessions, transactions, codes, refresh tokens), on both dialects. */
describe.each(DIALECTS)('artifacts repository (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  let other: Storage;
  const tenant = 'tenant-artifacts';
  const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)).toISOString();

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    other = await database.open({ migrate: false });
    await storage.tenants.insertIfMissing(tenant, {}, at(0));
    await storage.tenants.insertIfMissing('tenant-other', {}, at(0));
  });
  afterAll(async () => {
    await other?.close();
    await storage?.close();
    await database?.cleanup();
  });

  const code = (id: string, family = 'grant-1') => ({ id, family, subject: 'user-1', data: { scope: 'openid', n: [1, 2] }, createdAt: at(0), expiresAt: at(60) });

  it('inserts once per id and kind, and reads back data, family and subject', async () => {
    expect(await storage.artifacts.insert(tenant, 'authorization_code', code('c1'))).toBe(true);
    expect(await storage.artifacts.insert(tenant, 'authorization_code', code('c1'))).toBe(false);
    expect(await storage.artifacts.insert(tenant, 'refresh_token', code('c1'))).toBe(true);
    const read = await storage.artifacts.get<{ scope: string }>(tenant, 'authorization_code', 'c1');
    expect(read).toMatchObject({ id: 'c1', family: 'grant-1', subject: 'user-1', data: { scope: 'openid', n: [1, 2] }, expiresAt: at(60), consumedAt: null });
    expect(await storage.artifacts.get('tenant-other', 'authorization_code', 'c1')).toBeUndefined();
  });

  it('consumes exactly once, even with two connections racing, and never after expiry', async () => {
    await storage.artifacts.insert(tenant, 'authorization_code', code('race'));
    const results = await Promise.all([
      storage.artifacts.consume(tenant, 'authorization_code', 'race', at(10)),
      other.artifacts.consume(tenant, 'authorization_code', 'race', at(10)),
      storage.artifacts.consume(tenant, 'authorization_code', 'race', at(10)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await storage.artifacts.get(tenant, 'authorization_code', 'race'))?.consumedAt).toBe(at(10));

    await storage.artifacts.insert(tenant, 'authorization_code', code('late'));
    expect(await storage.artifacts.consume(tenant, 'authorization_code', 'late', at(60))).toBeUndefined();
    expect(await storage.artifacts.consume(tenant, 'authorization_code', 'unknown', at(1))).toBeUndefined();
  });

  it('updates only live artifacts, and can move the expiry', async () => {
    await storage.artifacts.insert(tenant, 'session', { id: 's1', family: 'sid-1', subject: 'user-1', data: { v: 1 }, createdAt: at(0), expiresAt: at(30) });
    expect(await storage.artifacts.update(tenant, 'session', 's1', { v: 2 }, at(5), at(90))).toBe(true);
    expect(await storage.artifacts.get(tenant, 'session', 's1')).toMatchObject({ data: { v: 2 }, expiresAt: at(90) });
    expect(await storage.artifacts.update(tenant, 'session', 's1', { v: 3 }, at(95))).toBe(false);
    expect(await storage.artifacts.update(tenant, 'session', 'nope', { v: 3 }, at(5))).toBe(false);
  });

  it('swaps data only from the state read before: of two racing connections exactly one wins', async () => {
    await storage.artifacts.insert(tenant, 'refresh_token', { id: 'chain', family: 'g', subject: 'user-1', data: { secret: 'a', scopes: ['x'] }, createdAt: at(0), expiresAt: at(30) });
    const read = await storage.artifacts.get<{ secret: string; scopes: string[] }>(tenant, 'refresh_token', 'chain');
    const expected = read?.data ?? { secret: '', scopes: [] };
    const results = await Promise.all([
      storage.artifacts.swap(tenant, 'refresh_token', 'chain', expected, { ...expected, secret: 'b' }, at(5), at(90)),
      other.artifacts.swap(tenant, 'refresh_token', 'chain', expected, { ...expected, secret: 'c' }, at(5), at(90)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = await storage.artifacts.get<{ secret: string }>(tenant, 'refresh_token', 'chain');
    expect(after).toMatchObject({ expiresAt: at(90), consumedAt: null });
    expect(after?.data.secret).toBe(results[0] ? 'b' : 'c');
    // Stale expectation, expired or consumed rows: nothing changes.
    expect(await storage.artifacts.swap(tenant, 'refresh_token', 'chain', expected, { ...expected, secret: 'd' }, at(6), at(90))).toBe(false);
    const current = after?.data ?? expected;
    expect(await storage.artifacts.swap(tenant, 'refresh_token', 'chain', current, { ...current, secret: 'e' }, at(95), at(190))).toBe(false);
    await storage.artifacts.consume(tenant, 'refresh_token', 'chain', at(7));
    expect(await storage.artifacts.swap(tenant, 'refresh_token', 'chain', current, { ...current, secret: 'f' }, at(8), at(90))).toBe(false);
    expect((await storage.artifacts.get<{ secret: string }>(tenant, 'refresh_token', 'chain'))?.data.secret).toBe(current.secret);
  });

  it('swaps the data alone, leaving the expiry, when no expiry is given; with the same checks', async () => {
    await storage.artifacts.insert(tenant, 'refresh_token', { id: 'chain-data', subject: 'user-1', data: { secret: 'a' }, createdAt: at(0), expiresAt: at(30) });
    const results = await Promise.all([
      storage.artifacts.swap(tenant, 'refresh_token', 'chain-data', { secret: 'a' }, { secret: 'b' }, at(5)),
      other.artifacts.swap(tenant, 'refresh_token', 'chain-data', { secret: 'a' }, { secret: 'c' }, at(5)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = await storage.artifacts.get<{ secret: string }>(tenant, 'refresh_token', 'chain-data');
    expect(after).toMatchObject({ expiresAt: at(30), consumedAt: null, data: { secret: results[0] ? 'b' : 'c' } });
    const current = after?.data ?? { secret: '' };
    expect(await storage.artifacts.swap(tenant, 'refresh_token', 'chain-data', { secret: 'a' }, { secret: 'd' }, at(6))).toBe(false);
    expect(await storage.artifacts.swap(tenant, 'refresh_token', 'chain-data', current, { secret: 'e' }, at(30))).toBe(false);
    expect((await storage.artifacts.get<{ secret: string }>(tenant, 'refresh_token', 'chain-data'))?.data).toEqual(current);
  });

  it('lists the live artifacts of a family or subject, and revokes a whole family across kinds', async () => {
    await storage.artifacts.insert(tenant, 'authorization_code', code('f-code', 'family-x'));
    await storage.artifacts.insert(tenant, 'refresh_token', code('f-rt1', 'family-x'));
    await storage.artifacts.insert(tenant, 'refresh_token', code('f-rt2', 'family-x'));
    await storage.artifacts.insert(tenant, 'refresh_token', code('f-keep', 'family-y'));
    expect((await storage.artifacts.listLive(tenant, 'refresh_token', { family: 'family-x' }, at(1))).map((a) => a.id).sort()).toEqual(['f-rt1', 'f-rt2']);
    expect(await storage.artifacts.revokeFamily(tenant, 'family-x', at(2))).toBe(3);
    expect(await storage.artifacts.listLive(tenant, 'refresh_token', { family: 'family-x' }, at(3))).toEqual([]);
    expect(await storage.artifacts.consume(tenant, 'refresh_token', 'f-rt1', at(3))).toBeUndefined();
    expect((await storage.artifacts.listLive(tenant, 'refresh_token', { family: 'family-y' }, at(3))).map((a) => a.id)).toEqual(['f-keep']);
    expect((await storage.artifacts.listLive(tenant, 'refresh_token', { subject: 'user-1' }, at(3))).map((a) => a.id)).toContain('f-keep');
  });

  it('revokes a family in the named kinds only', async () => {
    await storage.artifacts.insert(tenant, 'session', code('k-session', 'family-k'));
    await storage.artifacts.insert(tenant, 'refresh_token', code('k-token', 'family-k'));
    expect(await storage.artifacts.revokeFamily(tenant, 'family-k', at(2), ['session'])).toBe(1);
    expect(await storage.artifacts.listLive(tenant, 'session', { family: 'family-k' }, at(3))).toEqual([]);
    expect((await storage.artifacts.listLive(tenant, 'refresh_token', { family: 'family-k' }, at(3))).map((a) => a.id)).toEqual(['k-token']);
  });

  it('pages one subject\u2019s live artifacts of a kind, oldest first, with their count', async () => {
    const row = (id: string, second: number) => ({ id, subject: 'user-paged', data: { id }, createdAt: at(second), expiresAt: at(100) });
    for (const [id, second] of [['p-3', 3], ['p-1', 1], ['p-2b', 2], ['p-2a', 2]] as const) await storage.artifacts.insert(tenant, 'session', row(id, second));
    await storage.artifacts.insert(tenant, 'session', { ...row('p-dead', 0), expiresAt: at(5) });
    await storage.artifacts.insert(tenant, 'refresh_token', row('p-other-kind', 0));
    await storage.artifacts.consume(tenant, 'session', 'p-3', at(4));
    const first = await storage.artifacts.pageLive(tenant, 'session', 'user-paged', at(10), { offset: 0, limit: 2 });
    expect(first.items.map((a) => a.id)).toEqual(['p-1', 'p-2a']);
    expect(first.total).toBe(3);
    const rest = await storage.artifacts.pageLive(tenant, 'session', 'user-paged', at(10), { offset: 2, limit: 2 });
    expect(rest).toMatchObject({ items: [expect.objectContaining({ id: 'p-2b', data: { id: 'p-2b' } })], total: 3 });
  });

  it('revokes the live artifacts of chosen kinds held by one subject', async () => {
    await storage.artifacts.insert(tenant, 'session', { id: 'sub-s', subject: 'user-9', data: {}, createdAt: at(0), expiresAt: at(100) });
    await storage.artifacts.insert(tenant, 'refresh_token', { id: 'sub-r', subject: 'user-9', data: {}, createdAt: at(0), expiresAt: at(100) });
    await storage.artifacts.insert(tenant, 'otp', { id: 'sub-o', subject: 'user-9', data: {}, createdAt: at(0), expiresAt: at(100) });
    await storage.artifacts.insert(tenant, 'session', { id: 'sub-other', subject: 'user-8', data: {}, createdAt: at(0), expiresAt: at(100) });
    expect(await storage.artifacts.revokeSubject(tenant, 'user-9', ['session', 'refresh_token'], at(5))).toBe(2);
    expect(await storage.artifacts.listLive(tenant, 'session', { subject: 'user-9' }, at(6))).toEqual([]);
    expect(await storage.artifacts.listLive(tenant, 'otp', { subject: 'user-9' }, at(6))).toHaveLength(1);
    expect(await storage.artifacts.listLive(tenant, 'session', { subject: 'user-8' }, at(6))).toHaveLength(1);
  });

  it('replaces an artifact whatever state it was in, and only within its tenant and kind', async () => {
    await storage.artifacts.insert(tenant, 'otp', code('r1'));
    await storage.artifacts.consume(tenant, 'otp', 'r1', at(1));
    await storage.artifacts.insert('tenant-other', 'otp', code('r1'));
    await storage.artifacts.insert(tenant, 'session', code('r1'));
    await storage.artifacts.replace(tenant, 'otp', { ...code('r1'), data: { scope: 'replaced', n: [] }, expiresAt: at(120) });
    const replaced = await storage.artifacts.get(tenant, 'otp', 'r1');
    expect(replaced).toMatchObject({ data: { scope: 'replaced', n: [] }, consumedAt: null, expiresAt: at(120) });
    expect((await storage.artifacts.get('tenant-other', 'otp', 'r1'))?.data).toEqual({ scope: 'openid', n: [1, 2] });
    expect((await storage.artifacts.get(tenant, 'session', 'r1'))?.data).toEqual({ scope: 'openid', n: [1, 2] });
    await storage.artifacts.replace(tenant, 'otp', code('r2'));
    expect(await storage.artifacts.get(tenant, 'otp', 'r2')).toBeDefined();
  });

  it('reads two artifacts in one call, in the order asked, each only in its own kind and tenant', async () => {
    await storage.artifacts.insert(tenant, 'user_block', { id: 'pair-a', data: { which: 'block' }, createdAt: at(0), expiresAt: at(100) });
    await storage.artifacts.insert(tenant, 'ip_failures', { id: 'pair-b', data: { which: 'ip' }, createdAt: at(0), expiresAt: at(5) });
    await storage.artifacts.insert('tenant-other', 'ip_failures', { id: 'pair-a', data: { which: 'other tenant' }, createdAt: at(0), expiresAt: at(100) });
    const [block, ip] = await storage.artifacts.getTwo<{ which: string }, { which: string }>(tenant, ['user_block', 'pair-a'], ['ip_failures', 'pair-b']);
    expect([block?.data.which, ip?.data.which, ip?.expiresAt]).toEqual(['block', 'ip', at(5)]);
    const [swapped, again] = await storage.artifacts.getTwo<{ which: string }, { which: string }>(tenant, ['ip_failures', 'pair-b'], ['user_block', 'pair-a']);
    expect([swapped?.data.which, again?.data.which]).toEqual(['ip', 'block']);
    // Kind and id go together: no cross matches, and nothing from another tenant.
    expect(await storage.artifacts.getTwo(tenant, ['user_block', 'pair-b'], ['ip_failures', 'pair-a'])).toEqual([undefined, undefined]);
    const [missing, present] = await storage.artifacts.getTwo<unknown, { which: string }>(tenant, ['user_block', 'nope'], ['ip_failures', 'pair-b']);
    expect([missing, present?.data.which]).toEqual([undefined, 'ip']);
  });

  it('removes one artifact, and sweeps only expired ones', async () => {
    await storage.artifacts.insert(tenant, 'otp', { id: 'gone', data: {}, createdAt: at(0), expiresAt: at(100) });
    expect(await storage.artifacts.remove(tenant, 'otp', 'gone')).toBe(true);
    expect(await storage.artifacts.remove(tenant, 'otp', 'gone')).toBe(false);
    await storage.artifacts.insert(tenant, 'otp', { id: 'old', data: {}, createdAt: at(0), expiresAt: at(20) });
    await storage.artifacts.insert(tenant, 'otp', { id: 'new', data: {}, createdAt: at(0), expiresAt: at(500) });
    expect(await storage.artifacts.sweep(at(400), 1000)).toBeGreaterThanOrEqual(1);
    expect(await storage.artifacts.get(tenant, 'otp', 'old')).toBeUndefined();
    expect(await storage.artifacts.get(tenant, 'otp', 'new')).toBeDefined();
  });
});
