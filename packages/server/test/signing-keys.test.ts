import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSecret } from '../src/crypto/deployment-secret.js';
import { signingKeys } from '../src/keys/signing-keys.js';
import type { Storage } from '../src/storage/storage.js';
import { testDatabase } from './support/databases.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, TEST_SECRET, type TestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

interface KeyView {
  kid: string;
  thumbprint: string;
  current: boolean;
  next: boolean;
  previous: boolean;
  revoked: boolean;
  current_since?: string;
  current_until?: string;
  revoked_at?: string;
}

describe.each(DIALECTS)('signing keys over HTTP (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
  });
  afterAll(async () => server?.close());

  /** A freshly minted Management API token (the harness caches its own; these must follow rotations). */
  const mint = async (scope?: string) => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, ...(scope ? { scope } : {}) },
    });
    expect(response.statusCode).toBe(200);
    return String((response.json() as { access_token: string }).access_token);
  };
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, token: string) => {
    const response = await server.app.inject({ method, url: `/api/v2${url}`, headers: { authorization: `Bearer ${token}` } });
    return { status: response.statusCode, body: response.json() as unknown, headers: response.headers };
  };
  const listKeys = async (token: string) => {
    const { status, body } = await api('GET', '/keys/signing', token);
    expect(status).toBe(200);
    return body as KeyView[];
  };
  const jwks = async () => {
    const response = await server.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(response.statusCode).toBe(200);
    return response.json() as { keys: JWK[] };
  };
  const kidOf = (token: string) => String(decodeProtectedHeader(token).kid);

  // The tests below build on each other: start (current + next), rotate, revoke.
  let firstToken: string;
  let initial: KeyView[];

  it('publishes the current and next public keys at /.well-known/jwks.json (real socket)', async () => {
    const response = await fetch(`${server.url}/.well-known/jwks.json`, { headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { keys: JWK[] };
    expect(Object.keys(body)).toEqual(['keys']);
    expect(body.keys).toHaveLength(2);
    for (const key of body.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
      expect(Buffer.from(String(key.n), 'base64url').length * 8).toBe(2048);
      // The kid is the key's RFC 7638 thumbprint, so it names that key and no other.
      expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'RSA', n: String(key.n), e: String(key.e) }));
    }
  });

  it('lists the keys in the Management API with current and next flags', async () => {
    firstToken = await mint();
    initial = await listKeys(firstToken);
    expect(initial).toHaveLength(2);
    const current = initial.find((key) => key.current);
    const next = initial.find((key) => key.next);
    expect(current).toMatchObject({ current: true, next: false, previous: false, revoked: false });
    expect(current?.thumbprint).toBe(current?.kid);
    expect(Date.parse(String(current?.current_since))).not.toBeNaN();
    expect(next).toEqual({ kid: next?.kid, thumbprint: next?.kid, current: false, next: true, previous: false, revoked: false });
    expect(new Set(initial.map((key) => key.kid))).toEqual(new Set((await jwks()).keys.map((key) => key.kid)));
    // Tokens are signed by the current key and verify against the published set, as a relying party checks them.
    expect(kidOf(firstToken)).toBe(current?.kid);
    const verified = await jwtVerify(firstToken, createLocalJWKSet(await jwks()), { algorithms: ['RS256'], audience: server.audience, issuer: `${server.url}/` });
    expect(verified.payload.sub).toBe(`${ADMIN_CLIENT_ID}@clients`);

    const single = await api('GET', `/keys/signing/${current?.kid}`, firstToken);
    expect(single).toMatchObject({ status: 200, body: current });
    const missing = await api('GET', '/keys/signing/no-such-kid', firstToken);
    expect(missing).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'The signing key does not exist.' } });
  });

  it('rotation needs a write scope', async () => {
    const readOnly = await api('POST', '/keys/signing/rotate', await mint('read:signing_keys'));
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toMatchObject({ message: 'Insufficient scope, expected any of: create:signing_keys,update:signing_keys', errorCode: 'insufficient_scope' });
    expect((await listKeys(firstToken)).map((key) => key.kid)).toEqual(initial.map((key) => key.kid));
  });

  let rotatedOut: string;
  let promoted: string;

  it('rotates: next becomes current (201), current becomes previous and stays published, a fresh next appears', async () => {
    rotatedOut = String(initial.find((key) => key.current)?.kid);
    promoted = String(initial.find((key) => key.next)?.kid);
    const rotated = await api('POST', '/keys/signing/rotate', firstToken);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ kid: promoted, current: true, next: false, previous: false, revoked: false });

    const keys = await listKeys(firstToken);
    expect(keys).toHaveLength(3);
    const previous = keys.find((key) => key.kid === rotatedOut);
    expect(previous).toMatchObject({ previous: true, current: false, revoked: false });
    expect(Date.parse(String(previous?.current_until))).toBeGreaterThanOrEqual(Date.parse(String(previous?.current_since)));
    expect(keys.find((key) => key.kid === promoted)).toMatchObject({ current: true });
    const fresh = keys.find((key) => key.next);
    expect(fresh && [rotatedOut, promoted].includes(fresh.kid)).toBe(false);
    expect(new Set((await jwks()).keys.map((key) => key.kid))).toEqual(new Set([rotatedOut, promoted, fresh?.kid]));
  });

  it('tokens signed before the rotation still work; new tokens are signed by the promoted key', async () => {
    expect(kidOf(firstToken)).toBe(rotatedOut);
    expect((await api('GET', '/keys/signing', firstToken)).status).toBe(200);
    const fresh = await mint();
    expect(kidOf(fresh)).toBe(promoted);
    expect((await api('GET', '/keys/signing', fresh)).status).toBe(200);
  });

  it('revokes only a previous key: current or next → 400, unknown kid → 404', async () => {
    const token = await mint();
    const keys = await listKeys(token);
    for (const kid of [promoted, String(keys.find((key) => key.next)?.kid)]) {
      const refused = await api('PUT', `/keys/signing/${kid}/revoke`, token);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Only a previous signing key can be revoked; rotate first.', errorCode: 'invalid_operation' });
    }
    const unknown = await api('PUT', '/keys/signing/no-such-kid/revoke', token);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, message: 'The signing key does not exist.' });
    expect(await listKeys(token)).toEqual(keys);
  });

  it('after revoking, the key leaves the JWKS and the tokens it signed get 401 (real socket)', async () => {
    const token = await mint();
    const revoked = await fetch(`${server.url}/api/v2/keys/signing/${rotatedOut}/revoke`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(200);
    const body = (await revoked.json()) as KeyView;
    expect(body).toMatchObject({ kid: rotatedOut, revoked: true, previous: false, current: false });
    expect(Date.parse(String(body.revoked_at))).not.toBeNaN();

    expect((await jwks()).keys.map((key) => key.kid)).not.toContain(rotatedOut);
    const rejected = await fetch(`${server.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${firstToken}` } });
    expect(rejected.status).toBe(401);
    expect(rejected.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await rejected.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid signature received for JSON Web Token validation',
      errorCode: 'invalid_token',
    });
    // Still listed (as revoked); revoking again changes nothing.
    expect((await listKeys(token)).find((key) => key.kid === rotatedOut)).toMatchObject({ revoked: true });
    const again = await api('PUT', `/keys/signing/${rotatedOut}/revoke`, token);
    expect(again).toMatchObject({ status: 200, body: { kid: rotatedOut, revoked: true, revoked_at: body.revoked_at } });
  });

  it('keeps private keys sealed at rest', async () => {
    const { storage, tenantId } = server.registry;
    const rows = await storage.signingKeys.list(tenantId);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const stored = JSON.stringify(row);
      expect(stored).not.toContain('PRIVATE KEY');
      // A PKCS#8 key in base64 starts with "MII"; random ciphertext may contain those letters anywhere else.
      for (const part of row.private_key_sealed.split('.')) expect(part.startsWith('MII')).toBe(false);
      expect(row.private_key_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]{1000,}$/);
      expect(Object.keys(JSON.parse(row.public_jwk) as object).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
  });

  it('a node with a different LATCHKEY_SECRET refuses to start with a clear error, and changes nothing', async () => {
    const before = await listKeys(await mint());
    const wrong = startTestServer({ dialect, shareWith: server, env: { LATCHKEY_SECRET: 'a-different-deployment-secret-0123456789abcdef' } });
    await expect(wrong).rejects.toThrow('cannot open a sealed value: LATCHKEY_SECRET differs from the one it was sealed with');
    // The running node is unaffected: its admin credentials still work and its keys are as they were.
    expect(await listKeys(await mint())).toEqual(before);
  });
});

