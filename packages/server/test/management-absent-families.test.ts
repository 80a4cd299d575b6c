import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABSENT_FAMILIES } from '../src/http/management/absent-families.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

/** A concrete URL for a route path: its parameters filled in. */
const concrete = (path: string) => path.replaceAll(/:([a-z_]+)/g, (_, name: string) => (name === 'prompt' ? 'login' : `some_${name}`));

/**
 * The families of the platform Latchkey does not have, over the real socket: reads answer as the platform does for
 * a tenant without them, every write is refused with the Management error shape naming the family, and scopes
 * apply as on every other route. Also the pieces tools that move a tenant look up: the global client, roles of
 * type tenant, organizations' connections under their newer path, the system API's name.
 */
describe('Management API: families Latchkey does not have', () => {
  let server: TestServer;
  let api: ManagementApi;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    api = managementApi(server, 'socket');
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers lists as empty, in every paging form the platform offers', async () => {
    expect(await api('GET', '/rules')).toEqual({ status: 200, body: [] });
    expect((await api('GET', '/rules?include_totals=true&page=0&per_page=50&enabled=true&fields=name')).body).toEqual({ rules: [], start: 0, limit: 50, total: 0 });
    expect((await api('GET', '/hooks?include_totals=true&triggerId=pre-user-registration')).body).toEqual({ hooks: [], start: 0, limit: 50, total: 0 });
    expect((await api('GET', '/token-exchange-profiles?take=50')).body).toEqual({ token_exchange_profiles: [] });
    expect((await api('GET', '/event-streams?take=10')).body).toEqual({ eventStreams: [] });
    expect((await api('GET', '/connections-directory-provisionings?take=50')).body).toEqual({ directory_provisionings: [] });
    expect((await api('GET', '/custom-domains')).body).toEqual([]);
    expect((await api('GET', '/rules-configs')).body).toEqual([]);
    expect((await api('GET', '/branding/phone/providers')).body).toEqual({ providers: [] });
    expect((await api('GET', '/flows/vault/connections?include_totals=true')).body).toEqual({ connections: [], start: 0, limit: 50, total: 0 });
    expect((await api('GET', '/organizations/org_x/client-grants?include_totals=true')).body).toEqual({ client_grants: [], start: 0, limit: 50, total: 0 });
  });

  it('answers the platform\u2019s statuses where it has them: no e-mail provider (404), bot detection and CAPTCHA not on the plan (403), no such object (404)', async () => {
    expect(await api('GET', '/emails/provider')).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'There is not a configured email provider.', errorCode: 'inexistent_resource' } });
    expect(await api('GET', '/attack-protection/bot-detection')).toEqual({ status: 403, body: { statusCode: 403, error: 'Forbidden', message: 'Bot detection is not available on this tenant.', errorCode: 'not_available' } });
    expect((await api('GET', '/attack-protection/captcha')).status).toBe(403);
    expect((await api('GET', '/rules/rul_1')).body).toMatchObject({ statusCode: 404, message: 'The rule does not exist.' });
    expect((await api('GET', '/email-templates/verify_email')).status).toBe(404);
  });

  it('shows settings documents in their disabled state and takes a write of exactly that state, refusing any other', async () => {
    expect((await api('GET', '/risk-assessments/settings')).body).toEqual({ enabled: false });
    expect(await api('PATCH', '/risk-assessments/settings', { enabled: false })).toEqual({ status: 200, body: { enabled: false } });
    expect(await api('PATCH', '/risk-assessments/settings', { enabled: true })).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: 'Latchkey has no risk assessment: use attack protection.', errorCode: 'unsupported_feature' },
    });
    expect((await api('GET', '/guardian/factors/phone/selected-provider')).body).toEqual({ provider: 'auth0' });
    expect((await api('PUT', '/guardian/factors/phone/selected-provider', { provider: 'twilio' })).status).toBe(400);
    expect((await api('PUT', '/guardian/factors/phone/message-types', { message_types: ['sms'] })).status).toBe(200);
    expect((await api('GET', '/prompts/login/partials')).body).toEqual({});
    expect((await api('PUT', '/prompts/login/partials', { 'login-container-start': '<div>' })).body).toMatchObject({ errorCode: 'unsupported_feature', message: expect.stringContaining('Latchkey has no prompt partials') });
    expect((await api('PATCH', '/supplemental-signals', { akamai_enabled: true })).status).toBe(400);
  });

  it('refuses every write of every family it lacks with a 400 naming the family, and keeps nothing', async () => {
    const writes = ABSENT_FAMILIES.flatMap((family) => family.writes.map((write) => ({ family: family.family, write })));
    expect(writes.length).toBeGreaterThan(50);
    for (const { family, write } of writes) {
      const [method = '', path = ''] = write.split(' ');
      const response = await api(method, concrete(path), method === 'DELETE' ? undefined : { name: 'x' });
      expect({ write, status: response.status, errorCode: response.body.errorCode }).toEqual({ write, status: 400, errorCode: 'unsupported_feature' });
      expect(String(response.body.message)).toMatch(new RegExp(`^Latchkey has no ${family.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}[.:]`));
    }
    expect((await api('GET', '/rules')).body).toEqual([]);
    expect((await api('GET', '/custom-domains')).body).toEqual([]);
  });

  it('checks scopes as on every route: reading needs read:<family>, writing its own scope', async () => {
    const reader = await server.token('read:rules');
    expect((await api('GET', '/rules', undefined, reader)).status).toBe(200);
    expect((await api('POST', '/rules', { name: 'x' }, reader)).body).toMatchObject({ statusCode: 403, errorCode: 'insufficient_scope' });
    expect((await api('GET', '/hooks', undefined, reader)).body).toMatchObject({ statusCode: 403, errorCode: 'insufficient_scope' });
    expect((await api('GET', '/rules', undefined, 'not-a-token')).status).toBe(401);
  });

  it('lists the global client "All Applications" for is_global=true only, and refuses changing it (the classic login page) and the other classic pages', async () => {
    const [global] = (await api('GET', '/clients?is_global=true')).body;
    expect(global).toMatchObject({ global: true, name: 'All Applications' });
    expect((await api('GET', '/clients')).body.some((client) => client.global === true)).toBe(false);
    expect((await api('GET', '/clients?is_global=false')).body.some((client) => client.global === true)).toBe(false);
    expect(await api('PATCH', `/clients/${String(global?.client_id)}`, { custom_login_page: '<html></html>', custom_login_page_on: true })).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: expect.stringContaining('Latchkey has no classic login page (pages)'), errorCode: 'unsupported_feature' },
    });
    // The other classic pages are tenant settings on the platform.
    expect((await api('PATCH', '/tenants/settings', { friendly_name: 'Kept?', error_page: { html: '<p>oops</p>', show_log_link: false } })).body).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('Latchkey has no classic pages (error_page)'),
      errorCode: 'unsupported_feature',
    });
    expect((await api('GET', '/tenants/settings')).body.friendly_name).not.toBe('Kept?');
  });

  it('lists roles of type tenant (every role), organizations\u2019 connections also under /connections, and names the system API as the platform does', async () => {
    const role = (await api('POST', '/roles', { name: 'Auditor' })).body;
    expect((await api('GET', '/roles?type=tenant')).body).toMatchObject([{ id: role.id, name: 'Auditor' }]);
    expect((await api('GET', '/roles?type=organization')).status).toBe(400);

    const connection = (await api('POST', '/connections', { name: 'staff', strategy: 'auth0' })).body;
    const organization = (await api('POST', '/organizations', { name: 'staff-org' })).body;
    const added = await api('POST', `/organizations/${String(organization.id)}/connections`, { connection_id: connection.id, assign_membership_on_login: true });
    expect(added.status).toBe(201);
    expect((await api('GET', `/organizations/${String(organization.id)}/connections?include_totals=true`)).body).toMatchObject({
      connections: [{ connection_id: connection.id, assign_membership_on_login: true, connection: { name: 'staff' } }],
      total: 1,
    });
    expect((await api('GET', `/organizations/${String(organization.id)}/enabled_connections`)).body).toMatchObject([{ connection_id: connection.id }]);

    const system = (await api('GET', '/resource-servers')).body.find((resourceServer) => resourceServer.is_system === true);
    expect(system).toMatchObject({ name: 'Auth0 Management API', identifier: server.audience });
  });
});
