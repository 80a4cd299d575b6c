import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSecret } from '../src/crypto/deployment-secret.js';
import { randomId } from '../src/crypto/random.js';
import { LOG_EVENT_TYPES, type LogEventType } from '../src/services/events/event.js';
import type { LogStreamCategory, StoredLogStream } from '../src/services/log-streams/definition.js';
import { checkedSink } from '../src/services/log-streams/sink-rules.js';
import { logStreamSecrets } from '../src/services/log-streams/stream-secrets.js';
import { selfSignedCertificate } from './support/certificates.js';
import { dropSchema } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startTestServer, TEST_SECRET, type TestServer } from './support/harness.js';
import { deliveredIn, startLogReceiver, type LogReceiver, type ReceivedRequest } from './support/log-receiver.js';
import { passwordRealmForm, provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS, POSTGRES_URL, postgresAvailable, type DialectKind } from './support/services.js';

/**
 * Log streams (`/api/v2/log-streams`) and their delivery to real HTTP(S) receivers on loopback: the Management API
 * (fields, masking, sealing, scopes, validation), then delivery of real events in each format and sink, filters,
 * pause and resume, a failing receiver that recovers, suspension, a restart mid-stream and two nodes on one database.
 */

/** Delivery made quick for tests: polls every 100 ms, retries within a second, suspends after 1.5 s of failures. */
const FAST = { pollMs: 100, firstBackoffMs: 50, maxBackoffMs: 400, suspendAfterMs: 1500 };
const FROM_THE_START = '2000-01-01T00:00:00.000Z';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Format = Parameters<typeof deliveredIn>[1];
const typesOf = (category: LogStreamCategory) => (Object.keys(LOG_EVENT_TYPES) as LogEventType[]).filter((type) => LOG_EVENT_TYPES[type].category === category);

/** The tenant's stored log ids, oldest first (optionally of some types), once the event buffer is written. */
async function storedIds(server: TestServer, types?: readonly string[]): Promise<string[]> {
  await server.registry.events.flush();
  const { events } = await server.registry.storage.logEvents.list(server.registry.tenantId, { sort: 'asc', limit: 100_000 });
  return events.filter((event) => !types || types.includes(event.type)).map((event) => event.log_id);
}

const idsIn = (requests: readonly ReceivedRequest[], format: Format) => requests.flatMap((request) => deliveredIn(request, format).map((event) => event.log_id));

/** Waits until the receiver acknowledged, on `path`, exactly the stored events (of `types`), in order. */
async function delivered(server: TestServer, receiver: LogReceiver, path: string, format: Format, types?: readonly string[]): Promise<string[]> {
  let expected: string[] = [];
  await eventually(
    `the events delivered to ${path}`,
    async () => {
      expected = await storedIds(server, types);
      return JSON.stringify(idsIn(receiver.accepted(path), format)) === JSON.stringify(expected);
    },
    20_000,
  ).catch((error: unknown) => {
    // Say what differs rather than only that it took too long.
    expect(idsIn(receiver.accepted(path), format)).toEqual(expected);
    throw error;
  });
  return expected;
}

