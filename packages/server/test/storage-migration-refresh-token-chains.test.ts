import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleId } from '../src/crypto/handles.js';
import { OAuthError } from '../src/oauth/errors.js';
import { refreshTokenStore, type RefreshTokenData } from '../src/oauth/refresh-tokens.js';
import { migrateTo, migrateToLatest } from '../src/storage/migrations/index.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';

const DAY = 86_400_000;

/**
 * 0004-refresh-token-chains (both dialects): rows of the two layouts stored before it are seeded at 0003, as they
 * were written then. A chain without an idle expiry in its data is carried (its token is redeemed as before); a row
 * of the one-row-per-token layout cannot be, and is gone with its token.
 */
describe.each(DIALECTS)('migration 0004-refresh-token-chains (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  const tenant = 't';
  const start = Date.UTC(2030, 0, 1);
  let clock = start;
  const handleKey = randomBytes(32);
  const grant: RefreshTokenData = { client_id: 'client-1', user_id: 'user-1', scopes: ['openid', 'offline_access'], audience: null, auth_time: start / 1000, sid: null };
  const iso = (ms: number) => new Date(ms).toISOString();
  const store = () => refreshTokenStore({ storage, tenantId: tenant, handleKey, now: () => new Date(clock) });
  const row = (id: string) => storage.artifacts.get<{ idle_expires_at?: string }>(tenant, 'refresh_token', id);
  const refused = async (token: string) => {
    const error = await store().redeem('client-1', token).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('invalid_grant');
  };

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open({ migrate: false });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  it('gives earlier-layout chains their idle expiry, deletes one-row-per-token rows, and leaves everything else as it was', async () => {
    const { db, name } = storage.dialect;
    await migrateTo(db, name, '0003-user-links');
    await db.insertInto('tenants').values({ id: tenant, settings: '{}', created_at: iso(start) }).execute();
    const insert = (kind: string, id: string, family: string, data: unknown, expiresAt: number, consumedAt: string | null = null) =>
      db
        .insertInto('artifacts')
        .values({ tenant_id: tenant, kind, id, family, subject: 'user-1', data: JSON.stringify(data), created_at: iso(start), expires_at: iso(expiresAt), consumed_at: consumedAt } as never)
        .execute();
    /** A chain as stored before idle expiry moved into the data: the expiry column was the idle expiry. */
    const earlierChain = async (family: string, expiresAt: number) => {
      const chainId = randomBytes(16).toString('base64url');
      const secret = randomBytes(32).toString('base64url');
      await insert('refresh_token', chainId, family, { ...grant, secret: handleId(handleKey, secret) }, expiresAt);
      return { chainId, token: `${chainId}.${secret}` };
    };
    /** A token of the one-row-per-token format: a bare handle, its row stored under its hash. */
    const perToken = async (family: string, consumedAt: string | null = null) => {
      const token = randomBytes(32).toString('base64url');
      await insert('refresh_token', handleId(handleKey, token), family, grant, start + 30 * DAY, consumedAt);
      return { id: handleId(handleKey, token), token };
    };

    const earlier = await earlierChain('family-earlier', start + 10 * DAY);
    const earlierLate = await earlierChain('family-earlier-late', start + DAY);
    const live = await perToken('family-per-token');
    const spent = await perToken('family-per-token-spent', iso(start + DAY));
    const current = { chainId: randomBytes(16).toString('base64url'), secret: randomBytes(32).toString('base64url') };
    const currentData = { ...grant, secret: handleId(handleKey, current.secret), idle_expires_at: iso(start + 30 * DAY) };
    await insert('refresh_token', current.chainId, 'family-current', currentData, start + 60 * DAY);
    await insert('session', 'session-1', 'sid-1', { user_id: 'user-1' }, start + DAY);
    const textOf = async (kind: string, id: string) =>
      (await db.selectFrom('artifacts').select('data').where('tenant_id', '=', tenant).where('kind', '=', kind).where('id', '=', id).executeTakeFirst())?.data as string | undefined;
    const currentText = await textOf('refresh_token', current.chainId);
    const sessionText = await textOf('session', 'session-1');

    await migrateToLatest(db, name);

    // Earlier-layout chains: the expiry column, which was the idle expiry, is now the idle expiry in the data.
    expect((await row(earlier.chainId))?.data.idle_expires_at).toBe(iso(start + 10 * DAY));
    expect((await row(earlierLate.chainId))?.data.idle_expires_at).toBe(iso(start + DAY));
    // One-row-per-token rows are gone, live or spent.
    expect(await row(live.id)).toBeUndefined();
    expect(await row(spent.id)).toBeUndefined();
    // Current chains and other kinds are untouched, to the byte (rotations compare the stored text).
    expect(await textOf('refresh_token', current.chainId)).toBe(currentText);
    expect(await textOf('session', 'session-1')).toBe(sessionText);

    // The carried chain is redeemed as before the migration and gets a horizon on its first rotation.
    clock = start + 5 * DAY;
    const next = await (await store().redeem('client-1', earlier.token)).rotate();
    expect(next?.startsWith(`${earlier.chainId}.`)).toBe(true);
    const rotated = await row(earlier.chainId);
    expect(rotated?.data.idle_expires_at).toBe(iso(clock + 30 * DAY));
    expect(rotated?.expiresAt).toBe(iso(clock + 60 * DAY));
    // One past its idle expiry is refused, as it was.
    await refused(earlierLate.token);
    // The current chain still rotates.
    expect((await (await store().redeem('client-1', `${current.chainId}.${current.secret}`)).rotate())?.startsWith(`${current.chainId}.`)).toBe(true);

    // The one-row-per-token tokens are unknown: refused, and a spent one presented again no longer revokes its grant.
    await refused(live.token);
    await refused(spent.token);
    expect(await store().find(live.token)).toBeUndefined();
    expect(await storage.grantRevocations.isRevoked(tenant, 'family-per-token-spent', iso(clock))).toBe(false);
  });
});
