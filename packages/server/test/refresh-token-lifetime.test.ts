import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError } from '../src/oauth/errors.js';
import { REFRESH_TOKEN_IDLE_SECONDS, refreshTokenStore, type RefreshTokenData } from '../src/oauth/refresh-tokens.js';
import { chainPolicyOf, DEFAULT_REFRESH_TOKEN, type RefreshTokenSettings } from '../src/services/refresh-token-settings.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/services.js';

const DAY = 86_400_000;

/**
 * Refresh-token chains on a clock the test moves: a chain dies after the idle lifetime without use, and lives on
 * as long as it is used in time; the row's expiry column only moves when a rotation would pass it. The token
 * endpoint tests (token-user-grants.test.ts) cover the same store over HTTP on the real clock; chains stored before
 * idle expiry moved into the data are carried by a migration (storage-migration-refresh-token-chains.test.ts).
 */
describe.each(DIALECTS)('refresh-token chain lifetimes (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  const tenant = 'tenant-refresh-lifetime';
  const start = Date.UTC(2030, 0, 1);
  let clock = start;
  const handleKey = randomBytes(32);
  const grant: RefreshTokenData = { client_id: 'client-1', user_id: 'user-1', scopes: ['openid', 'offline_access'], audience: null, auth_time: start / 1000, sid: null };

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    await storage.tenants.insertIfMissing(tenant, {}, new Date(start).toISOString());
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  const store = () => refreshTokenStore({ storage, tenantId: tenant, handleKey, now: () => new Date(clock) });
  const row = (token: string) => storage.artifacts.get<{ idle_expires_at?: string }>(tenant, 'refresh_token', token.split('.')[0] ?? '');
  const rotate = async (token: string) => {
    const next = await (await store().redeem('client-1', token)).rotate();
    if (next === undefined) throw new Error('a rotating chain answers a new token');
    return next;
  };
  const refused = async (token: string) => {
    const error = await store().redeem('client-1', token).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('invalid_grant');
  };

  it('lives on while it is used within the idle lifetime, moving its row expiry only when a rotation would pass it', async () => {
    clock = start;
    let token = await store().create(grant, 'family-used');
    const created = await row(token);
    expect(created?.data.idle_expires_at).toBe(new Date(start + 30 * DAY).toISOString());
    expect(created?.expiresAt).toBe(new Date(start + 60 * DAY).toISOString());

    clock = start + 20 * DAY;
    token = await rotate(token);
    const rotated = await row(token);
    expect(rotated?.data.idle_expires_at).toBe(new Date(clock + 30 * DAY).toISOString());
    // Day 50 is still before the horizon (day 60): only the data was written.
    expect(rotated?.expiresAt).toBe(created?.expiresAt);

    clock = start + 40 * DAY;
    token = await rotate(token);
    // Day 70 would pass the horizon: it moves to 60 days from now.
    expect((await row(token))?.expiresAt).toBe(new Date(clock + 60 * DAY).toISOString());

    // Used every 25 days, the chain outlives several idle lifetimes and horizons.
    for (let day = 65; day <= 240; day += 25) {
      clock = start + day * DAY;
      token = await rotate(token);
    }
    const late = await row(token);
    expect(late?.consumedAt).toBeNull();
    expect((late?.expiresAt ?? '') > (late?.data.idle_expires_at ?? '')).toBe(true);
  });

  it('is refused once it has been idle for the idle lifetime, without revoking anything', async () => {
    clock = start;
    const token = await store().create(grant, 'family-idle');
    clock = start + REFRESH_TOKEN_IDLE_SECONDS * 1000 - 1000;
    const next = await rotate(token);
    clock += REFRESH_TOKEN_IDLE_SECONDS * 1000;
    // The idle expiry has passed, the row's horizon has not: the data decides.
    expect(new Date((await row(next))?.expiresAt ?? '').getTime()).toBeGreaterThan(clock);
    await refused(next);
    expect((await row(next))?.consumedAt).toBeNull();
    // One second earlier it was still good.
    clock -= 1000;
    expect(typeof (await rotate(next))).toBe('string');
  });
  /** A chain started under a client's `refresh_token` settings (the defaults, with these changes). */
  const createUnder = (settings: Partial<RefreshTokenSettings>, family: string) => store().create(grant, family, chainPolicyOf({ ...DEFAULT_REFRESH_TOKEN, ...settings }));
  const familyRevoked = (family: string) => storage.grantRevocations.isRevoked(tenant, family, new Date(clock).toISOString());

  it('ends at its absolute lifetime however often it is used, and its row expires then too', async () => {
    clock = start;
    let token = await createUnder({ infinite_token_lifetime: false, token_lifetime: 10 * 86_400, idle_token_lifetime: 5 * 86_400 }, 'family-absolute');
    expect((await row(token))?.expiresAt).toBe(new Date(start + 10 * DAY).toISOString());
    for (const day of [4, 8]) {
      clock = start + day * DAY;
      token = await rotate(token);
    }
    clock = start + 10 * DAY - 1000;
    token = await rotate(token);
    clock = start + 10 * DAY;
    await refused(token);
    expect(await familyRevoked('family-absolute')).toBe(false);
  });

  it('non-rotating: the one token is used again and again (no successor, no reuse), its idle lifetime starting again', async () => {
    clock = start;
    const token = await createUnder({ rotation_type: 'non-rotating', idle_token_lifetime: 5 * 86_400 }, 'family-fixed');
    for (const day of [4, 8, 12]) {
      clock = start + day * DAY;
      expect(await (await store().redeem('client-1', token)).rotate()).toBeUndefined();
    }
    expect((await row(token))?.data.idle_expires_at).toBe(new Date(start + 17 * DAY).toISOString());
    clock = start + 17 * DAY;
    await refused(token);
    expect(await familyRevoked('family-fixed')).toBe(false);
  });

  it('non-expiring: no idle or absolute lifetime, and a row the sweeper never reaches', async () => {
    clock = start;
    const token = await createUnder({ rotation_type: 'non-rotating', expiration_type: 'non-expiring' }, 'family-forever');
    expect((await row(token))?.data.idle_expires_at).toBeNull();
    clock = start + 3000 * DAY;
    expect(await (await store().redeem('client-1', token)).rotate()).toBeUndefined();
    expect((await row(token))?.expiresAt).toBe('9999-12-31T23:59:59.999Z');
  });

  it('leeway: the token rotated away last is accepted for that long, after which presenting it is reuse', async () => {
    clock = start;
    const first = await createUnder({ leeway: 30 }, 'family-leeway');
    const second = await rotate(first);
    clock += 20_000;
    // A client that lost the answer retries with the token it had: accepted, a new successor.
    const retried = await rotate(first);
    expect(retried).not.toBe(second);
    clock += 20_000;
    // 40 s after that rotation: reuse, the grant is revoked.
    await refused(first);
    expect(await familyRevoked('family-leeway')).toBe(true);
    await refused(retried);
  });

  it('without leeway, the token rotated away is reuse at once', async () => {
    clock = start;
    const first = await createUnder({}, 'family-no-leeway');
    await rotate(first);
    await refused(first);
    expect(await familyRevoked('family-no-leeway')).toBe(true);
  });
});