describe('log streams: the Management API', () => {
  let server: TestServer;
  let api: ManagementApi;
  const secrets = logStreamSecrets(deploymentSecret(TEST_SECRET).key('log-stream-secret-seal'));
  const authorization = 'Bearer abcdefghijklmnopqrstuvwxyz-0123';
  const apiKey = 'header-key-0123456789abcdef';
  const httpStream = (extra: Record<string, unknown> = {}) => ({
    name: 'SIEM',
    type: 'http',
    filters: [{ type: 'category', name: 'auth.login.fail' }],
    sink: { httpEndpoint: 'https://siem.example.com/ingest', httpAuthorization: authorization, httpCustomHeaders: [{ header: 'X-Api-Key', value: apiKey }], httpContentFormat: 'JSONARRAY' },
    ...extra,
  });
  const stored = async (id: string) => (await server.registry.storage.logStreams.get<StoredLogStream>(server.registry.tenantId, id))?.data;

  beforeAll(async () => {
    // Delivery looks for streams once a minute here: these streams point nowhere and are never sent to.
    server = await startTestServer({ dialect: 'sqlite', logStreams: { pollMs: 60_000 } });
    api = managementApi(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates an http stream with the platform’s fields; credentials are sealed at rest and shown masked', async () => {
    const created = await api('POST', '/log-streams', httpStream());
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^lst_[A-Za-z0-9]{16}$/),
      name: 'SIEM',
      type: 'http',
      status: 'active',
      isPriority: false,
      filters: [{ type: 'category', name: 'auth.login.fail' }],
      sink: {
        httpEndpoint: 'https://siem.example.com/ingest',
        httpContentType: 'application/json',
        httpContentFormat: 'JSONARRAY',
        httpAuthorization: '****0123',
        httpCustomHeaders: [{ header: 'X-Api-Key', value: '****cdef' }],
      },
    });
    const id = String(created.body.id);
    const data = await stored(id);
    expect(JSON.stringify(data)).not.toContain('abcdefghijklmnop');
    expect(JSON.stringify(data)).not.toContain(apiKey);
    expect(secrets.open(data as StoredLogStream)).toMatchObject({ httpAuthorization: authorization, httpCustomHeaders: [{ header: 'X-Api-Key', value: apiKey }] });

    expect(await api('GET', `/log-streams/${id}`)).toEqual({ status: 200, body: created.body });
    const list = await api('GET', '/log-streams');
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created.body);
  });

  it('updates: renames, pauses and resumes, merges sink fields, and keeps a credential sent back masked', async () => {
    const id = String((await api('POST', '/log-streams', httpStream())).body.id);
    const read = (await api('GET', `/log-streams/${id}`)).body;
    const sink = { ...(read.sink as Record<string, unknown>), httpContentFormat: 'JSONOBJECT' };
    const updated = await api('PATCH', `/log-streams/${id}`, { name: 'renamed', sink, filters: [] });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: 'renamed', filters: [], sink: { httpContentFormat: 'JSONOBJECT', httpAuthorization: '****0123', httpCustomHeaders: [{ header: 'X-Api-Key', value: '****cdef' }] } });
    expect(secrets.open((await stored(id)) as StoredLogStream)).toMatchObject({ httpAuthorization: authorization, httpCustomHeaders: [{ header: 'X-Api-Key', value: apiKey }] });

    const replaced = await api('PATCH', `/log-streams/${id}`, { sink: { httpAuthorization: 'Basic bmV3LWNyZWRlbnRpYWxzLTEyMzQ=' } });
    expect(replaced.body).toMatchObject({ sink: { httpAuthorization: '****MzQ=', httpEndpoint: 'https://siem.example.com/ingest' } });
    expect(secrets.open((await stored(id)) as StoredLogStream).httpAuthorization).toBe('Basic bmV3LWNyZWRlbnRpYWxzLTEyMzQ=');

    expect((await api('PATCH', `/log-streams/${id}`, { status: 'paused' })).body).toMatchObject({ status: 'paused' });
    expect((await api('PATCH', `/log-streams/${id}`, { status: 'active' })).body).toMatchObject({ status: 'active' });
    expect((await api('PATCH', `/log-streams/${id}`, { isPriority: false })).status).toBe(200);
    const priority = await api('PATCH', `/log-streams/${id}`, { isPriority: true });
    expect(priority).toMatchObject({ status: 400, body: { errorCode: 'invalid_body', message: expect.stringContaining('isPriority') } });
    expect((await api('PATCH', `/log-streams/${id}`, {})).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body' });
  });

  it('deletes; an unknown stream is 404 inexistent_resource', async () => {
    const id = String((await api('POST', '/log-streams', httpStream())).body.id);
    expect((await api('DELETE', `/log-streams/${id}`)).status).toBe(204);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const answer = await api(method, `/log-streams/${id}`, body);
      expect(answer).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'The log stream does not exist.', errorCode: 'inexistent_resource' } });
    }
  });

  it('takes Datadog and Splunk sinks with their fields and defaults, their keys masked', async () => {
    const datadog = await api('POST', '/log-streams', { type: 'datadog', sink: { datadogApiKey: 'dd-0123456789abcdef0123', datadogRegion: 'eu' } });
    expect(datadog.body).toMatchObject({ name: 'datadog', type: 'datadog', status: 'active', sink: { datadogApiKey: '****0123', datadogRegion: 'eu' } });
    const splunk = await api('POST', '/log-streams', { name: 'splunk', type: 'splunk', sink: { splunkDomain: 'splunk.example.com', splunkToken: 'hec-token' } });
    expect(splunk.body).toMatchObject({ sink: { splunkDomain: 'splunk.example.com', splunkToken: '****', splunkPort: '8088', splunkSecure: true } });
    for (const id of [datadog.body.id, splunk.body.id]) expect((await api('DELETE', `/log-streams/${String(id)}`)).status).toBe(204);
  });

  it('refuses, in the Management API’s shape, what it cannot deliver', async () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'eventbridge', sink: {} }, /No enum match for: "eventbridge"' on property type/],
      [{ type: 'http', sink: {} }, /Missing required property: httpEndpoint' on property sink.httpEndpoint/],
      [{ type: 'http', sink: { httpEndpoint: 'ftp://logs.example/' } }, /The URL must be https or http' on property sink.httpEndpoint/],
      [{ type: 'http', sink: { httpEndpoint: 'not a url' } }, /Not a URL/],
      [{ type: 'http', sink: { httpEndpoint: 'https://user:pw@logs.example/' } }, /must not carry credentials/],
      [{ type: 'http', sink: { httpEndpoint: 'https://logs.example/', datadogApiKey: 'k' } }, /Additional properties not allowed for a http stream: datadogApiKey/],
      [{ type: 'http', sink: { httpEndpoint: 'https://logs.example/', httpContentFormat: 'XML' } }, /No enum match for: "XML"/],
      [{ type: 'http', sink: { httpEndpoint: 'https://logs.example/', httpCustomHeaders: [{ header: 'Content-Length', value: '1' }] } }, /The content-length header cannot be set here/],
      [{ type: 'http', sink: { httpEndpoint: 'https://logs.example/', httpCustomHeaders: [{ header: 'X-A', value: 'a\r\nX-Injected: 1' }] } }, /Only printable characters/],
      [{ type: 'http', sink: { httpEndpoint: 'https://logs.example/', httpCustomHeaders: [{ header: 'Bad Name', value: 'v' }] } }, /Not an HTTP header name/],
      [{ type: 'http', filters: [{ type: 'category', name: 'auth.nothing' }], sink: { httpEndpoint: 'https://logs.example/' } }, /No enum match for: "auth.nothing"/],
      [{ type: 'http', pii_config: { log_fields: ['email'] }, sink: { httpEndpoint: 'https://logs.example/' } }, /Additional properties not allowed: pii_config/],
      [{ type: 'datadog', sink: { datadogApiKey: 'k' } }, /Missing required property: datadogRegion/],
      [{ type: 'splunk', sink: { splunkDomain: 'https://splunk.example', splunkToken: 't' } }, /A host name, without scheme/],
      [{ type: 'splunk', sink: { splunkDomain: 'splunk.example', splunkToken: 't', splunkPort: '99999' } }, /A port number/],
      [{ type: 'http', startFrom: 'yesterday', sink: { httpEndpoint: 'https://logs.example/' } }, /on property startFrom/],
    ];
    for (const [body, message] of cases) {
      const answer = await api('POST', '/log-streams', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' });
      expect(String(answer.body.message), JSON.stringify(body)).toMatch(message);
    }
  });

  it('takes plain http endpoints only outside production', () => {
    expect(() => checkedSink('http', { httpEndpoint: 'http://logs.internal/' }, { allowHttp: false })).toThrow(/The URL must be https'/);
    expect(checkedSink('http', { httpEndpoint: 'http://logs.internal/' }, { allowHttp: true })).toMatchObject({ httpEndpoint: 'http://logs.internal/' });
  });

  it('asks for the log_streams scopes', async () => {
    const read = await server.token('read:log_streams');
    const other = await server.token('read:clients');
    expect((await api('GET', '/log-streams', undefined, read)).status).toBe(200);
    expect((await api('POST', '/log-streams', httpStream(), read)).body).toMatchObject({ statusCode: 403, errorCode: 'insufficient_scope', message: 'Insufficient scope, expected any of: create:log_streams' });
    expect((await api('GET', '/log-streams', undefined, other)).body).toMatchObject({ statusCode: 403, message: 'Insufficient scope, expected any of: read:log_streams' });
    expect((await api('PATCH', '/log-streams/lst_x', { name: 'x' }, read)).body).toMatchObject({ statusCode: 403, message: 'Insufficient scope, expected any of: update:log_streams' });
    expect((await api('DELETE', '/log-streams/lst_x', undefined, read)).body).toMatchObject({ statusCode: 403, message: 'Insufficient scope, expected any of: delete:log_streams' });
  });

  it('caps a tenant at 10 streams', async () => {
    let count = ((await api('GET', '/log-streams')).body as unknown[]).length;
    while (count < 10) {
      expect((await api('POST', '/log-streams', httpStream())).status).toBe(200);
      count += 1;
    }
    expect((await api('POST', '/log-streams', httpStream())).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_operation', message: 'A tenant can have at most 10 log streams.' });
  });
});

