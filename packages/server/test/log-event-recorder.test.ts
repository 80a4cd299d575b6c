import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '../src/services/events/event.js';
import type { EventNames } from '../src/services/events/names.js';
import { eventRecorder, type EventRecorderDeps } from '../src/services/events/recorder.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase, type TestDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin } from './support/login-fixture.js';
import { DIALECTS, POSTGRES_URL } from './support/services.js';

const NAMES: EventNames = {
  clientName: async (clientId) => (clientId === 'app' ? 'The App' : undefined),
  connection: async (name) => (name === 'db' ? { id: 'con_db', strategy: 'auth0' } : undefined),
  userName: async (userId) => (userId === 'auth0|1' ? 'one@example.com' : undefined),
};

/**
 * The tenant log's writer against a real database: events are buffered and stored in batches in the order they were
 * recorded; a database that refuses writes (a trigger, as an outage test forces it) costs nothing but time until the
 * buffer is full, whose overflow is counted; an event the database keeps refusing is dropped alone.
 */
describe.each(DIALECTS)('log event recorder (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  let tenant = '';
  let tenants = 0;
  const silent = pino({ level: 'silent' });

  /** Makes the database refuse inserts of log events (of one type, or all), as a failing disk or a bad row would. */
  async function refuseInserts(type?: string): Promise<() => Promise<void>> {
    const when = type ? `new.type = '${type}'` : '1 = 1';
    if (database.config.kind === 'sqlite') {
      const db = new BetterSqlite3(database.config.path);
      db.exec(`create trigger refuse_events before insert on log_events when ${when} begin select raise(abort, 'refused by test'); end`);
      return async () => {
        db.exec('drop trigger refuse_events');
        db.close();
      };
    }
    const schema = (await storage.dialect.db.selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('schema')).executeTakeFirstOrThrow()).schema;
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`set search_path to ${schema}`);
    await client.query(`create or replace function refuse_events() returns trigger language plpgsql as $$ begin raise exception 'refused by test'; end $$`);
    await client.query(`create trigger refuse_events before insert on log_events for each row when (${when.replace('new.', 'NEW.')}) execute function refuse_events()`);
    return async () => {
      await client.query('drop trigger refuse_events on log_events');
      await client.end();
    };
  }

  const recorder = (overrides: Partial<EventRecorderDeps> = {}) =>
    eventRecorder({
      storage,
      tenantId: tenant,
      hostname: 'login.example.com',
      retentionDays: 30,
      names: NAMES,
      now: () => new Date(),
      log: silent,
      intervalMs: 10,
      maxBackoffMs: 40,
      ...overrides,
    });
  const stored = async () => (await storage.logEvents.list<Omit<LogEvent, 'log_id'>>(tenant, { limit: 10_000, sort: 'asc' })).events;

  beforeAll(async () => {
    database = testDatabase(dialect);
    storage = await database.open();
  });
  afterAll(async () => {
    await storage?.close();
    await database?.cleanup();
  });
  beforeEach(async () => {
    tenants += 1;
    tenant = `recorder-${tenants}`;
    await storage.tenants.insertIfMissing(tenant, {}, new Date().toISOString());
  });

  it('records without waiting, then stores in batches in recorded order, with names, hostname, date and expiry', async () => {
    const events = recorder({ batchSize: 3 });
    const before = Date.now();
    events.record({ type: 's', client_id: 'app', connection: 'db', user_id: 'auth0|1', ip: '10.0.0.1', user_agent: 'UA/1' });
    for (let i = 0; i < 6; i += 1) events.record({ type: 'fp', description: `attempt ${i}`, user_name: 'x@example.com' });
    expect(events.stats()).toMatchObject({ buffered: 7, written: 0, dropped: 0 });
    await events.flush();
    expect(events.stats()).toEqual({ buffered: 0, written: 7, dropped: 0, lastError: undefined });
    const [first, ...rest] = await stored();
    expect(first).toMatchObject({
      type: 's',
      description: 'Successful login',
      client_id: 'app',
      client_name: 'The App',
      connection: 'db',
      connection_id: 'con_db',
      strategy: 'auth0',
      strategy_type: 'database',
      user_id: 'auth0|1',
      user_name: 'one@example.com',
      ip: '10.0.0.1',
      user_agent: 'UA/1',
      hostname: 'login.example.com',
    });
    expect(Date.parse(first?.date ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(rest.map((event) => event.description)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `attempt ${i}`));
    const ids = (await stored()).map((event) => (event as unknown as { log_id: string }).log_id);
    expect([...ids].sort()).toEqual(ids);
    // Swept after the retention: 30 days after the event's date.
    expect(await storage.logEvents.deleteExpired(new Date(Date.now() + 29 * 86_400_000).toISOString(), 100)).toBe(0);
    expect(await storage.logEvents.deleteExpired(new Date(Date.now() + 31 * 86_400_000).toISOString(), 100)).toBe(7);
    await events.close();
  });

  it('stores by itself after the interval, without a flush', async () => {
    const events = recorder();
    events.record({ type: 'slo', user_id: 'auth0|1' });
    await vi.waitFor(async () => expect(await stored()).toHaveLength(1));
    expect(events.stats().written).toBe(1);
    await events.close();
  });

  it('keeps events while the database refuses writes and stores them in order once it accepts them again', async () => {
    const events = recorder({ batchSize: 2, maxBackoffMs: 1000 });
    const allow = await refuseInserts();
    try {
      for (let i = 0; i < 5; i += 1) events.record({ type: 'f', description: `during ${i}` });
      await vi.waitFor(() => expect(events.stats().lastError).toMatch(/refused by test/));
      expect(events.stats()).toMatchObject({ buffered: 5, written: 0, dropped: 0 });
      events.record({ type: 'f', description: 'during 5' });
    } finally {
      await allow();
    }
    events.record({ type: 's', description: 'after' });
    await events.flush();
    expect((await stored()).map((event) => event.description)).toEqual(['during 0', 'during 1', 'during 2', 'during 3', 'during 4', 'during 5', 'after']);
    expect(events.stats()).toMatchObject({ buffered: 0, written: 7, dropped: 0 });
    await events.close();
  });

  it('drops nothing during an outage, however many writes fail, and stores everything in order after it', async () => {
    // The real storage behind a connection that is refused a few times (what a restarting database answers).
    let outage = 6;
    const flaky: Pick<Storage, 'transaction'> = {
      transaction: (work) => (outage-- > 0 ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })) : storage.transaction(work)),
    };
    const events = recorder({ storage: flaky, batchSize: 2, maxBackoffMs: 20 });
    for (let i = 0; i < 5; i += 1) events.record({ type: 's', description: `#${i}` });
    await events.flush();
    expect(outage).toBeLessThan(0);
    expect((await stored()).map((event) => event.description)).toEqual(['#0', '#1', '#2', '#3', '#4']);
    expect(events.stats()).toMatchObject({ buffered: 0, written: 5, dropped: 0, lastError: 'connect ECONNREFUSED 127.0.0.1:5432' });
    await events.close();
  });

  it('refuses the newest events when the buffer is full and counts them; what was buffered is stored in order', async () => {
    const events = recorder({ capacity: 4 });
    const allow = await refuseInserts();
    try {
      for (let i = 0; i < 7; i += 1) events.record({ type: 'f', description: `#${i}` });
      expect(events.stats()).toMatchObject({ buffered: 4, dropped: 3 });
    } finally {
      await allow();
    }
    await events.flush();
    expect((await stored()).map((event) => event.description)).toEqual(['#0', '#1', '#2', '#3']);
    expect(events.stats()).toMatchObject({ buffered: 0, written: 4, dropped: 3 });
    await events.close();
  });

  it('drops only the event the database keeps refusing, and stores the others of its batch in order', async () => {
    const events = recorder();
    const allow = await refuseInserts('fcp');
    try {
      events.record({ type: 's', description: 'before' });
      events.record({ type: 'fcp', description: 'refused' });
      events.record({ type: 'scp', description: 'after' });
      await events.flush();
    } finally {
      await allow();
    }
    expect((await stored()).map((event) => event.description)).toEqual(['before', 'after']);
    expect(events.stats()).toMatchObject({ buffered: 0, written: 2, dropped: 1 });
    await events.close();
  });

  it('stores no secret, no NUL and no unbounded text, whatever a producer passes', async () => {
    const events = recorder();
    events.record({
      type: 'sapi',
      user_agent: `agent\u0000${'x'.repeat(5000)}`,
      details: { request: { body: { password: 'hunter2', client_secret: 'sek', nested: [{ refresh_token: 'rt', Code: 'abc', statusCode: 200 }] } } },
      ...({ password: 'not a field' } as object),
    });
    await events.flush();
    const [event] = await stored();
    const text = JSON.stringify(event);
    for (const secret of ['hunter2', 'sek', '"rt"', 'abc', 'not a field', '\\u0000']) expect(text).not.toContain(secret);
    expect(event?.user_agent).toHaveLength(512);
    expect(event?.details).toEqual({ request: { body: { password: '[redacted]', client_secret: '[redacted]', nested: [{ refresh_token: '[redacted]', Code: '[redacted]', statusCode: 200 }] } } });
    await events.close();
  });

  it('records one event per key and window with recordOncePer', async () => {
    const events = recorder();
    for (let i = 0; i < 5; i += 1) events.recordOncePer('flood', 60_000, { type: 'api_limit', description: `#${i}` });
    events.recordOncePer('other', 60_000, { type: 'api_limit', description: 'other' });
    await events.flush();
    expect((await stored()).map((event) => event.description)).toEqual(['#0', 'other']);
    await events.close();
  });

  it('writes what is buffered on close, then counts what is recorded after it as dropped', async () => {
    const events = recorder({ intervalMs: 60_000 });
    events.record({ type: 'ss', description: 'buffered' });
    await events.close();
    expect((await stored()).map((event) => event.description)).toEqual(['buffered']);
    events.record({ type: 's', description: 'late' });
    expect(events.stats()).toMatchObject({ written: 1, dropped: 1, buffered: 0 });
  });

  it('gives up on close after its timeout when the database refuses, and says how many are lost', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    // A long backoff: the refused write is not tried again before the close gives up.
    const events = recorder({ log, maxBackoffMs: 5000 });
    const allow = await refuseInserts();
    try {
      events.record({ type: 's', description: 'lost' });
      await events.close(150);
    } finally {
      await allow();
    }
    expect(await stored()).toEqual([]);
    expect(lines.join('\n')).toMatch(/"lost":1/);
  });
});

