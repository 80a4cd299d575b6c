/** A public signing key as the issuer's JWKS lists it. */
export interface PublicJwk {
  kid?: string;
  kty: string;
  n?: string;
  e?: string;
  alg?: string;
  use?: string;
}

export type KeyLookup = (kid: string | undefined) => Promise<CryptoKey | undefined>;

/**
 * The issuer's keys from `/.well-known/jwks.json`, imported once for WebCrypto. A `kid` not seen yet reads the
 * set again (the issuer rotated its keys), at most once per lookup.
 */
export function jwksKeys(jwksUrl: string, fetchJson: (url: string) => Promise<unknown> = defaultFetchJson): KeyLookup {
  let keys: Promise<Map<string, CryptoKey>> | undefined;
  const load = async () => {
    const set = (await fetchJson(jwksUrl)) as { keys?: PublicJwk[] };
    const imported = new Map<string, CryptoKey>();
    for (const jwk of set.keys ?? []) {
      if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e || (jwk.use !== undefined && jwk.use !== 'sig')) continue;
      const key = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ext: true }, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
      imported.set(jwk.kid ?? '', key);
    }
    return imported;
  };
  return async (kid) => {
    keys ??= load();
    let found = (await keys).get(kid ?? '');
    if (!found) {
      keys = load();
      found = (await keys).get(kid ?? '');
    }
    return found;
  };
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the JWKS answered ${response.status}`);
  return response.json();
}
