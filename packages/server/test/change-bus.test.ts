import BetterSqlite3 from 'better-sqlite3';
import { decodeProtectedHeader } from 'jose';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeBusConnectionName } from '../src/services/change-bus/index.js';
import { eventually } from './support/eventually.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable, type DialectKind } from './support/services.js';

/**
 * How long another node may take to see a change. The fallbacks it must beat are far longer: the configuration and
 * grant caches keep entries for LATCHKEY_CONFIG_CACHE_SECONDS (300 s here), the signing keys for 30 s.
 */
const PROPAGATION_MS = 5000;

/** Within the propagation bound unless told otherwise. */
const soon = (what: string, probe: () => Promise<boolean>, withinMs = PROPAGATION_MS) => eventually(what, probe, withinMs);

interface Setup {
  name: string;
  dialect: DialectKind;
  env: Record<string, string>;
}

const SETUPS: Setup[] = [
  ...(postgresAvailable ? [{ name: 'one PostgreSQL database: LISTEN/NOTIFY', dialect: 'postgres' as const, env: {} }] : []),
  ...(redisAvailable ? [{ name: 'one SQLite file and Redis pub/sub', dialect: 'sqlite' as const, env: { REDIS_URL } }] : []),
];

/**
 * Two nodes (each its own registry: pool, caches, listening connection; each on a real socket) on one database.
 * What node A changes, node B must act on at once: a revoked signing key, a deleted client, a revoked grant.
 */
