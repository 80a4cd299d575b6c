import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDocument } from '../src/services/tenant-settings.js';
import { ADMIN_CLIENT_ID, startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('Management API tenant settings (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  const document = async () => (await server.registry.storage.tenants.get<TenantDocument>(server.registry.tenantId))?.settings;

  it('reads the defaults over the socket, never the bootstrap bookkeeping', async () => {
    const socket = managementApi(server, 'socket');
    const settings = await socket('GET', '/tenants/settings');
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({
      friendly_name: server.registry.tenantId,
      enabled_locales: ['en'],
      allowed_logout_urls: [],
      subscription: 'paid',
      flags: { enable_advanced_customizations: true },
    });
    expect((await document())?.bootstrap).toEqual({ admin_client_id: ADMIN_CLIENT_ID });
    expect((await socket('GET', '/tenants/settings?fields=friendly_name&include_fields=true')).status).toBe(200);
  });

  it('PATCH replaces the fields it names and merges flags; bootstrap stays', async () => {
    const patched = await api('PATCH', '/tenants/settings', {
      friendly_name: 'Acme',
      picture_url: 'https://cdn.example/acme.png',
      enabled_locales: ['en', 'fr-CA'],
      allowed_logout_urls: ['https://acme.example/bye'],
      flags: { other_flag: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      friendly_name: 'Acme',
      picture_url: 'https://cdn.example/acme.png',
      enabled_locales: ['en', 'fr-CA'],
      allowed_logout_urls: ['https://acme.example/bye'],
      subscription: 'paid',
      flags: { enable_advanced_customizations: true, other_flag: true },
    });
    expect((await api('PATCH', '/tenants/settings', { enabled_locales: ['de'] })).body).toMatchObject({ friendly_name: 'Acme', enabled_locales: ['de'], flags: { other_flag: true } });
    expect((await api('GET', '/tenants/settings')).body).toMatchObject({ friendly_name: 'Acme', enabled_locales: ['de'] });
    expect((await document())?.bootstrap).toEqual({ admin_client_id: ADMIN_CLIENT_ID });
  });

  it('concurrent PATCHes of different fields all land (no lost update)', async () => {
    const flags = Array.from({ length: 12 }, (_, i) => `concurrent_${i}`);
    const answers = await Promise.all([
      api('PATCH', '/tenants/settings', { friendly_name: 'Concurrent' }),
      ...flags.map((flag) => api('PATCH', '/tenants/settings', { flags: { [flag]: true } })),
    ]);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const settings = await api('GET', '/tenants/settings');
    expect(settings.body).toMatchObject({ friendly_name: 'Concurrent', flags: { enable_advanced_customizations: true } });
    expect(Object.keys(settings.body.flags as object)).toEqual(expect.arrayContaining(flags));
  });

  it('subscription free makes the rendering list 402; the flag off makes it 403; both restored make it 200', async () => {
    expect((await api('GET', '/prompts/rendering')).status).toBe(200);
    expect((await api('PATCH', '/tenants/settings', { subscription: 'free' })).body).toMatchObject({ subscription: 'free' });
    expect(await api('GET', '/prompts/rendering')).toMatchObject({
      status: 402,
      body: { statusCode: 402, errorCode: 'payment_required', message: 'A paid subscription is required to use Advanced Customizations.' },
    });
    expect((await api('PATCH', '/tenants/settings', { subscription: 'paid', flags: { enable_advanced_customizations: false } })).body).toMatchObject({
      subscription: 'paid',
      flags: { enable_advanced_customizations: false },
    });
    expect(await api('GET', '/prompts/rendering')).toMatchObject({
      status: 403,
      body: { statusCode: 403, errorCode: 'feature_disabled', message: 'This tenant does not have Advanced Customizations enabled.' },
    });
    await api('PATCH', '/tenants/settings', { flags: { enable_advanced_customizations: true } });
    expect((await api('GET', '/prompts/rendering')).status).toBe(200);
  });

  it.each([
    [{ subscription: 'gold' }, `Payload validation error: 'No enum match for: "gold"' on property subscription (Subscription: free or paid.).`],
    [{ bootstrap: { admin_client_id: 'mine' } }, `Payload validation error: 'Additional properties not allowed: bootstrap' on property bootstrap (unknown property).`],
    [{ flags: { enable_advanced_customizations: 'yes' } }, `Payload validation error: 'Expected type boolean but found type string' on property flags.enable_advanced_customizations`],
    [{ enabled_locales: [] }, `Payload validation error: 'Array is too short (0), minimum 1' on property enabled_locales (Locales of the hosted pages.).`],
    [{ friendly_name: '' }, `Payload validation error: 'String is too short (0 chars), minimum 1' on property friendly_name (Name shown to users.).`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('PATCH', '/tenants/settings', body);
    expect(response).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(String(response.body.message).startsWith(message)).toBe(true);
    expect((await document())?.bootstrap).toEqual({ admin_client_id: ADMIN_CLIENT_ID });
  });

  it.each([
    ['GET', 'read:tenant_settings', 'update:tenant_settings', undefined],
    ['PATCH', 'update:tenant_settings', 'read:tenant_settings', { friendly_name: 'x' }],
  ])('403 for %s without %s', async (method, scope, other, body) => {
    expect(await api(method, '/tenants/settings', body, await server.token(other))).toMatchObject({
      status: 403,
      body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` },
    });
    expect((await api(method, '/tenants/settings', body, await server.token(scope))).status).toBe(200);
  });
});
