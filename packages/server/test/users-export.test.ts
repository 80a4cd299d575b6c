import { gunzipSync, gzipSync } from 'node:zlib';
import type { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDownloads } from '../src/services/jobs/export-download.js';
import type { UsersExportJobData } from '../src/services/jobs/jobs.js';
import { exportedText, exportFields } from '../src/services/jobs/users-export.js';
import { userView } from '../src/services/users.js';
import { until } from './support/eventually.js';
import { startTestServer } from './support/harness.js';
import { managementApi } from './support/management-api.js';
import { startServerForSdk, rejection, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/** Users of the export tests: imported by a users-import job, as a team moving in would. */
const PEOPLE = Array.from({ length: 11 }, (_, n) => ({
  email: `person${String(n).padStart(2, '0')}@example.com`,
  user_id: `p${String(n).padStart(2, '0')}`,
  name: n === 3 ? 'Quote "Q" Person, Jr.' : `Person ${n}`,
  user_metadata: { plan: n % 2 === 0 ? 'gold' : 'free', nested: { level: n } },
  app_metadata: { tier: n },
}));

interface Job {
  id: string;
  status: string;
  location?: string;
}

/**
 * Users exports on both dialects over real HTTPS with the official Management SDK (npm auth0): CSV and JSON
 * lines, chosen fields with `export_as`, a connection and a limit; the file behind the job's signed `location`
 * is gzip (several members, one per batch) and holds every user once; the link works on another node and not
 * when tampered with; a run taken over after a node died goes on from its last recorded batch.
 */
describe.each(DIALECTS)('users export jobs (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let connectionId: string;
  let connectionName: string;

  beforeAll(async () => {
    // Batches of 4 users: the 11 users make a file of several gzip members.
    sdk = await startServerForSdk({ dialect, jobs: { pollMs: 100, exportBatchSize: 4 } });
    management = sdk.management;
    const api = managementApi(sdk.server);
    connectionName = `export-db-${dialect}`;
    const created = await api('POST', '/connections', { name: connectionName, strategy: 'auth0' });
    connectionId = String(created.body.id);
    const other = await api('POST', '/connections', { name: `export-other-${dialect}`, strategy: 'auth0' });
    expect(other.status).toBe(201);
    const imported = await management.jobs.usersImports.create({ users: new Blob([JSON.stringify(PEOPLE)]), connection_id: connectionId });
    await until(async () => expect((await management.jobs.get(String(imported.id))).status).toBe('completed'));
    // A user of another connection, left out of this connection's export.
    expect((await api('POST', '/users', { connection: `export-other-${dialect}`, email: 'outsider@example.com', password: 'An outsider password 1' })).status).toBe(201);
  }, 60_000);
  afterAll(async () => sdk?.close());

  const finished = (id: string) =>
    until(async () => {
      const job = (await management.jobs.get(id)) as unknown as Job;
      expect(job.status).toBe('completed');
      return job;
    });
  const download = async (location: string) => {
    const response = await fetch(location);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    return gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
  };

  it('exports a connection as CSV with chosen fields, nested paths and export_as', async () => {
    const created = await management.jobs.usersExports.create({
      connection_id: connectionId,
      format: 'csv',
      fields: [{ name: 'user_id' }, { name: 'email' }, { name: 'name' }, { name: 'user_metadata.plan' }, { name: 'identities[0].connection', export_as: 'provider' }, { name: 'logins_count' }],
    });
    expect(created).toMatchObject({ type: 'users_export', status: 'pending', connection_id: connectionId, connection: connectionName, format: 'csv' });
    const job = await finished(String(created.id));
    expect(job.location).toMatch(/\/api\/v2\/jobs\/job_[A-Za-z0-9]+\/export-file\?expires=\d+&signature=/);
    const lines = (await download(String(job.location))).trimEnd().split('\n');
    expect(lines[0]).toBe('"user_id","email","name","user_metadata.plan","provider","logins_count"');
    expect(lines).toHaveLength(1 + PEOPLE.length);
    expect(lines[1]).toBe(`"auth0|p00","person00@example.com","Person 0","gold","${connectionName}",0`);
    // A value with quotes and a comma stays one cell.
    expect(lines[4]).toBe(`"auth0|p03","person03@example.com","Quote ""Q"" Person, Jr.","free","${connectionName}",0`);
    expect(lines.join('\n')).not.toContain('outsider');
  });

  it('exports JSON lines with whole metadata objects, all connections, and a limit', async () => {
    const all = await finished(String((await management.jobs.usersExports.create({ format: 'json', fields: [{ name: 'email' }, { name: 'app_metadata' }, { name: 'user_metadata', export_as: 'profile' }] })).id));
    const rows = (await download(String(all.location))).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((row) => String(row.email)).sort()).toEqual([...PEOPLE.map((person) => person.email), 'outsider@example.com'].sort());
    expect(rows.find((row) => row.email === 'person05@example.com')).toEqual({ email: 'person05@example.com', app_metadata: { tier: 5 }, profile: { plan: 'free', nested: { level: 5 } } });

    const limited = await finished(String((await management.jobs.usersExports.create({ connection_id: connectionId, format: 'json', limit: 6 })).id));
    const limitedRows = (await download(String(limited.location))).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(limitedRows).toHaveLength(6);
    // Without fields, the default set: the user's id and e-mail among them, the connection under its own name.
    expect(limitedRows[0]).toMatchObject({ user_id: 'auth0|p00', email: 'person00@example.com', connection: connectionName, blocked: false });
  });

  it('writes a header-only CSV for a connection without users', async () => {
    const api = managementApi(sdk.server);
    const empty = await api('POST', '/connections', { name: `export-empty-${dialect}`, strategy: 'auth0' });
    const job = await finished(String((await management.jobs.usersExports.create({ connection_id: String(empty.body.id), fields: [{ name: 'email' }] })).id));
    expect(await download(String(job.location))).toBe('"email"\n');
  });

  it('refuses bad exports with the documented errors, and bad or stale links with 403', async () => {
    const csvMetadata = await rejection(management.jobs.usersExports.create({ format: 'csv', fields: [{ name: 'user_metadata' }] }));
    expect(csvMetadata.statusCode).toBe(400);
    expect(csvMetadata.body).toMatchObject({ errorCode: 'invalid_body', message: expect.stringContaining('user_metadata.country') });
    expect((await rejection(management.jobs.usersExports.create({ fields: [{ name: 'password_hash' }] }))).body).toMatchObject({ statusCode: 400, message: 'Unsupported field to export: password_hash.' });
    expect((await rejection(management.jobs.usersExports.create({ fields: Array.from({ length: 31 }, () => ({ name: 'email' })) }))).statusCode).toBe(400);
    expect((await rejection(management.jobs.usersExports.create({ connection_id: 'con_doesnotexist0000' }))).body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_connection' });
    const api = managementApi(sdk.server);
    expect((await api('POST', '/jobs/users-exports', { format: 'xml' })).status).toBe(400);
    const narrow = await sdk.server.token('read:clients');
    const forbidden = await fetch(`${sdk.server.url}/api/v2/jobs/users-exports`, { method: 'POST', headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json' }, body: '{}' });
    expect(forbidden.status).toBe(403);

    const job = await finished(String((await management.jobs.usersExports.create({ connection_id: connectionId, limit: 1 })).id));
    const link = new URL(String(job.location));
    const tampered = new URL(link);
    tampered.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 3600));
    const refused = await fetch(tampered);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ statusCode: 403, errorCode: 'forbidden' });
    const otherJob = new URL(link);
    otherJob.pathname = otherJob.pathname.replace(/job_[A-Za-z0-9]+/, 'job_notthesameone00');
    expect((await fetch(otherJob)).status).toBe(403);

    // The link's expiry, on a clock that moves.
    let clock = new Date('2026-01-01T00:00:00Z');
    const links = exportDownloads({ key: Buffer.alloc(32, 7), tenantId: 't', baseUrl: 'https://id.example', now: () => clock });
    const signed = new URL(links.location('job_x'));
    const expires = Number(signed.searchParams.get('expires'));
    expect(links.valid('job_x', expires, String(signed.searchParams.get('signature')))).toBe(true);
    clock = new Date(clock.getTime() + 601_000);
    expect(links.valid('job_x', expires, String(signed.searchParams.get('signature')))).toBe(false);
  });

  it('serves the link on another node, and a run taken over goes on from its last recorded batch', async () => {
    const first = sdk.server;
    const job = await finished(String((await management.jobs.usersExports.create({ connection_id: connectionId, format: 'json', fields: [{ name: 'user_id' }] })).id));
    const second = await startTestServer({ dialect, shareWith: first, jobs: { enabled: false } });
    try {
      const onSecond = new URL(String(job.location));
      onSecond.host = new URL(second.url).host;
      onSecond.protocol = new URL(second.url).protocol;
      const viaSecond = await second.app.inject({ method: 'GET', url: onSecond.pathname + onSecond.search });
      expect(viaSecond.statusCode).toBe(200);
      expect(gunzipSync(viaSecond.rawPayload).toString('utf8').trimEnd().split('\n')).toHaveLength(PEOPLE.length);

      // A node died after its first batch (4 users, recorded) and after writing a second chunk it never recorded.
      const { storage, tenantId } = second.registry;
      const fields = [{ name: 'user_id' }];
      const firstBatch = (await storage.users.listAfter(tenantId, undefined, 4, { connection: connectionName, linked_to: null })).map(userView);
      const id = `job_takenover${dialect === 'sqlite' ? 'sq' : 'pg'}000`;
      const data: UsersExportJobData = { connection_id: connectionId, connection: connectionName, format: 'csv', fields, chunks: 1, exported: 4, cursor: firstBatch.at(-1)?.user_id ?? '' };
      await storage.jobs.appendOutput(tenantId, id, 0, gzipSync(exportedText('csv', exportFields('csv', fields), firstBatch, true)));
      await storage.jobs.appendOutput(tenantId, id, 1, gzipSync('"orphan"\n'));
      await storage.jobs.insert(tenantId, { id, type: 'users_export', data, createdAt: new Date().toISOString() });

      // The first node's runner takes the job up where it was left.
      const resumed = await finished(id);
      const lines = (await download(String(resumed.location))).trimEnd().split('\n');
      expect(lines[0]).toBe('"user_id"');
      expect(lines.slice(1)).toEqual(PEOPLE.map((person) => `"auth0|${person.user_id}"`));
    } finally {
      await second.stop();
    }
  });
});
