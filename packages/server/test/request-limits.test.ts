import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSamlMessage, MAX_INFLATED_SAML_BYTES } from '../src/oauth/saml/xml.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

/** `{"a":{"a":…1…}}` nested `depth` levels, written as text: JSON.stringify itself cannot build the deep ones. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('limits on JSON bodies and metadata, over a real socket', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let token: string;
  const send = async (method: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const management = (method: string, path: string, body: string) => send(method, `/api/v2${path}`, body, { authorization: `Bearer ${token}` });
  const refusedBody = (message: string) => ({ statusCode: 400, error: 'Bad Request', message, errorCode: 'invalid_body' });

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    token = await server.token();
  });
  afterAll(async () => server?.close());

  it('refuses a body nested deeper than 32 levels with a 400 in each surface’s shape, before anything is stored', async () => {
    const tooDeep = 'The JSON body is nested more than 32 levels deep.';
    // 20,000 levels overflow JSON.stringify; 40 would be stored and then sit in every read.
    for (const depth of [20_000, 40]) {
      const user = await management('POST', '/users', `{"connection":"${fx.connection}","email":"deep-${depth}@example.com","password":"Str0ng-enough!","user_metadata":${nested(depth)}}`);
      expect(user).toEqual({ status: 400, body: refusedBody(tooDeep) });
      const connection = await management('POST', '/connections', `{"name":"deep-${depth}","strategy":"auth0","options":{"x":${nested(depth)}}}`);
      expect(connection).toEqual({ status: 400, body: refusedBody(tooDeep) });
      const tokenRequest = await send('POST', '/oauth/token', `{"grant_type":"client_credentials","client_id":"${fx.web.clientId}","extra":${nested(depth)}}`);
      expect(tokenRequest).toEqual({ status: 400, body: { error: 'invalid_request', error_description: tooDeep } });
      const passwordless = await send('POST', '/passwordless/start', `{"client_id":"${fx.spa.clientId}","connection":"email","email":"a@example.com","send":"link","authParams":{"x":${nested(depth)}}}`);
      expect(passwordless).toEqual({ status: 400, body: { error: 'invalid_request', error_description: tooDeep } });
    }
    const api = managementApi(server, 'socket');
    expect((await api('GET', `/users-by-email?email=${encodeURIComponent('deep-40@example.com')}`)).body).toEqual([]);
    expect((await api('GET', '/connections?name=deep-40')).body).toEqual([]);
  });

  it('keeps user_metadata and app_metadata within 16 KB and 10 levels, checked on what a merge would store', async () => {
    const api = managementApi(server, 'socket');
    const path = `/users/${encodeURIComponent(fx.user.userId)}`;
    // Ten levels (the object itself is the first) are fine; eleven are refused.
    const tenLevels = JSON.parse(nested(10)) as Record<string, unknown>;
    expect((await api('PATCH', path, { app_metadata: { nested: tenLevels } })).status).toBe(400);
    expect((await api('PATCH', path, { app_metadata: tenLevels })).status).toBe(200);
    const deeper = await management('PATCH', path, `{"user_metadata":${nested(11)}}`);
    expect(deeper).toEqual({ status: 400, body: refusedBody('user_metadata is nested more than 10 levels deep.') });
    const created = await api('POST', '/users', { connection: fx.connection, email: 'big@example.com', password: 'Str0ng-enough!', user_metadata: { blob: 'x'.repeat(17_000) } });
    expect(created).toEqual({ status: 400, body: refusedBody('user_metadata is 17011 bytes of JSON; at most 16384 are allowed.') });

    // Each PATCH alone is small; the merged object would outgrow the limit, so the PATCH that would is refused whole.
    const chunk = 'y'.repeat(6_000);
    expect((await api('PATCH', path, { user_metadata: { one: chunk }, name: 'First' })).status).toBe(200);
    expect((await api('PATCH', path, { user_metadata: { two: chunk }, name: 'Second' })).status).toBe(200);
    const third = await api('PATCH', path, { user_metadata: { three: chunk }, name: 'Third' });
    expect(third.status).toBe(400);
    expect(third.body.message).toMatch(/^user_metadata is 18\d{3} bytes of JSON; at most 16384 are allowed\.$/);
    const stored = await api('GET', path);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ name: 'Second', user_metadata: { one: chunk, two: chunk }, app_metadata: tenLevels });
    // Replacing a key keeps within the limit; a profile change leaves the metadata alone.
    expect((await api('PATCH', path, { user_metadata: { two: null, three: chunk } })).status).toBe(200);
    expect((await api('PATCH', path, { nickname: 'nick' })).status).toBe(200);
  });

  it('keeps client_metadata to the platform’s ten properties across PATCHes', async () => {
    const api = managementApi(server, 'socket');
    const path = `/clients/${fx.spa.clientId}`;
    const keys = (from: number, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${from + i}`, 'value']));
    expect((await api('PATCH', path, { client_metadata: keys(0, 6) })).status).toBe(200);
    const over = await api('PATCH', path, { client_metadata: keys(6, 6) });
    expect(over).toEqual({ status: 400, body: refusedBody('client_metadata may hold at most 10 properties.') });
    expect(Object.keys((await api('GET', path)).body.client_metadata as object)).toHaveLength(6);
    expect((await api('PATCH', path, { client_metadata: { ...keys(6, 4), key0: null } })).status).toBe(200);
  });

  it('refuses a SAMLRequest that inflates beyond 1 MiB instead of inflating it whole', async () => {
    // 40 MB of XML deflates to about 40 KB: within the 64 KiB of base64 a SAMLRequest may carry.
    const bomb = deflateRawSync(Buffer.from(`<samlp:AuthnRequest ID="_x"${' '.repeat(40_000_000)}/>`)).toString('base64');
    expect(bomb.length).toBeLessThan(65_536);
    expect(() => decodeSamlMessage(bomb, true)).toThrow(RangeError);
    expect(decodeSamlMessage(deflateRawSync(Buffer.from('<a/>')).toString('base64'), true)).toBe('<a/>');
    expect(MAX_INFLATED_SAML_BYTES).toBe(1024 * 1024);
    const api = managementApi(server, 'socket');
    const acs = 'https://sp.example.com/acs';
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { callbacks: [fx.web.callback, acs], addons: { samlp: {} } })).status).toBe(200);
    // The POST binding (a URL is too short for it): some senders deflate there too, so a deflated body is inflated.
    const answer = await fetch(`${server.url}/samlp/${fx.web.clientId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLRequest: bomb }).toString(),
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('The SAMLRequest could not be decoded.');
  });

  it('answers a body over 256 KiB with a 413 in each surface’s shape', async () => {
    const big = JSON.stringify({ padding: 'z'.repeat(300_000) });
    expect(await management('POST', '/users', big)).toEqual({
      status: 413,
      body: { statusCode: 413, error: 'Payload Too Large', message: 'Request payload is too large', errorCode: 'payload_too_large' },
    });
    const oauth = await send('POST', '/oauth/token', big);
    expect([oauth.status, oauth.body.error]).toEqual([413, 'invalid_request']);
  });
});
