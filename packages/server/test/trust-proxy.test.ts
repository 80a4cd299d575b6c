import { createServer, request as forward, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

const REALM = 'http://auth0.com/oauth/grant-type/password-realm';

/** The header through which a test tells the proxy which client address a request comes from. */
const CLIENT_HEADER = 'x-test-client-address';

/**
 * A reverse proxy on loopback in front of one Latchkey server, as nginx with `proxy_add_x_forwarded_for` is: it
 * appends the address of the client it served to X-Forwarded-For (here the one the test names) and forwards the
 * request. Every request then reaches Latchkey from the proxy's own address, 127.0.0.1.
 */
async function reverseProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const { [CLIENT_HEADER]: client, ...headers } = incoming.headers;
    const forwardedFor = [incoming.headers['x-forwarded-for'], String(client)].filter(Boolean).join(', ');
    const proxied = forward(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...headers, 'x-forwarded-for': forwardedFor } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface Deployment {
  server: TestServer;
  proxy: { url: string; close: () => Promise<void> };
  fx: LoginFixture;
}

/** Discovery allows two requests a minute per client address: the third from one address is refused. */
async function deploy(trustProxy: string | undefined): Promise<Deployment> {
  const server = await startTestServer({
    dialect: 'sqlite',
    listen: true,
    env: { LATCHKEY_AUTH_RATE_LIMITS: '/.well-known/openid-configuration=2/m', ...(trustProxy ? { LATCHKEY_TRUST_PROXY: trustProxy } : {}) },
  });
  const fx = await provisionLogin(server);
  const api = managementApi(server);
  expect((await api('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 3 })).status).toBe(200);
  return { server, proxy: await reverseProxy(server.url), fx };
}

const discovery = (base: string, headers: Record<string, string>) =>
  fetch(`${base}/.well-known/openid-configuration`, { headers }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });

const passwordLogin = (deployment: Deployment, clientAddress: string, password: string) =>
  fetch(`${deployment.proxy.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [CLIENT_HEADER]: clientAddress },
    body: JSON.stringify({
      grant_type: REALM,
      client_id: deployment.fx.web.clientId,
      client_secret: deployment.fx.web.clientSecret,
      username: deployment.fx.user.email,
      password,
      realm: deployment.fx.connection,
      scope: 'openid',
    }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));

describe.each(['1', 'loopback', '127.0.0.1/32'])('LATCHKEY_TRUST_PROXY=%s behind a real reverse proxy', (setting) => {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy(setting);
  });
  afterAll(async () => {
    await deployment?.proxy.close();
    await deployment?.server.close();
  });

  it('counts the rate limit per client address from X-Forwarded-For, not per proxy', async () => {
    const { proxy } = deployment;
    const alice = { [CLIENT_HEADER]: '203.0.113.10' };
    expect([await discovery(proxy.url, alice), await discovery(proxy.url, alice), await discovery(proxy.url, alice)]).toEqual([200, 200, 429]);
    // Another client behind the same proxy has its own count.
    expect(await discovery(proxy.url, { [CLIENT_HEADER]: '198.51.100.20' })).toBe(200);
    // An address a client writes into X-Forwarded-For itself is not believed: the proxy appends the real one.
    expect(await discovery(proxy.url, { ...alice, 'x-forwarded-for': '192.0.2.99' })).toBe(429);
    expect(await discovery(proxy.url, { [CLIENT_HEADER]: '192.0.2.99' })).toBe(200);
  });

  it('blocks an account for the address that guessed, not for every client of the proxy', async () => {
    const { server, fx } = deployment;
    const attacker = '203.0.113.66';
    for (let i = 0; i < 3; i += 1) expect((await passwordLogin(deployment, attacker, 'wrong password')).status).toBe(403);
    const blocked = await passwordLogin(deployment, attacker, fx.user.password);
    expect([blocked.status, blocked.body.error]).toEqual([429, 'too_many_attempts']);
    // The user, from their own address behind the same proxy, still gets in.
    expect((await passwordLogin(deployment, '198.51.100.7', fx.user.password)).status).toBe(200);
    const blocks = await managementApi(server)('GET', `/user-blocks/${encodeURIComponent(fx.user.userId)}`);
    expect(blocks.body).toEqual({ blocked_for: [{ identifier: fx.user.email, ip: attacker, connection: fx.connection }] });
  });
});

describe('without LATCHKEY_TRUST_PROXY (the default)', () => {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy(undefined);
  });
  afterAll(async () => {
    await deployment?.proxy.close();
    await deployment?.server.close();
  });

  it('ignores X-Forwarded-For: every client behind the proxy is the proxy, and a direct client cannot pose as another', async () => {
    const { proxy, server } = deployment;
    expect(await discovery(proxy.url, { [CLIENT_HEADER]: '203.0.113.10' })).toBe(200);
    expect(await discovery(proxy.url, { [CLIENT_HEADER]: '198.51.100.20' })).toBe(200);
    expect(await discovery(proxy.url, { [CLIENT_HEADER]: '192.0.2.30' })).toBe(429);
    // Straight to the server, a forged X-Forwarded-For changes nothing: the connection's address counts.
    expect(await discovery(server.url, { 'x-forwarded-for': '192.0.2.77' })).toBe(429);
  });

  it('blocks the account for everyone behind the proxy (the reason to set it)', async () => {
    const { fx } = deployment;
    for (let i = 0; i < 3; i += 1) expect((await passwordLogin(deployment, '203.0.113.66', 'wrong password')).status).toBe(403);
    expect((await passwordLogin(deployment, '198.51.100.7', fx.user.password)).status).toBe(429);
  });
});
