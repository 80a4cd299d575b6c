import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../src/crypto/random.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, TEST_SECRET } from './support/harness.js';
import { startServeProcess, type Running } from './support/processes.js';
import { POSTGRES_URL, postgresAvailable } from './support/services.js';
import { freePort } from './support/ports.js';
import { eventually } from './support/eventually.js';

interface Node {
  url: string;
  process: Running;
}

const tokenAt = async (node: Node, issuer: string) => {
  const response = await fetch(`${node.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: `${issuer}/api/v2/` }),
  });
  expect(response.status).toBe(200);
  return String(((await response.json()) as { access_token: string }).access_token);
};
const keysAt = (node: Node, token: string) => fetch(`${node.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${token}` } });

/** Two `latchkey serve` processes on one database, started at the same moment (bootstrap, migrations and keys race). */
async function startPair(databaseUrl: string): Promise<{ nodes: [Node, Node]; issuer: string; dirs: string[] }> {
  const ports = [await freePort(), await freePort()];
  const issuer = `http://localhost:${ports[0]}`;
  const dirs = ports.map(() => mkdtempSync(join(tmpdir(), 'latchkey-node-')));
  const processes = await Promise.all(
    ports.map((port, i) =>
      startServeProcess({
        PORT: String(port),
        LATCHKEY_ISSUER: issuer,
        DATABASE_URL: databaseUrl,
        LATCHKEY_DATA_DIR: dirs[i] ?? '',
        LATCHKEY_SECRET: TEST_SECRET,
        LATCHKEY_ADMIN_CLIENT_ID: ADMIN_CLIENT_ID,
        LATCHKEY_ADMIN_CLIENT_SECRET: ADMIN_CLIENT_SECRET,
        LATCHKEY_TENANT: 'multi',
      }),
    ),
  );
  const nodes = processes.map((process, i) => ({ url: `http://127.0.0.1:${ports[i]}`, process })) as [Node, Node];
  return { nodes, issuer, dirs };
}

describe.runIf(postgresAvailable)('two server processes on one PostgreSQL database', () => {
  const schema = `mn_${randomId(10).toLowerCase()}`;
  let admin: pg.Client;
  let pair: Awaited<ReturnType<typeof startPair>>;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    pair = await startPair(`${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(pair?.nodes.map((node) => node.process.stop()) ?? []);
    for (const dir of pair?.dirs ?? []) rmSync(dir, { recursive: true, force: true });
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  it('bootstraps once: one tenant, one admin, one demo and one console client, their grants, two demo connections, one administrator, one current and one next key', async () => {
    const keys = await admin.query<{ status: string }>(`select status from ${schema}.signing_keys order by status`);
    expect(keys.rows.map((row) => row.status)).toEqual(['current', 'next']);
    expect((await admin.query(`select 1 from ${schema}.tenants`)).rowCount).toBe(1);
    // Both nodes run in development, so both provision the demo: still once.
    const clients = await admin.query<{ client_id: string }>(`select client_id from ${schema}.clients order by client_id`);
    expect(clients.rows.map((row) => row.client_id).sort()).toEqual([ADMIN_CLIENT_ID, 'latchkey-console', 'latchkey-demo'].sort());
    expect((await admin.query(`select 1 from ${schema}.client_grants`)).rowCount).toBe(2);
    // The console signs in through the demo's database connection rather than a third one.
    expect((await admin.query(`select 1 from ${schema}.connections`)).rowCount).toBe(2);
    // Both nodes start with an empty data folder: one bootstrap administrator all the same, holding the one role.
    expect((await admin.query(`select 1 from ${schema}.roles`)).rowCount).toBe(1);
    expect((await admin.query(`select 1 from ${schema}.users`)).rowCount).toBe(1);
    expect((await admin.query(`select 1 from ${schema}.user_roles`)).rowCount).toBe(1);
  });

  it('tokens minted by one node are accepted by the other, across a key rotation on one of them', async () => {
    const [a, b] = pair.nodes;
    const before = await tokenAt(a, pair.issuer);
    expect((await keysAt(b, before)).status).toBe(200);
    expect((await keysAt(a, await tokenAt(b, pair.issuer))).status).toBe(200);

    const rotated = await fetch(`${a.url}/api/v2/keys/signing/rotate`, { method: 'POST', headers: { authorization: `Bearer ${before}` } });
    expect(rotated.status).toBe(201);
    const newKid = String(((await rotated.json()) as { kid: string }).kid);

    // Node B has not seen the new key yet: it re-reads storage when it meets the unknown kid.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await tokenAt(a, pair.issuer);
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    expect((await keysAt(b, after)).status).toBe(200);
    const jwksB = (await (await fetch(`${b.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwksB.keys.map((key) => key.kid)).toContain(newKid);
    // The key that signed `before` is now previous: still published, so the old token still works everywhere.
    expect((await keysAt(a, before)).status).toBe(200);
    expect((await keysAt(b, before)).status).toBe(200);

    const oldKid = String(decodeProtectedHeader(before).kid);
    const revoked = await fetch(`${a.url}/api/v2/keys/signing/${oldKid}/revoke`, { method: 'PUT', headers: { authorization: `Bearer ${after}` } });
    expect(revoked.status).toBe(200);
    expect((await keysAt(a, before)).status).toBe(401);
    // Node B hears of it through PostgreSQL (LISTEN/NOTIFY) at once, not when its 30-second key cache expires.
    await eventually('node B refuses the revoked key', async () => (await keysAt(b, before)).status === 401, 5000);
    const jwksAfter = (await (await fetch(`${b.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwksAfter.keys.map((key) => key.kid)).not.toContain(oldKid);
    const statuses = (await admin.query<{ status: string }>(`select status from ${schema}.signing_keys order by status`)).rows.map((row) => row.status);
    expect(statuses).toEqual(['current', 'next', 'revoked']);
  });
});

describe('two server processes on one SQLite file', () => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-shared-sqlite-'));
    pair = await startPair(`sqlite:${join(dir, 'shared.db')}`);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(pair?.nodes.map((node) => node.process.stop()) ?? []);
    for (const path of [...(pair?.dirs ?? []), dir]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it('both serve tokens that the other accepts', async () => {
    const [a, b] = pair.nodes;
    expect((await keysAt(b, await tokenAt(a, pair.issuer))).status).toBe(200);
    expect((await keysAt(a, await tokenAt(b, pair.issuer))).status).toBe(200);
  });
});
