import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamClient, UpstreamError, type ProviderEndpoints } from '../src/oauth/upstream/client.js';
import { upstreamSettings, type UpstreamSettings } from '../src/services/connection-options/upstream.js';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/**
 * The upstream ID token checks, each with a token altered in one way: only a signature by a key the provider
 * publishes counts, and the issuer, audience, nonce and times must be this login's. The provider's JWKS is
 * served on a real socket.
 */
describe('upstream ID token validation', () => {
  let jwksServer: Server;
  let endpoints: ProviderEndpoints;
  let settings: UpstreamSettings;
  let providerKey: Key;
  let strangerKey: Key;
  const client = upstreamClient({ now: () => new Date() });
  const issuer = 'https://provider.example.com';

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    providerKey = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256')).privateKey;
    const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'provider-key', use: 'sig', alg: 'RS256' }] };
    jwksServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;
    endpoints = { issuer, authorizationEndpoint: `${issuer}/authorize`, jwksUri };
    const read = upstreamSettings({ strategy: 'oidc', options: { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: jwksUri, client_id: 'latchkey', client_secret: 's' } }, true);
    if (!read.settings) throw new Error(read.problems.join('; '));
    settings = read.settings;
  });
  afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

  const token = (claims: JWTPayload, key: Key = providerKey) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, aud: 'latchkey', sub: 'u1', nonce: 'n1', iat: now, exp: now + 300, ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'provider-key' }).sign(key);
  };
  const refusal = async (idToken: string, nonce = 'n1') => {
    const error = await client.verifyIdToken(settings, endpoints, idToken, nonce).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    return (error as Error).message;
  };

  it('accepts the provider’s token for this login', async () => {
    expect(await client.verifyIdToken(settings, endpoints, await token({}), 'n1')).toMatchObject({ sub: 'u1' });
  });

  it('refuses another key, even one the token names or embeds', async () => {
    expect(await refusal(await token({}, strangerKey))).toContain('signature');
    const embedded = await new SignJWT({ iss: issuer, aud: 'latchkey', sub: 'u1', nonce: 'n1', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: 'RS256', jwk: await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey) })
      .sign(strangerKey);
    expect(await refusal(embedded)).toBeTruthy();
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer, aud: 'latchkey', sub: 'u1', nonce: 'n1' })).toString('base64url')}.`;
    expect(await refusal(unsigned)).toBeTruthy();
  });

  it('refuses another issuer, audience or nonce, an expired token, and one for several parties without azp', async () => {
    expect(await refusal(await token({ iss: 'https://evil.example.com' }))).toContain('iss');
    expect(await refusal(await token({ aud: 'someone-else' }))).toContain('aud');
    expect(await refusal(await token({}), 'another-login')).toContain('nonce');
    expect(await refusal(await token({ exp: Math.floor(Date.now() / 1000) - 600 }))).toContain('exp');
    expect(await refusal(await token({ aud: ['latchkey', 'other'], azp: 'other' }))).toContain('azp');
  });
});