/**
 * Several key sets over their own connections to one database, as several server processes have. Node B keeps
 * its cache for a minute, so only the re-read on an unknown kid can show it a new key; node C keeps it for one
 * second (servers: 30 s), so the time another node takes to notice a revocation can be checked quickly. The
 * server processes themselves are exercised in multi-node.test.ts.
 */
describe('signing keys shared by several nodes', () => {
  const SHORT_CACHE = 1000;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const kids = async (node: { jwks(): Promise<{ keys: { kid: string }[] }> }) => (await node.jwks()).keys.map((key) => key.kid);

  it.concurrent.each(DIALECTS)('%s: one key pair at start, new keys found on an unknown kid, revocation noticed when the cache expires', async (dialect) => {
    const database = testDatabase(dialect);
    const storages = [await database.open()];
    try {
      storages.push(await database.open({ migrate: false }), await database.open({ migrate: false }));
      const [storageA, storageB, storageC] = storages as [Storage, Storage, Storage];
      await storageA.tenants.insertIfMissing('shared', {}, new Date().toISOString());
      const options = { tenantId: 'shared', sealingKey: deploymentSecret(TEST_SECRET).key('signing-key-seal'), now: () => new Date() };
      const a = signingKeys({ ...options, storage: storageA });
      const b = signingKeys({ ...options, storage: storageB, cacheMillis: 60_000 });
      const c = signingKeys({ ...options, storage: storageC, cacheMillis: SHORT_CACHE });

      // All start at once (on SQLite, connections in one process would block each other: one after the other).
      if (dialect === 'postgres') await Promise.all([a.ensure(), b.ensure(), c.ensure()]);
      else for (const node of [a, b, c]) await node.ensure();
      const keys = await a.list();
      expect(keys.map((key) => (key.current ? 'current' : key.next ? 'next' : 'other')).sort()).toEqual(['current', 'next']);
      for (const node of [b, c]) {
        expect((await node.current()).kid).toBe((await a.current()).kid);
        expect(await kids(node)).toEqual(await kids(a));
      }

      // A rotates twice. The first promoted key was published as next, so B knew it already; the second is one B
      // has never seen: B re-reads storage when it meets that kid instead of rejecting the token.
      const old = (await a.current()).kid;
      const loadedAt = Date.now();
      await b.reload();
      const first = (await a.rotate()).kid;
      expect(await b.verificationKey(first)).toBeDefined();
      const second = (await a.rotate()).kid;
      await sleep(Math.max(0, loadedAt + 1100 - Date.now())); // unknown kids re-read storage at most once a second
      expect(await b.verificationKey(second)).toBeDefined();
      expect((await b.current()).kid).toBe(second);
      expect(await kids(b)).toEqual(expect.arrayContaining([old, first, second]));
      expect(await b.verificationKey(old)).toBeDefined();
      expect(await b.verificationKey('no-such-kid')).toBeUndefined();

      // A revokes the oldest key: A stops accepting it at once, C once its cache has expired.
      expect(await c.verificationKey(old)).toBeDefined();
      await a.revoke(old);
      expect(await a.verificationKey(old)).toBeUndefined();
      expect(await kids(a)).not.toContain(old);
      await sleep(SHORT_CACHE + 100);
      expect(await c.verificationKey(old)).toBeUndefined();
      expect(await kids(c)).toEqual(await kids(a));
    } finally {
      for (const storage of storages.reverse()) await storage.close();
      await database.cleanup();
    }
  });
});
