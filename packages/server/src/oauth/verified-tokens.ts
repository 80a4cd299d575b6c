/**
 * Remembers access tokens whose signature (or seal) and claims were verified, so that an application polling
 * `/userinfo` with the same token pays for one RSA verification or decryption, not one per call. Keyed by the whole token
 * string: a hit is the very token that was verified. An entry lasts until the token expires, and at most
 * `maxAgeSeconds`; the owner clears the cache when the signing keys change (a revoked key must stop its tokens at
 * once). Bounded; the oldest entries go first.
 */
export function verifiedTokenCache<T extends { exp?: number | undefined }>(options: { limit?: number; maxAgeSeconds?: number; nowSeconds?: () => number } = {}) {
  const limit = options.limit ?? 10_000;
  const maxAge = options.maxAgeSeconds ?? 30;
  const now = options.nowSeconds ?? (() => Date.now() / 1000);
  const entries = new Map<string, { claims: T; until: number }>();
  return {
    clear(): void {
      entries.clear();
    },
    get(token: string): T | undefined {
      const hit = entries.get(token);
      if (hit === undefined) return undefined;
      if (hit.until <= now()) {
        entries.delete(token);
        return undefined;
      }
      return hit.claims;
    },
    set(token: string, claims: T): void {
      if (claims.exp === undefined) return;
      if (entries.size >= limit) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(token, { claims, until: Math.min(claims.exp, now() + maxAge) });
    },
  };
}
