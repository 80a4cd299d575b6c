import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('POST /oauth/token client_credentials (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
  });
  afterAll(async () => server?.close());

  const post = (body: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('issues an RS256 access token over a real socket with a form body (client_secret_post)', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, scope: 'read:prompts update:prompts' });
    const response = await post(form.toString());
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 86400, scope: 'read:prompts update:prompts' });
    const token = String(body.access_token);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: `${server.url}/`,
      sub: `${ADMIN_CLIENT_ID}@clients`,
      aud: server.audience,
      azp: ADMIN_CLIENT_ID,
      gty: 'client-credentials',
      scope: 'read:prompts update:prompts',
    });
    expect(typeof claims.jti).toBe('string');
    expect(Number(claims.exp) - Number(claims.iat)).toBe(86400);
  });
});
