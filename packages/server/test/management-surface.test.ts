import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { DIALECTS, REDIS_URL, redisAvailable } from './support/services.js';

const INVALID_SIGNATURE = 'Invalid signature received for JSON Web Token validation';

interface OpenApiOperation {
  operationId?: string;
  parameters?: { name: string }[];
  security?: Record<string, string[]>[];
  'x-release-lifecycle'?: string;
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { securitySchemes: Record<string, { type: string; flows?: { clientCredentials?: { tokenUrl: string; scopes: Record<string, string> } } }> };
}

describe.each(DIALECTS)('Management API bearer tokens (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
  });
  afterAll(async () => server?.close());

  const call = (authorization?: string) =>
    fetch(`${server.url}/api/v2/keys/signing`, { headers: authorization ? { authorization } : {} });
  const expect401 = async (authorization: string | undefined, message: string) => {
    const response = await call(authorization);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message, errorCode: 'invalid_token' });
  };
  const signWithCurrentKey = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) => {
    const { kid, key } = await server.registry.keys.current();
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, ...header }).sign(key);
  };
  const validClaims = () => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: `${server.url}/`, aud: server.audience, sub: 'x@clients', scope: 'read:signing_keys', iat: now, exp: now + 60 };
  };

  it('accepts a valid token over a real socket', async () => {
    const response = await call(`Bearer ${await server.token()}`);
    expect(response.status).toBe(200);
    expect(await signWithCurrentKey(validClaims()).then((token) => call(`Bearer ${token}`)).then((r) => r.status)).toBe(200);
  });

  it('401 Missing authentication without a header', async () => {
    await expect401(undefined, 'Missing authentication');
  });

  it('401 for a tampered signature', async () => {
    const token = await server.token();
    const [header, payload, signature = ''] = token.split('.');
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    await expect401(`Bearer ${header}.${payload}.${flipped}`, INVALID_SIGNATURE);
  });

  it('401 for a token signed by a key that is not the tenant’s (same kid or unknown kid)', async () => {
    const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
    const { kid } = await server.registry.keys.current();
    const forgedSameKid = await new SignJWT(validClaims()).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    await expect401(`Bearer ${forgedSameKid}`, INVALID_SIGNATURE);
    const forgedOtherKid = await new SignJWT(validClaims()).setProtectedHeader({ alg: 'RS256', kid: 'someone-else' }).sign(privateKey);
    await expect401(`Bearer ${forgedOtherKid}`, INVALID_SIGNATURE);
  });

  it('401 Expired token beyond the leeway; a few seconds of skew are tolerated', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expect401(`Bearer ${await signWithCurrentKey({ ...validClaims(), iat: now - 120, exp: now - 60 })}`, 'Expired token received for JSON Web Token validation');
    const skewed = await signWithCurrentKey({ ...validClaims(), iat: now - 120, exp: now - 2 });
    expect((await call(`Bearer ${skewed}`)).status).toBe(200);
  });

  it('401 Invalid token for HS256, alg none, wrong issuer, wrong audience, future nbf, garbage', async () => {
    const hs256 = await new SignJWT(validClaims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    await expect401(`Bearer ${hs256}`, 'Invalid token');
    await expect401(`Bearer ${new UnsecuredJWT(validClaims()).encode()}`, 'Invalid token');
    await expect401(`Bearer ${await signWithCurrentKey({ ...validClaims(), iss: 'https://elsewhere/' })}`, 'Invalid token');
    await expect401(`Bearer ${await signWithCurrentKey({ ...validClaims(), aud: 'https://api.example/' })}`, 'Invalid token');
    await expect401(`Bearer ${await signWithCurrentKey({ ...validClaims(), nbf: Math.floor(Date.now() / 1000) + 600 })}`, 'Invalid token');
    await expect401('Bearer not-a-jwt', 'Invalid token');
    await expect401(`Basic ${Buffer.from('a:b').toString('base64')}`, 'Bad HTTP authentication header format');
  });

  it('403 lists every accepted scope, comma-separated without spaces', async () => {
    const response = await fetch(`${server.url}/api/v2/keys/signing/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await server.token('read:signing_keys')}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient scope, expected any of: create:signing_keys,update:signing_keys',
      errorCode: 'insufficient_scope',
    });
  });

  it('unknown routes, malformed JSON and wrong media types keep the Management error shape', async () => {
    const token = await server.token();
    const notFound = await fetch(`${server.url}/api/v2/no-such-thing`, { headers: { authorization: `Bearer ${token}` } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const badJson = await fetch(`${server.url}/api/v2/prompts/rendering`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"configs": [',
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Invalid request payload JSON format', errorCode: 'invalid_body' });
    const wrongType = await fetch(`${server.url}/api/v2/prompts/rendering`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
      body: '<configs/>',
    });
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ statusCode: 415, errorCode: 'unsupported_media_type' });
  });

  it('serves the OpenAPI 3.1 document generated from the route schemas', async () => {
    const response = await fetch(`${server.url}/api/v2/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApiDocument;
    expect(document.openapi).toBe('3.1.0');
    const list = document.paths['/api/v2/prompts/rendering']?.get;
    expect(list?.operationId).toBe('get_all_rendering');
    expect(list?.parameters?.map((parameter) => parameter.name).sort()).toEqual(
      ['fields', 'include_fields', 'include_totals', 'page', 'per_page', 'prompt', 'rendering_mode', 'screen'],
    );
    expect(document.paths['/oauth/token']?.post).toBeDefined();
  });

  it('OpenAPI: the list operation is generally available, documents the statuses of the spec with their bodies, and every operation names its scopes', async () => {
    const document = (await (await fetch(`${server.url}/api/v2/openapi.json`)).json()) as OpenApiDocument;
    const list = document.paths['/api/v2/prompts/rendering']?.get;
    expect(list?.['x-release-lifecycle']).toBe('GA');
    for (const status of ['400', '401', '402', '403', '429']) {
      const answer = list?.responses[status];
      expect(answer?.description, status).not.toBe('Default Response');
      expect(Object.keys(answer?.content?.['application/json']?.schema.properties ?? {}).sort(), status).toEqual(['error', 'errorCode', 'message', 'statusCode']);
    }
    expect(list?.responses['403']?.description).toContain('read:prompts');
    expect(Object.keys(list?.responses['429']?.headers ?? {}).sort()).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

    // The bearer scheme and the client credentials grant that obtains its tokens, with the scope catalogue.
    const schemes = document.components.securitySchemes;
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.oAuth2ClientCredentials).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${server.url}/oauth/token` } } });
    const declared = Object.keys(schemes.oAuth2ClientCredentials?.flows?.clientCredentials?.scopes ?? {});
    expect(list?.security).toEqual([{ bearerAuth: ['read:prompts'] }, { oAuth2ClientCredentials: ['read:prompts'] }]);

    // Every Management API operation: its scopes (any one of them) and a lifecycle label of the spec's list.
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v2/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ name: `${method} ${path}`, operation })));
    expect(operations.length).toBeGreaterThan(40);
    for (const { name, operation } of operations) {
      expect(['EA', 'GA', 'deprecated', 'planned', 'beta'], name).toContain(operation['x-release-lifecycle']);
      const scopes = (operation.security ?? []).flatMap((requirement) => Object.values(requirement).flat());
      expect(scopes.length, name).toBeGreaterThan(0);
      for (const scope of scopes) expect(declared, `${name}: ${scope}`).toContain(scope);
    }
    expect(document.paths['/api/v2/users/{id}']?.patch?.security).toContainEqual({ bearerAuth: ['update:current_user_metadata'] });
    expect(document.paths['/oauth/token']?.post?.security).toBeUndefined();
  });
});

describe('Management API rate limit (memory)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_MGMT_RATE_LIMIT: '3/m burst 5' } });
  });
  afterAll(async () => server?.close());

  it('counts every response down, allows the burst, then answers 429 before checking the token', async () => {
    const token = await server.token();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await fetch(`${server.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
      remaining.push(String(response.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await fetch(`${server.url}/api/v2/keys/signing`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Global limit has been reached', errorCode: 'too_many_requests' });
  });
});

describe.runIf(redisAvailable)('Management API rate limit shared through Redis', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_MGMT_RATE_LIMIT: '3/m', REDIS_URL } });
    second = await startTestServer({ dialect: 'sqlite', listen: true, shareWith: first });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('two nodes of one tenant share one counter', async () => {
    const token = await first.token();
    const get = (node: TestServer) => fetch(`${node.url}/api/v2/keys/signing`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(first)).status).toBe(200);
    expect((await get(second)).status).toBe(200);
    const third = await get(first);
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
    const fourth = await get(second);
    expect(fourth.status).toBe(429);
  });
});
