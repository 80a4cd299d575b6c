import { base64UrlToBytes, base64UrlToJson, bytesToBase64Url } from '../helper/base64url.js';
import type { KeyLookup } from './jwks.js';

export interface IdTokenPayload {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  azp?: string;
  exp?: number;
  iat?: number;
  nonce?: string;
  auth_time?: number;
  at_hash?: string;
  [claim: string]: unknown;
}

export interface IdTokenExpectations {
  /** `https://<domain>/` */
  issuer: string;
  clientId: string;
  /** Seconds of clock skew allowed on `exp`, `iat` and `auth_time`. */
  leeway: number;
  nonce?: string | undefined;
  /** Seconds: the login must be this recent (`auth_time`). */
  maxAge?: number | undefined;
  /** Checked against `at_hash` when the token has one. */
  accessToken?: string | undefined;
  /** Seconds since the epoch. */
  now: number;
}

/** A failed check; its message is the `errorDescription` of the library's `invalid_token` error. */
export class IdTokenError extends Error {}

const fail = (message: string): never => {
  throw new IdTokenError(message);
};

/** Splits a JWT into its decoded header and payload without checking anything. */
export function decodeJwt(token: string): { header: { alg?: string; kid?: string; typ?: string }; payload: IdTokenPayload; signingInput: string; signature: string } {
  const parts = token.split('.');
  if (parts.length !== 3) fail('ID token could not be decoded');
  const [header, payload, signature] = parts as [string, string, string];
  try {
    return { header: base64UrlToJson(header) as { alg?: string }, payload: base64UrlToJson(payload) as IdTokenPayload, signingInput: `${header}.${payload}`, signature };
  } catch {
    return fail('ID token could not be decoded');
  }
}

/**
 * Validates an ID token as OpenID Connect Core 3.1.3.7 and 3.2.2.11 ask of a browser client: RS256 only (an
 * HS256 token is refused before any network call: the browser cannot hold the secret), the signature by the
 * issuer's published key, then issuer, audience and authorized party, times with leeway, nonce, `max_age`
 * and `at_hash`.
 */
export async function verifyIdToken(token: string, keys: KeyLookup, expected: IdTokenExpectations): Promise<IdTokenPayload> {
  const { header, payload, signingInput, signature } = decodeJwt(token);
  if (header.alg !== 'RS256') fail(`Signature algorithm of "${String(header.alg)}" is not supported. Expected the ID token to be signed with "RS256".`);
  const key = await keys(header.kid);
  if (!key) fail(`Could not find a public key for Key ID (kid) "${String(header.kid)}"`);
  const valid = await crypto.subtle.verify('RSASSA-PKCS1-v1_5', key as CryptoKey, base64UrlToBytes(signature), new TextEncoder().encode(signingInput));
  if (!valid) fail('Invalid ID token signature');
  checkClaims(payload, expected);
  if (expected.accessToken !== undefined && payload.at_hash !== undefined && payload.at_hash !== (await accessTokenHash(expected.accessToken))) {
    fail('Invalid access_token: its hash does not match at_hash of the ID token');
  }
  return payload;
}

function checkClaims(payload: IdTokenPayload, expected: IdTokenExpectations) {
  const { now, leeway } = expected;
  if (payload.iss !== expected.issuer) fail(`Issuer (iss) claim mismatch in the ID token; expected "${expected.issuer}", found "${String(payload.iss)}"`);
  if (typeof payload.sub !== 'string') fail('Subject (sub) claim must be a string present in the ID token');
  const audiences = Array.isArray(payload.aud) ? payload.aud : typeof payload.aud === 'string' ? [payload.aud] : [];
  if (!audiences.includes(expected.clientId)) {
    fail(`Audience (aud) claim mismatch in the ID token; expected "${expected.clientId}" but was not one of "${audiences.join(', ')}"`);
  }
  if (audiences.length > 1 && payload.azp !== expected.clientId) {
    fail(`Authorized Party (azp) claim mismatch in the ID token; expected "${expected.clientId}", found "${String(payload.azp)}"`);
  }
  if (typeof payload.exp !== 'number') fail('Expiration Time (exp) claim must be a number present in the ID token');
  if (now > (payload.exp as number) + leeway) {
    fail(`Expiration Time (exp) claim error in the ID token; current time (${now}) is after expiration time (${String(payload.exp)})`);
  }
  if (typeof payload.iat !== 'number') fail('Issued At (iat) claim must be a number present in the ID token');
  if (now < (payload.iat as number) - leeway) {
    fail(`Issued At (iat) claim error in the ID token; current time (${now}) is before issued at time (${String(payload.iat)})`);
  }
  if (expected.nonce !== undefined && payload.nonce !== expected.nonce) {
    fail(`Nonce (nonce) claim value mismatch in the ID token; expected "${expected.nonce}", found "${String(payload.nonce)}"`);
  }
  if (expected.maxAge !== undefined) {
    if (typeof payload.auth_time !== 'number') fail('Authentication Time (auth_time) claim must be a number present in the ID token when Max Age (max_age) is specified');
    if (now > (payload.auth_time as number) + expected.maxAge + leeway) {
      fail(`Authentication Time (auth_time) claim in the ID token indicates that too much time has passed since the last end-user authentication. Current time (${now}) is after last auth at ${String(payload.auth_time)}`);
    }
  }
}

/** OpenID Connect's `at_hash`: the left half of the access token's SHA-256, base64url. */
export async function accessTokenHash(accessToken: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken)));
  return bytesToBase64Url(digest.slice(0, digest.length / 2));
}
