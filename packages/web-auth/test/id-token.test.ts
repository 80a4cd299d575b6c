import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

type JoseKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
import { beforeAll, describe, expect, it } from 'vitest';
import { accessTokenHash, IdTokenError, verifyIdToken, type IdTokenExpectations } from '../src/web-auth/id-token.js';
import { jwksKeys, type KeyLookup } from '../src/web-auth/jwks.js';

const ISSUER = 'https://tenant.example.com/';
const CLIENT = 'client-abc';
const NOW = 1_800_000_000;

/** ID token validation in Node's WebCrypto, against a real RSA key published as a JWKS. */
describe('ID token validation', () => {
  let privateKey: JoseKey;
  let keys: KeyLookup;
  let jwksReads = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', use: 'sig', alg: 'RS256' };
    keys = jwksKeys('https://tenant.example.com/.well-known/jwks.json', async () => {
      jwksReads += 1;
      return { keys: [jwk] };
    });
  });

  const sign = (claims: JWTPayload, header: { kid?: string } = { kid: 'k1' }) =>
    new SignJWT({ iss: ISSUER, sub: 'auth0|u1', aud: CLIENT, iat: NOW - 10, exp: NOW + 3600, ...claims }).setProtectedHeader({ alg: 'RS256', ...header }).sign(privateKey);
  const expectations = (overrides: Partial<IdTokenExpectations> = {}): IdTokenExpectations => ({ issuer: ISSUER, clientId: CLIENT, leeway: 60, now: NOW, ...overrides });
  const refusal = async (token: Promise<string> | string, overrides: Partial<IdTokenExpectations> = {}) => {
    try {
      await verifyIdToken(await token, keys, expectations(overrides));
    } catch (error) {
      expect(error).toBeInstanceOf(IdTokenError);
      return (error as Error).message;
    }
    throw new Error('the token was accepted');
  };

  it('accepts a valid token and returns its claims', async () => {
    expect(await verifyIdToken(await sign({ nonce: 'n1' }), keys, expectations({ nonce: 'n1' }))).toMatchObject({ sub: 'auth0|u1', nonce: 'n1' });
  });

  it('refuses HS256 before reading any key', async () => {
    const before = jwksReads;
    const hs = await new SignJWT({ iss: ISSUER, aud: CLIENT, sub: 'x', iat: NOW, exp: NOW + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('secret-secret-secret-secret-secret'));
    expect(await refusal(hs)).toContain('"HS256" is not supported');
    expect(jwksReads).toBe(before);
  });

  it('refuses a signature by another key, an unknown kid and a tampered payload', async () => {
    const other = await generateKeyPair('RS256');
    const foreign = await new SignJWT({ iss: ISSUER, aud: CLIENT, sub: 'x', iat: NOW, exp: NOW + 60 }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(other.privateKey);
    expect(await refusal(foreign)).toBe('Invalid ID token signature');
    expect(await refusal(sign({}, { kid: 'k9' }))).toContain('Key ID (kid) "k9"');
    const [header, , signature] = (await sign({})).split('.');
    const forged = Buffer.from(JSON.stringify({ iss: ISSUER, aud: CLIENT, sub: 'admin', iat: NOW, exp: NOW + 60 })).toString('base64url');
    expect(await refusal(`${header}.${forged}.${signature}`)).toBe('Invalid ID token signature');
  });

  it('checks issuer, audience and authorized party', async () => {
    expect(await refusal(sign({ iss: 'https://evil.example.com/' }))).toContain('Issuer (iss) claim mismatch');
    expect(await refusal(sign({ aud: 'other' }))).toContain('Audience (aud) claim mismatch');
    expect(await refusal(sign({ aud: [CLIENT, 'other'], azp: 'other' }))).toContain('Authorized Party (azp)');
    expect(await verifyIdToken(await sign({ aud: [CLIENT, 'other'], azp: CLIENT }), keys, expectations())).toMatchObject({ azp: CLIENT });
  });

  it('allows clock skew up to the leeway on exp and iat, not beyond', async () => {
    const expiredRecently = await sign({ exp: NOW - 30 });
    expect(await verifyIdToken(expiredRecently, keys, expectations({ leeway: 60 }))).toBeTruthy();
    expect(await refusal(expiredRecently, { leeway: 10 })).toContain('Expiration Time (exp)');
    const issuedAhead = await sign({ iat: NOW + 30 });
    expect(await verifyIdToken(issuedAhead, keys, expectations({ leeway: 60 }))).toBeTruthy();
    expect(await refusal(issuedAhead, { leeway: 0 })).toContain('Issued At (iat)');
  });

  it('checks the nonce, max_age with auth_time, and at_hash', async () => {
    expect(await refusal(sign({ nonce: 'a' }), { nonce: 'b' })).toContain('Nonce (nonce) claim value mismatch');
    expect(await refusal(sign({}), { nonce: 'b' })).toContain('Nonce (nonce)');
    expect(await refusal(sign({}), { maxAge: 60 })).toContain('auth_time');
    expect(await refusal(sign({ auth_time: NOW - 600 }), { maxAge: 60 })).toContain('too much time has passed');
    expect(await verifyIdToken(await sign({ auth_time: NOW - 30 }), keys, expectations({ maxAge: 60 }))).toBeTruthy();
    const atHash = await accessTokenHash('access-token-1');
    expect(await verifyIdToken(await sign({ at_hash: atHash }), keys, expectations({ accessToken: 'access-token-1' }))).toBeTruthy();
    expect(await refusal(sign({ at_hash: atHash }), { accessToken: 'another-token' })).toContain('at_hash');
  });

  it('computes at_hash as OpenID Connect defines it', async () => {
    // OpenID Connect Core A.3 example: access token "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y" -> "77QmUPtjPfzWtF2AnpK9RQ".
    expect(await accessTokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });
});
