import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, exportJWK, importJWK, importPKCS8, type JWK } from 'jose';
import { open, seal } from '../crypto/secret-box.js';
import type { SigningKeyStatus } from '../storage/schema.js';
import type { SigningKeyRow } from '../storage/repositories/signing-keys.js';
import type { Storage } from '../storage/storage.js';

const generateRsa = promisify(generateKeyPair);

/** Public JWK as published in the JWKS document. */
export interface PublishedJwk {
  kid: string;
  kty: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

/** The Management API's view of a key. */
export interface SigningKeyView {
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

interface LoadedKey {
  row: SigningKeyRow;
  verifyKey: CryptoKey;
  signKey?: { key: CryptoKey; privateKey: KeyObject };
}

export class SigningKeyError extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_revocable',
    message: string,
  ) {
    super(message);
  }
}

export interface SigningKeysOptions {
  storage: Storage;
  tenantId: string;
  sealingKey: Buffer;
  now: () => Date;
  /**
   * How long a process trusts its cached key set before reading it again. A change by this process, or by another
   * node that a change bus reports, drops it at once; this is the fallback when no bus runs.
   */
  cacheMillis?: number;
}

/**
 * The tenant's RS256 signing keys: `current` signs, `next` is published ahead of its turn, `previous` keys stay
 * published (tokens they signed keep verifying) until revoked. Private parts are sealed at rest.
 */
