import { createHash, createHmac } from 'node:crypto';
import { signRs256 } from '../crypto/rsa-signer.js';
import type { SigningKeys } from '../keys/signing-keys.js';

const base64urlJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs a JWT with the tenant's current RS256 key (header `{alg, typ, kid}`). */
export async function signRs256Jwt(keys: SigningKeys, payload: Record<string, unknown>, typ = 'JWT'): Promise<string> {
  const { kid, privateKey } = await keys.current();
  const input = `${base64urlJson({ alg: 'RS256', typ, kid })}.${base64urlJson(payload)}`;
  return `${input}.${(await signRs256(Buffer.from(input), privateKey)).toString('base64url')}`;
}

/** Signs a JWT with HMAC-SHA256 under a client's secret (ID tokens of clients whose jwt_configuration.alg is HS256). */
export function signHs256Jwt(secret: string, payload: Record<string, unknown>): string {
  const input = `${base64urlJson({ alg: 'HS256', typ: 'JWT' })}.${base64urlJson(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** `at_hash` / `c_hash` (OIDC Core 3.3.2.11): the left half of the SHA-256 of the ASCII value, base64url. */
export function halfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}
