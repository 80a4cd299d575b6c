import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamClient, UpstreamError, type ProviderEndpoints } from '../src/oauth/upstream/client.js';
import { upstreamSettings, type UpstreamSettings } from '../src/services/connection-options/upstream.js';

type Route = (response: ServerResponse, body: string) => void;

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Route => (response) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(typeof value === 'string' ? value : JSON.stringify(value));
};

/**
 * The relying party's answers to a provider that misbehaves, one way per endpoint: each failure is an
 * UpstreamError (the application gets `access_denied`) whose message says which answer was wrong, and the requests
 * the provider sees are the ones of a client_secret_post client with PKCE.
 */
describe('upstream client failures and requests', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ path: string; body: string; authorization?: string | undefined }> = [];
  const client = upstreamClient({ now: () => new Date() });
  const routes: Record<string, Route> = {
    '/d500/.well-known/openid-configuration': (response) => {
      response.writeHead(500);
      response.end('down');
    },
    '/dhtml/.well-known/openid-configuration': (response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html></html>');
    },
    '/darray/.well-known/openid-configuration': json(200, [1]),
    '/dnoissuer/.well-known/openid-configuration': json(200, { authorization_endpoint: 'https://x.example/a' }),
    '/token-refused': json(400, { error: 'invalid_grant', error_description: 'code used' }),
    '/token-down': (response) => {
      response.writeHead(500, { 'content-type': 'text/html' });
      response.end('<html></html>');
    },
    '/token-no-access': json(200, { token_type: 'bearer' }),
    '/token-no-id': json(200, { access_token: 'at', token_type: 'bearer' }),
    '/token-unchecked-id': json(200, { access_token: 'at', token_type: 'bearer', id_token: 'not.a-token.at-all' }),
    '/profile-401': (response) => {
      response.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
      response.end();
    },
    '/profile-any': json(200, { id: 42, login: 'dave' }),
  };

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const path = request.url ?? '';
        seen.push({ path, body, authorization: request.headers.authorization });
        const route = routes[path];
        if (route) route(response, body);
        else json(404, { error: 'not_found' })(response, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const read = (strategy: 'oidc' | 'oauth2', options: Record<string, unknown>): UpstreamSettings => {
    const { settings, problems } = upstreamSettings({ strategy, options: { client_id: 'latchkey', client_secret: 'upstream-secret', ...options } }, true);
    if (!settings) throw new Error(problems.join('; '));
    return settings;
  };
  const oidc = (tokenPath = '/token') => read('oidc', { issuer: base, authorization_endpoint: `${base}/authorize`, jwks_uri: `${base}/jwks`, token_endpoint: `${base}${tokenPath}` });
  const oauth2 = (tokenPath = '/token', profilePath = '/profile') => read('oauth2', { authorizationURL: `${base}/authorize`, tokenURL: `${base}${tokenPath}`, profileURL: `${base}${profilePath}` });
  const code = { code: 'the-code', redirectUri: 'https://latchkey.example/login/callback', codeVerifier: 'v'.repeat(43), nonce: 'the-nonce' };

  const failure = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    return (error as Error).message;
  };

  it('words each way a discovery document can be wrong', async () => {
    const discover = (path: string) => client.endpoints(read('oidc', { discovery_url: `${base}${path}/.well-known/openid-configuration` }));
    expect(await failure(discover('/d500'))).toBe("The identity provider's discovery document answered HTTP 500.");
    expect(await failure(discover('/dhtml'))).toBe("The identity provider's discovery document did not answer JSON (HTTP 200).");
    expect(await failure(discover('/darray'))).toBe("The identity provider's discovery document did not answer a JSON object.");
    expect(await failure(discover('/dnoissuer'))).toBe('The discovery document names no issuer or authorization_endpoint.');
    const unreachable = read('oidc', { discovery_url: 'http://127.0.0.1:1/.well-known/openid-configuration' });
    expect(await failure(client.endpoints(unreachable))).toMatch(/^The identity provider's discovery document could not be read: /);
  });

  it('words each way a token endpoint can refuse the code', async () => {
    const at = (settings: UpstreamSettings) => client.endpoints(settings);
    const exchange = async (settings: UpstreamSettings) => client.exchange(settings, await at(settings), code);
    expect(await failure(exchange(oidc('/token-refused')))).toBe('The identity provider refused the code: invalid_grant (code used).');
    expect(await failure(exchange(oauth2('/token-down')))).toBe('The identity provider refused the code: HTTP 500.');
    expect(await failure(exchange(oauth2('/token-no-access')))).toBe('The identity provider answered the code without an access token.');
    expect(await failure(exchange(oidc('/token-no-id')))).toBe('The identity provider answered the code without an ID token.');
    const unreachable = oauth2();
    expect(await failure(client.exchange(unreachable, { authorizationEndpoint: `${base}/authorize`, tokenEndpoint: 'http://127.0.0.1:1/token' }, code))).toMatch(
      /^The identity provider's token endpoint could not be reached: /,
    );
  });

  it('an oauth2 exchange sends the secret and the PKCE verifier in the form and reads no ID token', async () => {
    const settings = oauth2('/token-unchecked-id');
    seen.length = 0;
    expect(await client.exchange(settings, await client.endpoints(settings), code)).toEqual({ accessToken: 'at' });
    const form = Object.fromEntries(new URLSearchParams(seen.find((request) => request.path === '/token-unchecked-id')?.body ?? ''));
    expect(form).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: code.redirectUri,
      code_verifier: code.codeVerifier,
      client_id: 'latchkey',
      client_secret: 'upstream-secret',
    });
  });

  it('reads a profile URL as any JSON object with the access token, and words a refusal', async () => {
    const settings = oauth2('/token', '/profile-any');
    const at: ProviderEndpoints = await client.endpoints(settings);
    seen.length = 0;
    expect(await client.profile(settings, at, 'the-access-token')).toEqual({ id: 42, login: 'dave' });
    expect(seen[0]?.authorization).toBe('Bearer the-access-token');
    const refused = oauth2('/token', '/profile-401');
    expect(await failure(client.profile(refused, await client.endpoints(refused), 'expired'))).toBe("The identity provider's profile answered HTTP 401.");
  });

  it('builds the authorization URL with the same parameters, in the same order', async () => {
    const settings = oidc();
    const url = client.authorizationUrl(settings, await client.endpoints(settings), {
      redirectUri: 'https://latchkey.example/login/callback',
      state: 'the-state',
      nonce: 'the-nonce',
      codeChallenge: 'the-challenge',
      loginHint: 'a b@example.com',
      forceLogin: true,
    });
    expect(url).toBe(
      `${base}/authorize?client_id=latchkey&redirect_uri=https%3A%2F%2Flatchkey.example%2Flogin%2Fcallback&response_type=code&scope=openid+profile+email&state=the-state&nonce=the-nonce&code_challenge=the-challenge&code_challenge_method=S256&login_hint=a+b%40example.com&prompt=login`,
    );
  });
});
