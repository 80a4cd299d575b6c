import { randomBytes } from 'node:crypto';
import {
  CompactEncrypt,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportSPKI,
  generateKeyPair,
  jwtDecrypt,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSecret } from '../src/crypto/deployment-secret.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, TEST_SECRET, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

/**
 * The server signs its JWTs (oauth/tokens.ts, oauth/jws.ts) and seals its opaque access tokens
 * (oauth/opaque-access-token.ts) by hand, for speed. These round trips hold that code to the standards through an
 * independent implementation, jose: every kind of token we sign or seal must verify or decrypt with jose, and every
 * reader of ours must accept what jose makes with the same key and refuse it once tampered with.
 */

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Flips one bit of the middle byte of the token's `part`-th segment: a real byte change, not just padding bits. */
function flipByte(token: string, part: number): string {
  const parts = token.split('.');
  const bytes = Buffer.from(parts[part] ?? '', 'base64url');
  const at = Math.floor(bytes.length / 2);
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x01, at);
  parts[part] = bytes.toString('base64url');
  const tampered = parts.join('.');
  expect(tampered).not.toBe(token);
  return tampered;
}

describe('tokens we sign or seal round-trip with jose (sqlite)', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let issuerClaim: string;
  let userinfoAudience: string;
  /** The key the opaque token codec is given (registry.ts: the deployment secret's `opaque-access-token` key). */
  const opaqueKey = deploymentSecret(TEST_SECRET).key('opaque-access-token');

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    issuerClaim = `${server.registry.issuer}/`;
    userinfoAudience = `${server.registry.issuer}/userinfo`;
  });
  afterAll(async () => server?.close());

  async function post(path: string, form: Record<string, string>) {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  /** The published key set, read over the socket as a relying party would, for jose's local verifier. */
  async function publishedKeys(): Promise<JSONWebKeySet> {
    const response = await fetch(`${server.url}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    return (await response.json()) as JSONWebKeySet;
  }

  const realmLogin = (extra: Record<string, string>) =>
    post('/oauth/token', passwordRealmForm(fx, extra));

  const userinfo = (token: string) => fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  async function expectUserinfoRefused(token: string) {
    const response = await userinfo(token);
    expect(response.status, token).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
  }

  /** The tenant's signing keys as jose sees them: the current one (to sign with) and another published kid. */
  async function tenantKeys() {
    const current = await server.registry.keys.current();
    const other = (await publishedKeys()).keys.find((key) => key.kid !== current.kid)?.kid;
    expect(other).toBeTypeOf('string');
    return { current, otherKid: other ?? '' };
  }

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  describe('tokens we make, checked by jose', () => {
    it('client-credentials access token (oauth/tokens.ts): RS256 JWT that verifies against our JWKS', async () => {
      const { status, body } = await post('/oauth/token', {
        grant_type: 'client_credentials',
        client_id: ADMIN_CLIENT_ID,
        client_secret: ADMIN_CLIENT_SECRET,
        audience: server.audience,
        scope: 'read:clients',
      });
      expect(status, JSON.stringify(body)).toBe(200);
      const { kid } = await server.registry.keys.current();
      const { payload, protectedHeader } = await jwtVerify(body.access_token ?? '', createLocalJWKSet(await publishedKeys()), {
        algorithms: ['RS256'],
        issuer: issuerClaim,
        audience: server.audience,
        typ: 'JWT',
      });
      expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid });
      expect(payload).toMatchObject({ sub: `${ADMIN_CLIENT_ID}@clients`, azp: ADMIN_CLIENT_ID, gty: 'client-credentials', scope: 'read:clients' });
      expect(payload.jti).toBeTypeOf('string');
      expect(Number(payload.exp) - Number(payload.iat)).toBe(86_400);
    });

    it('user access token for an API and RS256 ID token (oauth/jws.ts): both verify against our JWKS', async () => {
      const { status, body } = await realmLogin({ scope: 'openid email', audience: fx.api.identifier });
      expect(status, JSON.stringify(body)).toBe(200);
      const jwks = createLocalJWKSet(await publishedKeys());
      const { kid } = await server.registry.keys.current();

      const access = await jwtVerify(body.access_token ?? '', jwks, { algorithms: ['RS256'], issuer: issuerClaim, audience: fx.api.identifier, typ: 'JWT' });
      expect(access.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid });
      expect(access.payload).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId, scope: 'openid email', aud: [fx.api.identifier, userinfoAudience] });
      expect(access.payload.grant_id).toBeTypeOf('string');

      const id = await jwtVerify(body.id_token ?? '', jwks, { algorithms: ['RS256'], issuer: issuerClaim, audience: fx.web.clientId, typ: 'JWT' });
      expect(id.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid });
      expect(id.payload).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId, email: fx.user.email });
      expect(id.payload.auth_time).toBeTypeOf('number');
      expect(id.payload.at_hash).toBeTypeOf('string');
    });

    it('opaque access token (oauth/opaque-access-token.ts): a compact JWE (dir, A256GCM) that jose decrypts with the codec key', async () => {
      const { status, body } = await realmLogin({ scope: 'openid email' });
      expect(status, JSON.stringify(body)).toBe(200);
      const token = body.access_token ?? '';
      expect(token.split('.')).toHaveLength(5);
      const { payload, protectedHeader } = await jwtDecrypt(token, opaqueKey, {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        issuer: issuerClaim,
        audience: userinfoAudience,
      });
      expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM', kid: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) as string });
      expect(payload).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId, scope: 'openid email', aud: userinfoAudience });
      expect(Number(payload.exp) - Number(payload.iat)).toBe(86_400);
      // Another key does not open it.
      await expect(jwtDecrypt(token, randomBytes(32))).rejects.toThrow();
    });

    it('HS256 ID token (oauth/jws.ts): verifies with the client secret as the HMAC key', async () => {
      expect((await api('PATCH', `/clients/${fx.web.clientId}`, { jwt_configuration: { alg: 'HS256' } })).status).toBe(200);
      try {
        const { status, body } = await realmLogin({ scope: 'openid email' });
        expect(status, JSON.stringify(body)).toBe(200);
        const { payload, protectedHeader } = await jwtVerify(body.id_token ?? '', new TextEncoder().encode(fx.web.clientSecret), {
          algorithms: ['HS256'],
          issuer: issuerClaim,
          audience: fx.web.clientId,
          typ: 'JWT',
        });
        expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
        expect(payload).toMatchObject({ sub: fx.user.userId, email: fx.user.email, azp: fx.web.clientId });
        await expect(jwtVerify(body.id_token ?? '', new TextEncoder().encode(`${fx.web.clientSecret}x`))).rejects.toThrow();
      } finally {
        await api('PATCH', `/clients/${fx.web.clientId}`, { jwt_configuration: { alg: 'RS256' } });
      }
    });
  });

  describe('tokens jose makes, checked by our readers', () => {
    const userClaims = (extra: JWTPayload = {}): JWTPayload => ({
      iss: issuerClaim,
      sub: fx.user.userId,
      aud: userinfoAudience,
      azp: fx.web.clientId,
      scope: 'openid email',
      iat: nowSeconds(),
      exp: nowSeconds() + 600,
      ...extra,
    });

    const sealWithJose = (claims: JWTPayload, key: Uint8Array, kid: string) =>
      new CompactEncrypt(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid }).encrypt(key);

    it('/userinfo opens a JWE that jose sealed with the codec key, and refuses it tampered, under another key or kid', async () => {
      const ours = (await realmLogin({ scope: 'openid' })).body.access_token ?? '';
      const kid = String(decodeProtectedHeader(ours).kid);
      const sealed = await sealWithJose(userClaims(), opaqueKey, kid);
      const answered = await userinfo(sealed);
      expect(answered.status).toBe(200);
      expect(await answered.json()).toMatchObject({ sub: fx.user.userId, email: fx.user.email });

      await expectUserinfoRefused(flipByte(sealed, 2)); // initialisation vector
      await expectUserinfoRefused(flipByte(sealed, 3)); // ciphertext
      await expectUserinfoRefused(flipByte(sealed, 4)); // authentication tag
      await expectUserinfoRefused(await sealWithJose(userClaims(), randomBytes(32), kid)); // another key, our kid
      await expectUserinfoRefused(await sealWithJose(userClaims(), opaqueKey, 'another-key-id00')); // our key, another kid
      // Sealed right but for another audience: the seal is no substitute for the claim checks.
      await expectUserinfoRefused(await sealWithJose(userClaims({ aud: fx.api.identifier }), opaqueKey, kid));
    });

    it('/userinfo accepts an RS256 JWT jose signed with the current key, and refuses it tampered, under another kid, HS256 or alg none', async () => {
      const { current, otherKid } = await tenantKeys();
      const sign = (header: { alg: string; kid?: string }, key: CryptoKey | Uint8Array = current.key) =>
        new SignJWT(userClaims()).setProtectedHeader({ typ: 'JWT', ...header }).sign(key);
      const signed = await sign({ alg: 'RS256', kid: current.kid });
      const answered = await userinfo(signed);
      expect(answered.status).toBe(200);
      expect(await answered.json()).toMatchObject({ sub: fx.user.userId, email: fx.user.email });

      await expectUserinfoRefused(flipByte(signed, 2)); // signature
      await expectUserinfoRefused(flipByte(signed, 1)); // payload
      await expectUserinfoRefused(await sign({ alg: 'RS256', kid: otherKid })); // a published kid that did not sign it
      await expectUserinfoRefused(await sign({ alg: 'RS256', kid: 'no-such-kid' }));
      await expectUserinfoRefused(await sign({ alg: 'RS256' })); // no kid
      await expectUserinfoRefused(await sign({ alg: 'HS256', kid: current.kid }, new TextEncoder().encode('h'.repeat(32))));
      await expectUserinfoRefused(new UnsecuredJWT(userClaims()).encode());
    });

    it('the Management API accepts an access token jose signed with the current key, and refuses it tampered or unsigned', async () => {
      const { current, otherKid } = await tenantKeys();
      const claims = { iss: issuerClaim, sub: `${ADMIN_CLIENT_ID}@clients`, aud: server.audience, azp: ADMIN_CLIENT_ID, scope: 'read:clients', gty: 'client-credentials', iat: nowSeconds(), exp: nowSeconds() + 600 };
      const sign = (kid: string) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid }).sign(current.key);
      const signed = await sign(current.kid);
      expect((await api('GET', '/clients', undefined, signed)).status).toBe(200);
      for (const bad of [flipByte(signed, 2), await sign(otherKid), new UnsecuredJWT(claims).encode()]) {
        const refused = await api('GET', '/clients', undefined, bad);
        expect(refused.status, bad).toBe(401);
        expect(refused.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      }
    });

    it('/oidc/logout takes an ID token jose signed as id_token_hint, and refuses it tampered or unsigned', async () => {
      const { current, otherKid } = await tenantKeys();
      const claims = { iss: issuerClaim, sub: fx.user.userId, aud: fx.web.clientId, iat: nowSeconds(), exp: nowSeconds() + 600 };
      const sign = (kid: string) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid }).sign(current.key);
      const target = 'https://app.example.com/logged-out';
      const logout = (hint: string) =>
        fetch(`${server.url}/oidc/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: target }).toString()}`, { redirect: 'manual' });
      const accepted = await logout(await sign(current.kid));
      expect(accepted.status).toBe(302);
      expect(accepted.headers.get('location')).toBe(target);
      const signed = await sign(current.kid);
      for (const bad of [flipByte(signed, 2), await sign(otherKid), new UnsecuredJWT(claims).encode()]) {
        const refused = await logout(bad);
        expect(refused.status, bad).toBe(400);
        expect(refused.headers.get('location')).toBeNull();
      }
    });

    it('the token endpoint accepts a client assertion jose signed (private_key_jwt), and refuses it tampered, under another kid or unsigned', async () => {
      const created = await api('POST', '/clients', { name: 'Machine', app_type: 'non_interactive' });
      expect(created.status).toBe(201);
      const clientId = String(created.body.client_id);
      expect((await api('POST', '/client-grants', { client_id: clientId, audience: fx.api.identifier, scope: ['read:things'] })).status).toBe(201);
      const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
      const credential = await api('POST', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: await exportSPKI(publicKey), alg: 'RS256' });
      expect(credential.status, JSON.stringify(credential.body)).toBe(201);
      const kid = String(credential.body.kid);
      const enabled = await api('PATCH', `/clients/${clientId}`, { client_authentication_methods: { private_key_jwt: { credentials: [{ id: String(credential.body.id) }] } } });
      expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);

      const claims = () => ({ iss: clientId, sub: clientId, aud: issuerClaim, iat: nowSeconds(), exp: nowSeconds() + 60, jti: randomBytes(12).toString('base64url') });
      const sign = (headerKid: string) => new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: headerKid }).sign(privateKey);
      const exchange = (assertion: string) =>
        post('/oauth/token', { grant_type: 'client_credentials', audience: fx.api.identifier, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });

      const accepted = await exchange(await sign(kid));
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.access_token).toBeTypeOf('string');
      for (const bad of [flipByte(await sign(kid), 2), await sign('another-kid'), new UnsecuredJWT(claims()).encode()]) {
        const refused = await exchange(bad);
        expect(refused.status, bad).toBe(401);
        expect(refused.body.error).toBe('invalid_client');
      }
    });
  });
});