describe.each(DIALECTS)('log stream delivery to receivers on loopback (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  let receiver: LogReceiver;
  let collector: LogReceiver;
  let fx: LoginFixture;
  const create = async (body: Record<string, unknown>) => {
    const answer = await api('POST', '/log-streams', { startFrom: FROM_THE_START, ...body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return String(answer.body.id);
  };
  const webhook = (path: string, sink: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    create({ type: 'http', sink: { httpEndpoint: `${receiver.url}${path}`, httpContentFormat: 'JSONARRAY', ...sink }, ...extra });
  const record = async (count: number, label: string) => {
    for (let i = 0; i < count; i += 1) server.registry.events.record({ type: 'fp', description: `${label} ${i}`, user_id: `auth0|${label}` });
    await server.registry.events.flush();
  };
  const status = async (id: string) => (await api('GET', `/log-streams/${id}`)).body;

  beforeAll(async () => {
    receiver = await startLogReceiver();
    // Splunk's HTTP Event Collector over TLS, with a self-signed certificate.
    collector = await startLogReceiver(selfSignedCertificate('localhost', 'IP:127.0.0.1'));
    server = await startTestServer({ dialect, logStreams: { ...FAST, endpoints: { datadogIntake: (region) => `${receiver.url}/datadog/${region}` } } });
    api = managementApi(server);
    fx = await provisionLogin(server);
  });
  afterEach(() => {
    receiver.respond = () => 200;
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await collector?.close();
  });

  it('delivers a login and a failed login in each content format, to Datadog and Splunk, and by category', async () => {
    const authorization = 'Bearer stream-credential-0123456789';
    await webhook('/array', { httpAuthorization: authorization, httpCustomHeaders: [{ header: 'X-Source', value: 'latchkey-test' }] });
    await webhook('/lines', { httpContentFormat: 'JSONLINES', httpContentType: 'application/x-ndjson' });
    await webhook('/object', { httpContentFormat: 'JSONOBJECT' });
    await webhook('/failures', {}, { filters: [{ type: 'category', name: 'auth.login.fail' }] });
    await create({ type: 'datadog', sink: { datadogApiKey: 'dd-api-key-0123456789', datadogRegion: 'eu' } });
    await create({ type: 'splunk', sink: { splunkDomain: '127.0.0.1', splunkPort: String(collector.port), splunkToken: 'hec-token-0123456789', splunkSecure: false } });

    expect((await server.app.inject({ method: 'POST', url: '/oauth/token', payload: passwordRealmForm(fx) })).statusCode).toBe(200);
    expect((await server.app.inject({ method: 'POST', url: '/oauth/token', payload: passwordRealmForm(fx, { password: 'not the password' }) })).statusCode).toBe(403);

    const all = await delivered(server, receiver, '/array', 'JSONARRAY');
    await delivered(server, receiver, '/lines', 'JSONLINES');
    await delivered(server, receiver, '/object', 'JSONOBJECT');
    await delivered(server, receiver, '/datadog/eu', 'datadog');
    await delivered(server, collector, '/services/collector/event', 'splunk');
    const failures = await delivered(server, receiver, '/failures', 'JSONARRAY', typesOf('auth.login.fail'));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThan(all.length);

    // The platform's envelope, and the events of the two logins in it.
    const events = receiver.accepted('/array').flatMap((request) => deliveredIn(request, 'JSONARRAY'));
    for (const event of events) expect(event.data.log_id).toBe(event.log_id);
    expect(events.find((event) => event.data.type === 'sepft')?.data).toMatchObject({ user_id: fx.user.userId, user_name: fx.user.email, client_id: fx.web.clientId, connection: fx.connection });
    expect(events.find((event) => event.data.type === 'fp')?.data).toMatchObject({ user_name: fx.user.email, connection: fx.connection });
    expect(receiver.accepted('/failures').flatMap((request) => deliveredIn(request, 'JSONARRAY')).map((event) => event.data.type)).toContain('fp');

    // Each sink's headers.
    expect(receiver.accepted('/array')[0]?.headers).toMatchObject({ authorization, 'x-source': 'latchkey-test', 'content-type': 'application/json', 'user-agent': 'Latchkey-LogStreams' });
    expect(receiver.accepted('/lines')[0]?.headers).toMatchObject({ 'content-type': 'application/x-ndjson' });
    expect(receiver.accepted('/lines')[0]?.headers.authorization).toBeUndefined();
    const datadog = receiver.accepted('/datadog/eu')[0];
    expect(datadog?.headers).toMatchObject({ 'dd-api-key': 'dd-api-key-0123456789', 'content-type': 'application/json' });
    expect(JSON.parse(datadog?.body ?? '[]')[0]).toMatchObject({ ddsource: 'auth0', service: 'latchkey', log_id: expect.any(String), data: { type: expect.any(String) } });
    const splunk = collector.accepted('/services/collector/event')[0];
    expect(splunk?.headers).toMatchObject({ authorization: 'Splunk hec-token-0123456789' });
    expect(JSON.parse(splunk?.body.split('\n')[0] ?? '{}')).toMatchObject({ sourcetype: 'auth0', time: expect.any(Number), event: { log_id: expect.any(String) } });

    // No secret of the logins travels.
    for (const request of [...receiver.requests, ...collector.requests]) {
      expect(request.body).not.toContain(USER_PASSWORD);
      expect(request.body).not.toContain(fx.web.clientSecret);
    }
  });

  it('pauses and resumes: events recorded while paused arrive afterwards, none lost, in order; the lag gauge shows them', async () => {
    const id = await webhook('/paused', { httpContentFormat: 'JSONLINES' });
    await delivered(server, receiver, '/paused', 'JSONLINES');
    expect((await api('PATCH', `/log-streams/${id}`, { status: 'paused' })).body).toMatchObject({ status: 'paused' });
    const requestsBefore = receiver.requests.filter((request) => request.path === '/paused').length;
    await record(5, 'paused');
    await sleep(600);
    expect(receiver.requests.filter((request) => request.path === '/paused')).toHaveLength(requestsBefore);
    const lag = async () => Number(new RegExp(`latchkey_log_stream_lag_events\\{stream="${id}"\\} (\\d+)`).exec((await server.registry.metrics.scrape()).text)?.[1] ?? -1);
    expect(await lag()).toBeGreaterThanOrEqual(5);

    expect((await api('PATCH', `/log-streams/${id}`, { status: 'active' })).body).toMatchObject({ status: 'active' });
    const ids = await delivered(server, receiver, '/paused', 'JSONLINES');
    expect(new Set(ids).size).toBe(ids.length);
    await eventually('the lag back to 0', async () => (await lag()) === 0, 10_000);
  });

  it('retries a receiver that fails, then recovers: nothing lost, nothing reordered, batches of at most 100', async () => {
    let failuresLeft = 3;
    receiver.respond = (request) => (request.path === '/flaky' && failuresLeft-- > 0 ? 500 : 200);
    const id = await webhook('/flaky');
    await record(250, 'flaky');
    const ids = await delivered(server, receiver, '/flaky', 'JSONARRAY');
    const sent = receiver.requests.filter((request) => request.path === '/flaky');
    expect(sent.filter((request) => request.status === 500)).toHaveLength(3);
    expect(ids.length).toBeGreaterThan(250);
    for (const request of sent) expect(deliveredIn(request, 'JSONARRAY').length).toBeLessThanOrEqual(100);
    // A refused batch is sent again from its first event.
    const firstRefused = sent.findIndex((request) => request.status === 500);
    const retried = sent.slice(firstRefused).find((request) => request.status === 200);
    expect(idsIn(retried ? [retried] : [], 'JSONARRAY')[0]).toBe(idsIn([sent[firstRefused] as ReceivedRequest], 'JSONARRAY')[0]);
    // A tenant has at most 10 streams: this one makes room for the next tests.
    expect((await api('DELETE', `/log-streams/${id}`)).status).toBe(204);
  });

  it('suspends a stream that fails past the window, says why, skips it, and resumes at its position when set active', async () => {
    let down = true;
    receiver.respond = (request) => (request.path === '/down' && down ? 503 : 200);
    const id = await webhook('/down');
    await record(3, 'down');
    await eventually('the stream suspended', async () => (await status(id)).status === 'suspended', 15_000);
    expect(String((await status(id)).suspensionReason)).toMatch(/^Deliveries have failed since .*the sink answered HTTP 503$/);
    const attempts = receiver.requests.filter((request) => request.path === '/down').length;
    await sleep(500);
    expect(receiver.requests.filter((request) => request.path === '/down')).toHaveLength(attempts);

    down = false;
    await record(3, 'after');
    const resumed = await api('PATCH', `/log-streams/${id}`, { status: 'active' });
    expect(resumed.body).toMatchObject({ status: 'active' });
    expect(resumed.body.suspensionReason).toBeUndefined();
    await delivered(server, receiver, '/down', 'JSONARRAY');
  });

  it('waits for the lease of a node that died to run out, then delivers everything from the position', async () => {
    const id = await webhook('/orphaned');
    await delivered(server, receiver, '/orphaned', 'JSONARRAY');
    expect((await api('PATCH', `/log-streams/${id}`, { status: 'paused' })).status).toBe(200);
    // A node that stopped without releasing the stream (its process was killed) holds it for another 3 s.
    const until = Date.now() + 3000;
    await eventually('the lease released by the pause', async () => (await server.registry.storage.logStreams.get(server.registry.tenantId, id))?.leaseOwner === null, 5000);
    await server.registry.storage.dialect.db
      .updateTable('log_streams')
      .set({ lease_owner: 'a-node-that-died', lease_expires_at: new Date(until).toISOString() })
      .where('id', '=', id)
      .execute();
    expect((await api('PATCH', `/log-streams/${id}`, { status: 'active' })).status).toBe(200);
    const before = receiver.accepted('/orphaned').length;
    await record(3, 'orphaned');
    await sleep(Math.max(0, until - Date.now() - 1000));
    expect(receiver.accepted('/orphaned')).toHaveLength(before);
    await delivered(server, receiver, '/orphaned', 'JSONARRAY');
    expect((await server.registry.storage.logStreams.get(server.registry.tenantId, id))?.leaseOwner).not.toBe('a-node-that-died');
  });

  it('verifies the Splunk collector’s certificate when splunkSecure is true', async () => {
    const id = await create({ type: 'splunk', sink: { splunkDomain: '127.0.0.1', splunkPort: String(collector.port), splunkToken: 'hec-token', splunkSecure: true } });
    await eventually('the stream suspended', async () => (await status(id)).status === 'suspended', 15_000);
    expect(String((await status(id)).suspensionReason)).toMatch(/certificate/i);
  });
});

/** A database of the test's own that outlives the servers using it (the harness drops its own at close). */
function ownDatabase(dialect: DialectKind): { env: Record<string, string>; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-streams-'));
  const tenant = { LATCHKEY_TENANT: `t-${randomId(10).toLowerCase()}`, LATCHKEY_DATA_DIR: dir };
  if (dialect === 'sqlite') return { env: { ...tenant, DATABASE_URL: `sqlite:${join(dir, 'latchkey.db')}` }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  const schema = `ls_${randomId(12).toLowerCase()}`;
  return {
    env: { ...tenant, DATABASE_URL: POSTGRES_URL, TEST_PG_SCHEMA: schema },
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      await dropSchema(schema);
    },
  };
}

describe.each(DIALECTS)('log stream delivery across a restart (%s)', (dialect) => {
  it('resumes at the stored position: nothing lost, in order, only the unacknowledged batch sent twice', async () => {
    const receiver = await startLogReceiver();
    const database = ownDatabase(dialect);
    let server: TestServer | undefined = await startTestServer({ dialect, env: database.env, logStreams: FAST });
    try {
      const created = await managementApi(server)('POST', '/log-streams', { type: 'http', startFrom: FROM_THE_START, sink: { httpEndpoint: `${receiver.url}/restart`, httpContentFormat: 'JSONARRAY' } });
      expect(created.status).toBe(200);
      // The second request is held unanswered: the node stops while it is in flight.
      let release = () => {};
      const held = new Promise<number>((resolve) => (release = () => resolve(200)));
      let heldRequest: ReceivedRequest | undefined;
      receiver.respond = (request) => {
        if (receiver.requests.length !== 2) return 200;
        heldRequest = request;
        return held;
      };
      for (let i = 0; i < 300; i += 1) server.registry.events.record({ type: 'fp', description: `before restart ${i}` });
      await eventually('a request in flight', async () => heldRequest !== undefined, 15_000);
      await server.close();
      server = undefined;
      // The stopped node dropped the request rather than waiting for its answer.
      await eventually('the held request dropped by the stopped node', async () => heldRequest?.aborted === true, 5000);
      release();

      server = await startTestServer({ dialect, env: database.env, logStreams: FAST });
      for (let i = 0; i < 50; i += 1) server.registry.events.record({ type: 'fp', description: `after restart ${i}` });
      const expected = await storedIds(server);
      // The Management API token (`seccft`), the stream's creation (`sapi`), and the events before and after the restart.
      expect(expected).toHaveLength(2 + 300 + 50);
      await eventually('everything delivered after the restart', async () => new Set(idsIn(receiver.requests, 'JSONARRAY')).size === expected.length, 20_000);

      const all = idsIn(receiver.requests, 'JSONARRAY');
      const unique = [...new Set(all)];
      expect(unique).toEqual(expected);
      const twice = idsIn([heldRequest as ReceivedRequest], 'JSONARRAY');
      expect(all.length - unique.length).toBe(twice.length);
      // The new node's first request starts over with the batch the old one never saw acknowledged.
      const afterRestart = receiver.requests[receiver.requests.indexOf(heldRequest as ReceivedRequest) + 1];
      expect(idsIn(afterRestart ? [afterRestart] : [], 'JSONARRAY').slice(0, twice.length)).toEqual(twice);
    } finally {
      await server?.close();
      await receiver.close();
      await database.cleanup();
    }
  });
});

// Two registries in one process on one SQLite file would block each other's event loop (better-sqlite3 waits for
// the file lock synchronously); the lease is the same code on both dialects, and the storage contract checks its
// conditional claims on each.
describe.runIf(postgresAvailable)('log stream delivery by two nodes sharing PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  let receiver: LogReceiver;

  beforeAll(async () => {
    receiver = await startLogReceiver();
    a = await startTestServer({ dialect: 'postgres', logStreams: FAST });
    b = await startTestServer({ dialect: 'postgres', shareWith: a, logStreams: FAST });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
  });

  it('delivers each event once per stream, in order, one request at a time, whichever node records it', async () => {
    const paths = ['/node-0', '/node-1', '/node-2', '/node-3'];
    for (const [i, path] of paths.entries()) {
      const on = i % 2 === 0 ? a : b;
      const created = await managementApi(on)('POST', '/log-streams', { type: 'http', startFrom: FROM_THE_START, sink: { httpEndpoint: `${receiver.url}${path}`, httpContentFormat: 'JSONLINES' } });
      expect(created.status).toBe(200);
    }
    // Slow answers make overlapping deliveries likely if two nodes ever held one stream.
    receiver.respond = () => sleep(20).then(() => 200);
    for (let i = 0; i < 200; i += 1) (i % 2 === 0 ? a : b).registry.events.record({ type: 'fp', description: `event ${i}` });
    await b.registry.events.flush();
    for (const path of paths) {
      const ids = await delivered(a, receiver, path, 'JSONLINES');
      expect(ids.length).toBeGreaterThanOrEqual(200);
      expect(receiver.maxConcurrent(path)).toBe(1);
      expect(receiver.requests.filter((request) => request.path === path).every((request) => request.status === 200)).toBe(true);
    }
    const owners = (await a.registry.storage.logStreams.list(a.registry.tenantId)).map((stream) => stream.leaseOwner);
    expect(owners.every((owner) => owner !== null)).toBe(true);
  });
});