export function signingKeys(options: SigningKeysOptions) {
  const { storage, tenantId, sealingKey, now } = options;
  const cacheMillis = options.cacheMillis ?? 30_000;
  let cache: { loadedAt: number; keys: Map<string, LoadedKey>; current: LoadedKey | undefined } | undefined;
  let loading: Promise<NonNullable<typeof cache>> | undefined;
  // Bumped when the stored keys change: a read that began before must not become the cache.
  let generation = 0;
  const invalidated: (() => void)[] = [];
  storage.onChange((table) => {
    if (table !== 'signing_keys') return;
    generation += 1;
    cache = undefined;
    loading = undefined;
    for (const listener of invalidated) listener();
  });

  async function newKeyRow(status: SigningKeyStatus, at: string): Promise<SigningKeyRow> {
    const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    const published: PublishedJwk = { kid, kty: 'RSA', use: 'sig', alg: 'RS256', n: String(jwk.n), e: String(jwk.e) };
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    return {
      tenant_id: tenantId,
      kid,
      status,
      public_jwk: JSON.stringify(published),
      private_key_sealed: seal(sealingKey, pem),
      created_at: at,
      current_since: status === 'current' ? at : null,
      current_until: null,
      revoked_at: null,
    };
  }

  async function load(): Promise<NonNullable<typeof cache>> {
    const startedAt = generation;
    const rows = await storage.signingKeys.list(tenantId);
    const keys = new Map<string, LoadedKey>();
    let current: LoadedKey | undefined;
    for (const row of rows) {
      if (row.status === 'revoked') continue;
      const verifyKey = (await importJWK(JSON.parse(row.public_jwk) as JWK, 'RS256')) as CryptoKey;
      const loaded: LoadedKey = { row, verifyKey };
      if (row.status === 'current') {
        const pem = open(sealingKey, row.private_key_sealed);
        // The same private key twice: a CryptoKey for jose, a KeyObject for node:crypto (the token path).
        loaded.signKey = { key: await importPKCS8(pem, 'RS256'), privateKey: createPrivateKey(pem) };
        current = loaded;
      }
      keys.set(row.kid, loaded);
    }
    const loaded = { loadedAt: Date.now(), keys, current };
    if (startedAt === generation) cache = loaded;
    return loaded;
  }

  async function keySet(force = false) {
    if (!force && cache && Date.now() - cache.loadedAt < cacheMillis) return cache;
    if (loading) return loading;
    const started = load().finally(() => {
      if (loading === started) loading = undefined;
    });
    loading = started;
    return started;
  }

  function view(row: SigningKeyRow): SigningKeyView {
    return {
      kid: row.kid,
      thumbprint: row.kid,
      current: row.status === 'current',
      next: row.status === 'next',
      previous: row.status === 'previous',
      revoked: row.status === 'revoked',
      ...(row.current_since ? { current_since: row.current_since } : {}),
      ...(row.current_until ? { current_until: row.current_until } : {}),
      ...(row.revoked_at ? { revoked_at: row.revoked_at } : {}),
    };
  }

  return {
    /**
     * Calls `listener` whenever the stored keys change (here or, with a change bus, on another node): whoever keeps
     * what a key verified must forget it, since the key may just have been revoked.
     */
    onKeysChanged(listener: () => void): void {
      invalidated.push(listener);
    },

    /** Makes sure a current and a next key exist (run at start, under the bootstrap lock). */
    async ensure(): Promise<void> {
      await storage.exclusive(`latchkey:keys:${tenantId}`, async (repos) => {
        const rows = await repos.signingKeys.list(tenantId);
        const at = now().toISOString();
        if (!rows.some((row) => row.status === 'current')) await repos.signingKeys.insert(await newKeyRow('current', at));
        if (!rows.some((row) => row.status === 'next')) await repos.signingKeys.insert(await newKeyRow('next', at));
      });
      await keySet(true);
    },

    /**
     * Reads the stored keys now and opens the current private key: throws when LATCHKEY_SECRET cannot open it.
     * Run at start before anything else is written, so that a misconfigured node stops without side effects.
     */
    async reload(): Promise<void> {
      await keySet(true);
    },

    /** The key that signs now, as a WebCrypto key (`key`, for jose) and as a node:crypto `privateKey`. */
    async current(): Promise<{ kid: string; key: CryptoKey; privateKey: KeyObject }> {
      const set = await keySet();
      if (!set.current?.signKey) throw new Error('no current signing key: was ensure() run at start?');
      return { kid: set.current.row.kid, ...set.current.signKey };
    },

    /** The published key with this `kid`, re-reading storage once when it is unknown (another node rotated). */
    async verificationKey(kid: string): Promise<CryptoKey | undefined> {
      const set = await keySet();
      const found = set.keys.get(kid);
      if (found) return found.verifyKey;
      if (Date.now() - set.loadedAt < 1000) return undefined;
      return (await keySet(true)).keys.get(kid)?.verifyKey;
    },

    async jwks(): Promise<{ keys: PublishedJwk[] }> {
      const set = await keySet();
      return { keys: [...set.keys.values()].map((key) => JSON.parse(key.row.public_jwk) as PublishedJwk) };
    },

    async list(): Promise<SigningKeyView[]> {
      return (await storage.signingKeys.list(tenantId)).map(view);
    },

    async get(kid: string): Promise<SigningKeyView> {
      const row = (await storage.signingKeys.list(tenantId)).find((candidate) => candidate.kid === kid);
      if (!row) throw new SigningKeyError('not_found', 'The signing key does not exist.');
      return view(row);
    },

    /** next -> current, current -> previous, and a fresh next. Returns the new current key. */
    async rotate(): Promise<SigningKeyView> {
      const fresh = await newKeyRow('next', now().toISOString());
      const kid = await storage.exclusive(`latchkey:keys:${tenantId}`, async (repos) => {
        const at = now().toISOString();
        const rows = await repos.signingKeys.list(tenantId);
        const current = rows.find((row) => row.status === 'current');
        const next = rows.find((row) => row.status === 'next');
        if (current) await repos.signingKeys.setStatus(tenantId, current.kid, 'previous', { current_until: at });
        let promoted = next?.kid;
        if (next) {
          await repos.signingKeys.setStatus(tenantId, next.kid, 'current', { current_since: at });
        } else {
          const row = await newKeyRow('current', at);
          await repos.signingKeys.insert(row);
          promoted = row.kid;
        }
        await repos.signingKeys.insert(fresh);
        return promoted as string;
      });
      await keySet(true);
      return this.get(kid);
    },

    /** Withdraws a previous key: tokens it signed stop verifying. */
    async revoke(kid: string): Promise<SigningKeyView> {
      await storage.exclusive(`latchkey:keys:${tenantId}`, async (repos) => {
        const row = (await repos.signingKeys.list(tenantId)).find((candidate) => candidate.kid === kid);
        if (!row) throw new SigningKeyError('not_found', 'The signing key does not exist.');
        if (row.status === 'revoked') return;
        if (row.status !== 'previous') {
          throw new SigningKeyError('not_revocable', 'Only a previous signing key can be revoked; rotate first.');
        }
        await repos.signingKeys.setStatus(tenantId, kid, 'revoked', { revoked_at: now().toISOString() });
      });
      await keySet(true);
      return this.get(kid);
    },
  };
}

export type SigningKeys = ReturnType<typeof signingKeys>;
