import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactSweeper, SWEEP_RETENTION_SECONDS } from '../src/services/artifact-sweeper.js';
import type { LogEvent } from '../src/services/events/event.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { startTestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

const silent = { info: () => undefined, warn: () => undefined };

/**
 * Expired artifacts are deleted in the background a day after they expired, and tenant log events and Actions
 * executions once their retention is over, in bounded batches, on both dialects.
 */
describe.each(DIALECTS)('sweeping expired artifacts (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  const now = new Date(Date.UTC(2030, 5, 1));
  const secondsFromNow = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
  const tenants = ['tenant-sweep-a', 'tenant-sweep-b'];

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
    for (const tenant of tenants) await storage.tenants.insertIfMissing(tenant, {}, secondsFromNow(-10 * 86_400));
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });

  const put = (tenant: string, id: string, expiresInSeconds: number) =>
    storage.artifacts.insert(tenant, 'session', { id, family: `f-${id}`, subject: 'user-1', data: { id }, createdAt: secondsFromNow(-5 * 86_400), expiresAt: secondsFromNow(expiresInSeconds) });
  const present = async (tenant: string, id: string) => (await storage.artifacts.get(tenant, 'session', id)) !== undefined;

  it('deletes what expired more than a day ago, in every tenant, batch by batch, and keeps the rest', async () => {
    const stale = Array.from({ length: 7 }, (_, n) => ({ tenant: tenants[n % 2] as string, id: `stale-${n}`, expiresIn: -SWEEP_RETENTION_SECONDS - 60 - n }));
    for (const { tenant, id, expiresIn } of stale) await put(tenant, id, expiresIn);
    await put(tenants[0] as string, 'recently-expired', -3600);
    await put(tenants[0] as string, 'live', 3600);
    await storage.artifacts.insert(tenants[1] as string, 'authorization_code', { id: 'spent', data: {}, createdAt: secondsFromNow(-60), expiresAt: secondsFromNow(240) });
    await storage.artifacts.consume(tenants[1] as string, 'authorization_code', 'spent', secondsFromNow(-30));

    // One statement deletes at most its limit.
    const cutoff = secondsFromNow(-SWEEP_RETENTION_SECONDS);
    expect(await storage.artifacts.sweep(cutoff, 3)).toBe(3);

    const sweeper = artifactSweeper({ storage, intervalSeconds: 0, now: () => now, log: silent, batch: 3 });
    expect(await sweeper.sweepNow()).toBe(4);
    expect(await sweeper.sweepNow()).toBe(0);
    for (const { tenant, id } of stale) expect(await present(tenant, id)).toBe(false);
    expect(await present(tenants[0] as string, 'recently-expired')).toBe(true);
    expect(await present(tenants[0] as string, 'live')).toBe(true);
    // Spent but not expired: kept, so that replaying the code still finds it spent.
    expect((await storage.artifacts.get(tenants[1] as string, 'authorization_code', 'spent'))?.consumedAt).toBe(secondsFromNow(-30));
  });

  it('deletes tenant log events once their retention is over (no extra day), in every tenant, batch by batch', async () => {
    const store = (tenant: string, description: string, expiresInSeconds: number) =>
      storage.transaction((repos) => repos.logEvents.insertBatch(tenant, [{ event: { date: secondsFromNow(-31 * 86_400), type: 's', description }, expiresAt: secondsFromNow(expiresInSeconds) }]));
    const expired = Array.from({ length: 5 }, (_, n) => ({ tenant: tenants[n % 2] as string, description: `expired-${n}`, expiresIn: -60 * (n + 1) }));
    for (const { tenant, description, expiresIn } of expired) await store(tenant, description, expiresIn);
    await store(tenants[0] as string, 'expires-now', 0);
    await store(tenants[1] as string, 'still-kept', 60);
    const descriptions = async (tenant: string) => (await storage.logEvents.list<LogEvent>(tenant, { limit: 100, sort: 'asc' })).events.map((event) => event.description);

    const sweeper = artifactSweeper({ storage, intervalSeconds: 0, now: () => now, log: silent, batch: 2 });
    // The first test swept every artifact that was due: what goes now are the six log events.
    expect(await sweeper.sweepNow()).toBe(6);
    expect(await sweeper.sweepNow()).toBe(0);
    expect(await descriptions(tenants[0] as string)).toEqual([]);
    expect(await descriptions(tenants[1] as string)).toEqual(['still-kept']);
  });

  it('deletes Actions executions once their retention is over, in every tenant, batch by batch', async () => {
    const record = (tenant: string, id: string, expiresInSeconds: number) =>
      storage.actionExecutions.insert(tenant, { id, triggerId: 'post-login', status: 'final', results: [], createdAt: secondsFromNow(-10 * 86_400), updatedAt: secondsFromNow(-10 * 86_400), expiresAt: secondsFromNow(expiresInSeconds) });
    for (const [n, tenant] of tenants.entries()) await record(tenant, `expired-${n}`, -60);
    await record(tenants[0] as string, 'expires-now', 0);
    await record(tenants[1] as string, 'kept', 60);
    const sweeper = artifactSweeper({ storage, intervalSeconds: 0, now: () => now, log: silent, batch: 2 });
    expect(await sweeper.sweepNow()).toBe(3);
    expect(await sweeper.sweepNow()).toBe(0);
    expect(await storage.actionExecutions.get(tenants[1] as string, 'kept', secondsFromNow(-1))).toMatchObject({ id: 'kept' });
    expect(await storage.actionExecutions.get(tenants[0] as string, 'expires-now', secondsFromNow(-1))).toBeUndefined();
  });

  it('sweeps on its timer until stopped', async () => {
    await put(tenants[0] as string, 'timer-1', -2 * SWEEP_RETENTION_SECONDS);
    const sweeper = artifactSweeper({ storage, intervalSeconds: 0.05, now: () => now, log: silent });
    sweeper.start();
    await waitFor(async () => !(await present(tenants[0] as string, 'timer-1')));
    await sweeper.stop();
    await put(tenants[0] as string, 'timer-2', -2 * SWEEP_RETENTION_SECONDS);
    await sleep(300);
    expect(await present(tenants[0] as string, 'timer-2')).toBe(true);
  });

  it('a server sweeps every LATCHKEY_SWEEP_SECONDS, and not at all with 0', async () => {
    const stale = new Date(Date.now() - 2 * SWEEP_RETENTION_SECONDS * 1000).toISOString();
    const row = { id: 'server-stale', data: {}, createdAt: stale, expiresAt: stale };
    const off = await startTestServer({ dialect, env: { LATCHKEY_SWEEP_SECONDS: '0' } });
    try {
      await off.registry.storage.artifacts.insert(off.registry.tenantId, 'otp', row);
      await sleep(1500);
      expect(await off.registry.storage.artifacts.get(off.registry.tenantId, 'otp', row.id)).toBeDefined();
    } finally {
      await off.close();
    }
    const on = await startTestServer({ dialect, listen: true, env: { LATCHKEY_SWEEP_SECONDS: '1' } });
    try {
      const { storage: stored, tenantId } = on.registry;
      await stored.artifacts.insert(tenantId, 'otp', row);
      // A tenant log event past its retention goes in the same sweeps.
      await stored.transaction((repos) => repos.logEvents.insertBatch(tenantId, [{ event: { date: stale, type: 's', description: 'past retention' }, expiresAt: stale }]));
      await waitFor(async () => (await stored.artifacts.get(tenantId, 'otp', row.id)) === undefined);
      await waitFor(async () => (await stored.logEvents.list<LogEvent>(tenantId, { limit: 100 })).events.every((event) => event.description !== 'past retention'));
      // Still serving meanwhile.
      expect((await fetch(`${on.url}/.well-known/openid-configuration`)).status).toBe(200);
    } finally {
      await on.close();
    }
    // Two servers start and stop here: under a loaded suite that alone can take most of the default 30 s.
  }, 60_000);
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}
