import { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/**
 * The tenant's branding (`GET/PATCH /api/v2/branding`), kept in the tenant document on both dialects, through the
 * Management API and the official Management SDK, and what the hosted pages make of it.
 */

const FULL = {
  colors: { primary: '#0059d6', page_background: '#f0f4ff' },
  favicon_url: 'https://cdn.acme.example/favicon.png',
  logo_url: 'https://cdn.acme.example/logo.svg',
  font: { url: 'https://cdn.acme.example/font.woff2' },
};

describe.each(DIALECTS)('branding settings (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;

  beforeAll(async () => {
    server = await startTestServer({ dialect });
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  /** A request that must be refused with the Management API's error shape, leaving the branding as it was. */
  const refused = async (method: string, body: unknown, status: number, errorCode: string, token?: string) => {
    const before = (await api('GET', '/branding')).body;
    const answer = await api(method, '/branding', body, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.any(String), errorCode });
    expect((await api('GET', '/branding')).body).toEqual(before);
    return String(answer.body.message);
  };

  it('starts empty; PATCH stores the fields sent and answers the whole branding; GET reads it back', async () => {
    expect(await api('GET', '/branding')).toEqual({ status: 200, body: {} });
    expect(await api('PATCH', '/branding', { colors: { primary: '#0059d6' }, logo_url: FULL.logo_url })).toEqual({
      status: 200,
      body: { colors: { primary: '#0059d6' }, logo_url: FULL.logo_url },
    });
    expect(await api('PATCH', '/branding', { colors: { page_background: '#f0f4ff' }, favicon_url: FULL.favicon_url, font: FULL.font })).toEqual({ status: 200, body: FULL });
    expect(await api('GET', '/branding')).toEqual({ status: 200, body: FULL });
  });

  it('null removes a field or a whole group; an empty body changes nothing', async () => {
    await api('PATCH', '/branding', FULL);
    expect((await api('PATCH', '/branding', {})).body).toEqual(FULL);
    expect((await api('PATCH', '/branding', { colors: { primary: null }, font: null, favicon_url: null })).body).toEqual({
      colors: { page_background: '#f0f4ff' },
      logo_url: FULL.logo_url,
    });
    expect((await api('PATCH', '/branding', { colors: null, logo_url: null })).body).toEqual({});
    expect((await api('GET', '/branding')).body).toEqual({});
  });

  it('refuses what is not a colour or an https URL, unknown properties and gradients, changing nothing', async () => {
    await api('PATCH', '/branding', FULL);
    expect(await refused('PATCH', { logo_url: 'http://cdn.acme.example/logo.svg' }, 400, 'invalid_body')).toContain('logo_url');
    await refused('PATCH', { logo_url: 'javascript:alert(1)' }, 400, 'invalid_body');
    await refused('PATCH', { favicon_url: 'https://cdn.acme.example/"><script>' }, 400, 'invalid_body');
    expect(await refused('PATCH', { colors: { primary: 'red;}</style><script>alert(1)</script>' } }, 400, 'invalid_body')).toContain('primary');
    await refused('PATCH', { colors: { page_background: { type: 'linear-gradient', start: '#000000', end: '#ffffff', angle_deg: 35 } } }, 400, 'invalid_body');
    expect(await refused('PATCH', { colors: { primary: '#000000' }, theme: 'dark' }, 400, 'invalid_body')).toContain('theme');
    await refused('PATCH', { font: { url: FULL.font.url, family: 'Inter' } }, 400, 'invalid_body');
  });

  it('needs read:branding to read and update:branding to write (401 without a token)', async () => {
    const missing = await server.app.inject({ method: 'GET', url: '/api/v2/branding' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ statusCode: 401, errorCode: 'invalid_token' });
    const reader = await server.token('read:branding');
    const writer = await server.token('update:branding');
    const forbidden = async (method: string, body: unknown, token: string, scope: string) => {
      const answer = await api(method, '/branding', body, token);
      expect(answer.body).toEqual({ statusCode: 403, error: 'Forbidden', message: `Insufficient scope, expected any of: ${scope}`, errorCode: 'insufficient_scope' });
    };
    await forbidden('GET', undefined, writer, 'read:branding');
    await forbidden('PATCH', { logo_url: FULL.logo_url }, reader, 'update:branding');
    expect((await api('GET', '/branding', undefined, reader)).status).toBe(200);
    expect((await api('PATCH', '/branding', { logo_url: FULL.logo_url }, writer)).status).toBe(200);
  });

  it('lives beside the tenant settings and the prompt settings without either undoing the other', async () => {
    await api('PATCH', '/branding', FULL);
    expect((await api('PATCH', '/tenants/settings', { friendly_name: 'Branded Inc' })).status).toBe(200);
    expect((await api('PATCH', '/prompts', { identifier_first: true })).status).toBe(200);
    expect((await api('GET', '/branding')).body).toEqual(FULL);
    expect((await api('PATCH', '/branding', { logo_url: null })).status).toBe(200);
    expect((await api('GET', '/tenants/settings')).body).toMatchObject({ friendly_name: 'Branded Inc' });
    expect((await api('GET', '/tenants/settings')).body).not.toHaveProperty('branding');
    expect((await api('GET', '/prompts')).body).toMatchObject({ identifier_first: true });
    await api('PATCH', '/prompts', { identifier_first: null });
  });
});

/**
 * The official Management SDK (npm `auth0` v7), unmodified, over real HTTPS; then the hosted login page of an
 * application, which shows the logo and the accent colour set through it.
 */
describe('official Management SDK: branding, and the hosted page that shows it', () => {
  let sdk: SdkServer;
  let management: ManagementClient;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect: 'sqlite' });
    ({ management } = sdk);
  });
  afterAll(async () => sdk?.close());

  it('branding.get and branding.update, with the SDK’s error classes for a refusal', async () => {
    expect(await management.branding.get()).toEqual({});
    expect(await management.branding.update(FULL)).toEqual(FULL);
    expect(await management.branding.get()).toEqual(FULL);
    expect(await management.branding.update({ font: null })).toEqual({ colors: FULL.colors, favicon_url: FULL.favicon_url, logo_url: FULL.logo_url });

    const bad = await rejection(management.branding.update({ logo_url: 'http://insecure.example/logo.png' }));
    expect(bad.constructor.name).toBe('BadRequestError');
    expect(bad.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body' });
    const forbidden = await rejection(new ManagementClient({ domain: sdk.domain, token: await sdk.server.token('read:branding') }).branding.update({ logo_url: null }));
    expect(forbidden.constructor.name).toBe('ForbiddenError');
    expect(await management.branding.get()).toMatchObject({ logo_url: FULL.logo_url });
  });

  it('the standard login page shows the branding’s logo, accent colour, page background and favicon', async () => {
    await management.branding.update({ colors: { primary: '#7b2cbf', page_background: '#101820' }, logo_url: 'https://cdn.acme.example/brand.svg', favicon_url: FULL.favicon_url });
    const fx = await provisionLogin(sdk.server);
    const browser = new CookieClient(sdk.server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', state: 's' });
    const entry = await browser.get(`/authorize?${query.toString()}`);
    const page = await (await browser.get(entry.headers.get('location') ?? '')).text();
    expect(page).toContain('<img class="logo" src="https://cdn.acme.example/brand.svg"');
    expect(page).toContain('<link rel="icon" href="https://cdn.acme.example/favicon.png">');
    expect(page).toMatch(/<style nonce="[^"]+">button\{background:#7b2cbf\}button\.secondary\{background:transparent;color:#7b2cbf;border-color:#7b2cbf\}body\{background:#101820\}<\/style>/);
  });
});