/**
 * LATCHKEY_TENANT_LOG: on (the default) a login is recorded and stored; off the registry's recorder keeps nothing,
 * not the login nor the Management calls that set it up, and its figures stay at zero.
 */
describe('the LATCHKEY_TENANT_LOG setting', () => {
  /** Starts a server with the setting (default when undefined), logs a user in with the password-realm grant, and answers what the log then holds. */
  async function afterOneLogin(setting: 'on' | 'off' | undefined) {
    const server: TestServer = await startTestServer({ dialect: 'sqlite', ...(setting ? { env: { LATCHKEY_TENANT_LOG: setting } } : {}) });
    try {
      const fx = await provisionLogin(server);
      const answer = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
          client_id: fx.web.clientId,
          client_secret: fx.web.clientSecret,
          username: fx.user.email,
          password: fx.user.password,
          realm: fx.connection,
        },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      await server.registry.events.flush();
      const { events } = await server.registry.storage.logEvents.list<LogEvent>(server.registry.tenantId, { limit: 1000, sort: 'asc' });
      return { types: events.map((event) => event.type), stats: server.registry.events.stats() };
    } finally {
      await server.close();
    }
  }

  it('records the login by default and with on', async () => {
    for (const setting of [undefined, 'on'] as const) {
      const { types, stats } = await afterOneLogin(setting);
      expect(types, String(setting)).toContain('sepft');
      expect(stats.written, String(setting)).toBe(types.length);
    }
  });

  it('stores no event with off, and its figures stay at zero', async () => {
    const { types, stats } = await afterOneLogin('off');
    expect(types).toEqual([]);
    expect(stats).toEqual({ buffered: 0, dropped: 0, written: 0, lastError: undefined });
  });
});