describe.each(SETUPS)('changes made on one node reach the other at once ($name)', ({ dialect, env }) => {
  let a: TestServer;
  let b: TestServer;
  let fx: LoginFixture;
  let adminA: ManagementApi;

  beforeAll(async () => {
    a = await startTestServer({ dialect, listen: true, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '300', ...env } });
    b = await startTestServer({ dialect, listen: true, shareWith: a });
    fx = await provisionLogin(a);
    // A fresh token each time: the harness keeps one, which the key revocation below ends.
    const api = managementApi(a, 'socket');
    adminA = async (method, path, body) => api(method, path, body, await adminToken(a));
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function adminToken(node: TestServer) {
    const answer = await postJson(node, '/oauth/token', { grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: node.audience });
    expect(answer.status, answer.text).toBe(200);
    return String(answer.json.access_token);
  }
  const keysAt = (node: TestServer, token: string) => fetch(`${node.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${token}` } });
  const jwksKids = async (node: TestServer) =>
    ((await (await fetch(`${node.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
  const userinfoAt = (node: TestServer, token: string) => fetch(`${node.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  const userLogin = async (node: TestServer, extra: Record<string, string> = {}) => {
    const answer = await postJson(node, '/oauth/token', passwordRealmForm(fx, { scope: 'openid offline_access', ...extra }));
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { access_token: string; refresh_token: string };
  };
  const clientCredentialsAt = (node: TestServer, clientId: string, clientSecret: string) =>
    postJson(node, '/oauth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: fx.api.identifier });
  const newClient = async (name: string, withGrant: boolean) => {
    const created = await adminA('POST', '/clients', { name, app_type: 'non_interactive', grant_types: ['client_credentials'] });
    expect(created.status).toBe(201);
    const client = { id: String(created.body.client_id), secret: String(created.body.client_secret) };
    if (withGrant) expect((await adminA('POST', '/client-grants', { client_id: client.id, audience: fx.api.identifier, scope: ['read:things'] })).status).toBe(201);
    return client;
  };

  it('a signing key revoked on A leaves B’s JWKS, and B refuses the tokens it signed', async () => {
    const before = await adminToken(a);
    const oldKid = String(decodeProtectedHeader(before).kid);
    // A user's JWT for an API and /userinfo, signed by the same key; B verifies it once and remembers that.
    const userJwt = (await userLogin(a, { audience: fx.api.identifier })).access_token;
    expect(decodeProtectedHeader(userJwt).kid).toBe(oldKid);
    expect((await userinfoAt(b, userJwt)).status).toBe(200);
    expect((await keysAt(b, before)).status).toBe(200);

    const rotated = await fetch(`${a.url}/api/v2/keys/signing/rotate`, { method: 'POST', headers: { authorization: `Bearer ${before}` } });
    expect(rotated.status).toBe(201);
    const after = await adminToken(a);
    expect(decodeProtectedHeader(after).kid).not.toBe(oldKid);
    // B has just read its key set (its own cache would keep the old key for 30 s more).
    await soon('B publishes the rotated key set', async () => (await jwksKids(b)).includes(String(decodeProtectedHeader(after).kid)));
    expect(await jwksKids(b)).toContain(oldKid);
    expect((await keysAt(b, before)).status).toBe(200);

    const revoked = await fetch(`${a.url}/api/v2/keys/signing/${oldKid}/revoke`, { method: 'PUT', headers: { authorization: `Bearer ${after}` } });
    expect(revoked.status).toBe(200);
    await soon('B drops the revoked key from its JWKS', async () => !(await jwksKids(b)).includes(oldKid));
    expect((await keysAt(b, before)).status).toBe(401);
    expect((await userinfoAt(b, userJwt)).status).toBe(401);
    expect((await keysAt(b, after)).status).toBe(200);
  });

  it('a client deleted on A is refused by B', async () => {
    const client = await newClient('Deleted elsewhere', true);
    expect((await clientCredentialsAt(b, client.id, client.secret)).status).toBe(200);
    expect((await adminA('DELETE', `/clients/${client.id}`)).status).toBe(204);
    await soon('B refuses the deleted client', async () => (await clientCredentialsAt(b, client.id, client.secret)).status === 401);
  });

  it('a grant revoked on A stops its access token at B’s /userinfo; a user blocked on A is refused by B', async () => {
    const tokens = await userLogin(a);
    expect((await userinfoAt(b, tokens.access_token)).status).toBe(200);
    const revoked = await postJson(a, '/oauth/revoke', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, token: tokens.refresh_token });
    expect(revoked.status).toBe(200);
    await soon('B refuses the access token of the revoked grant', async () => (await userinfoAt(b, tokens.access_token)).status === 401);

    const other = await userLogin(a);
    expect((await userinfoAt(b, other.access_token)).status).toBe(200);
    expect((await adminA('PATCH', `/users/${encodeURIComponent(fx.user.userId)}`, { blocked: true })).status).toBe(200);
    try {
      await soon('B refuses the blocked user', async () => (await userinfoAt(b, other.access_token)).status === 401);
    } finally {
      expect((await adminA('PATCH', `/users/${encodeURIComponent(fx.user.userId)}`, { blocked: false })).status).toBe(200);
    }
  });

  it('survives losing its listening connection and nonsense on the channel; back, it forgets what it may have missed', async () => {
    const client = await newClient('Deleted behind the nodes’ backs', false);
    // Let the announcement of the new client pass before B reads it: from then on only B's cache holds it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Known to B (403: no grant for the API, but the client is found and cached).
    const known = async () => (await clientCredentialsAt(b, client.id, client.secret)).status;
    expect(await known()).toBe(403);
    const connectionName = changeBusConnectionName(a.registry.tenantId);
    if (dialect === 'postgres') {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        await admin.query(`select pg_notify('latchkey_changes', $1)`, ['not json']);
        await admin.query(`select pg_notify('latchkey_changes', $1)`, [JSON.stringify({ scope: 1, node: [], tables: 'clients' })]);
        // A write no node announces (as if its message had been lost), then the listening connections go.
        await admin.query(`delete from ${a.env.TEST_PG_SCHEMA}.clients where client_id = $1`, [client.id]);
        expect(await known()).toBe(403);
        const killed = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [connectionName]);
        expect(killed.rowCount).toBe(2);
      } finally {
        await admin.end();
      }
    } else {
      const redis = new Redis(REDIS_URL);
      try {
        await redis.publish(`latchkey:changes:${a.registry.tenantId}`, 'not json');
        const file = new BetterSqlite3(String(a.env.DATABASE_URL).slice('sqlite:'.length));
        file.prepare('delete from clients where client_id = ?').run(client.id);
        file.close();
        expect(await known()).toBe(403);
        const ids = String(await redis.client('LIST'))
          .split('\n')
          .filter((line) => line.includes(` name=${connectionName} `))
          .map((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1]);
        expect(ids).toHaveLength(2);
        for (const id of ids) await redis.client('KILL', 'ID', String(id));
      } finally {
        redis.disconnect();
      }
    }
    // Listening again, B dropped its caches: the client is unknown now (401), with no message about it.
    await soon('B forgets its cached client once listening again', async () => (await known()) === 401, 15_000);
    // And messages flow again.
    const deleted = await newClient('Deleted after the reconnection', true);
    expect((await clientCredentialsAt(b, deleted.id, deleted.secret)).status).toBe(200);
    expect((await adminA('DELETE', `/clients/${deleted.id}`)).status).toBe(204);
    await soon('B refuses a client deleted after the reconnection', async () => (await clientCredentialsAt(b, deleted.id, deleted.secret)).status === 401);
  });
});
