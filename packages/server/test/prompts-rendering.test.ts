import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDocument } from '../src/services/tenant-settings.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

type Json = Record<string, unknown>;

describe.each(DIALECTS)('rendering configurations (%s)', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({ dialect });
    token = await server.token();
  });
  afterAll(async () => server?.close());

  const request = async (method: 'GET' | 'PATCH', url: string, payload?: unknown, bearer: string | null = token) => {
    const response = await server.app.inject({
      method,
      url,
      headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
    return { status: response.statusCode, body: response.body ? (response.json() as unknown) : undefined, headers: response.headers };
  };
  const list = (query = '') => request('GET', `/api/v2/prompts/rendering${query}`);
  const patch = (prompt: string, screen: string, body: unknown) => request('PATCH', `/api/v2/prompts/${prompt}/screen/${screen}/rendering`, body);

  const setTenant = async (change: Partial<TenantDocument['settings']>) => {
    const { storage, tenantId } = server.registry;
    const tenant = await storage.tenants.get<TenantDocument>(tenantId);
    if (!tenant) throw new Error('no tenant');
    await storage.tenants.updateSettings(tenantId, { ...tenant.settings, settings: { ...tenant.settings.settings, ...change } });
  };

  describe('writes and reads', () => {
    it('PATCH is a partial update that echoes the fields sent; GET shows the stored item with defaults', async () => {
      const first = await patch('login-id', 'login-id', { rendering_mode: 'advanced', head_tags: [{ tag: 'script', attributes: { src: 'https://cdn.example/app.js', defer: true } }] });
      expect(first).toMatchObject({ status: 200, body: { rendering_mode: 'advanced', head_tags: [{ tag: 'script', attributes: { src: 'https://cdn.example/app.js', defer: true } }] } });
      expect(Object.keys(first.body as Json).sort()).toEqual(['head_tags', 'rendering_mode']);

      const second = await patch('login-id', 'login-id', { context_configuration: ['tenant.name', 'user.user_metadata.plan'], my_extra: { kept: 1 } });
      expect(second.body).toEqual({ context_configuration: ['tenant.name', 'user.user_metadata.plan'], my_extra: { kept: 1 } });

      const got = await request('GET', '/api/v2/prompts/login-id/screen/login-id/rendering');
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        tenant: server.registry.tenantId,
        prompt: 'login-id',
        screen: 'login-id',
        rendering_mode: 'advanced',
        context_configuration: ['tenant.name', 'user.user_metadata.plan'],
        default_head_tags_disabled: false,
        use_page_template: false,
        head_tags: [{ tag: 'script', attributes: { src: 'https://cdn.example/app.js', defer: true } }],
        filters: null,
        my_extra: { kept: 1 },
      });
    });

    it('null clears a field back to its default', async () => {
      await patch('login-password', 'login-password', { use_page_template: true, filters: { match_type: 'includes_any', clients: [{ id: 'abc' }] } });
      await patch('login-password', 'login-password', { use_page_template: null, filters: null });
      const got = await request('GET', '/api/v2/prompts/login-password/screen/login-password/rendering');
      expect(got.body).toMatchObject({ use_page_template: false, filters: null });
    });

    it('the identity fields in a body are ignored: the path decides prompt and screen', async () => {
      await patch('signup', 'signup', { prompt: 'login', screen: 'login', tenant: 'other', rendering_mode: 'standard' });
      const got = await request('GET', '/api/v2/prompts/signup/screen/signup/rendering');
      expect(got.body).toMatchObject({ tenant: server.registry.tenantId, prompt: 'signup', screen: 'signup' });
    });

    it('an unknown prompt is 404; a screen not under its prompt is 400', async () => {
      const unknown = await patch('not-a-prompt', 'login', { rendering_mode: 'advanced' });
      expect(unknown).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'The prompt does not exist.' } });
      const mismatch = await patch('login', 'signup', { rendering_mode: 'advanced' });
      expect(mismatch.status).toBe(400);
      expect((mismatch.body as Json).message).toContain('does not belong to the prompt');
      expect((await request('GET', '/api/v2/prompts/not-a-prompt/screen/login/rendering')).status).toBe(404);
    });

    it('bulk PATCH writes all configurations, or none when one is invalid', async () => {
      const ok = await request('PATCH', '/api/v2/prompts/rendering', {
        configs: [
          { prompt: 'mfa-otp', screen: 'mfa-otp-challenge', rendering_mode: 'advanced' },
          { prompt: 'mfa-otp', screen: 'mfa-otp-enrollment-qr', rendering_mode: 'standard', use_page_template: true },
        ],
      });
      expect(ok).toMatchObject({ status: 200, body: { configs: [{ prompt: 'mfa-otp', screen: 'mfa-otp-challenge', rendering_mode: 'advanced' }, { screen: 'mfa-otp-enrollment-qr' }] } });

      const before = await list('?include_totals=true&per_page=100');
      const failed = await request('PATCH', '/api/v2/prompts/rendering', {
        configs: [
          { prompt: 'mfa-sms', screen: 'mfa-sms-challenge', rendering_mode: 'advanced' },
          { prompt: 'mfa-sms', screen: 'login', rendering_mode: 'advanced' },
        ],
      });
      expect(failed.status).toBe(400);
      const afterwards = await list('?include_totals=true&per_page=100');
      expect((afterwards.body as Json).total).toBe((before.body as Json).total);
      const invalidBody = await request('PATCH', '/api/v2/prompts/rendering', {
        configs: [
          { prompt: 'mfa-sms', screen: 'mfa-sms-challenge', rendering_mode: 'advanced' },
          { prompt: 'mfa-sms', screen: 'mfa-sms-list', rendering_mode: 'fancy' },
        ],
      });
      expect(invalidBody.status).toBe(400);
      expect((invalidBody.body as Json).message).toBe(
        `Payload validation error: 'No enum match for: "fancy"' on property configs[1].rendering_mode (Rendering mode: advanced or standard.).`,
      );
      expect(((await list('?include_totals=true&per_page=100')).body as Json).total).toBe((before.body as Json).total);
      expect((await request('PATCH', '/api/v2/prompts/rendering', { configs: [] })).status).toBe(400);
      expect((await request('PATCH', '/api/v2/prompts/rendering', { configs: [{ prompt: 'login', screen: 'login' }], other: 1 })).status).toBe(400);
    });
  });

  describe('write validation', () => {
    const invalid: [string, unknown, string][] = [
      ['rendering_mode outside the enum', { rendering_mode: 'custom' }, 'rendering_mode'],
      ['rendering_mode null', { rendering_mode: null }, 'rendering_mode'],
      ['a context value that is not in the catalogue', { context_configuration: ['tenant.secret'] }, 'context_configuration[0]'],
      ['a dynamic key with a dot', { context_configuration: ['user.user_metadata.a.b'] }, 'context_configuration[0]'],
      ['a dynamic prefix with an empty key', { context_configuration: ['client.metadata.'] }, 'context_configuration[0]'],
      ['an ext- parameter with an empty key', { context_configuration: ['untrusted_data.authorization_params.ext-'] }, 'context_configuration[0]'],
      ['a context item that is not a string', { context_configuration: [7] }, 'context_configuration[0]'],
      ['more than 10 head tag attributes', { head_tags: [{ tag: 'meta', attributes: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, 'x'])) }] }, 'head_tags[0].attributes'],
      ['a non-boolean default_head_tags_disabled', { default_head_tags_disabled: 'yes' }, 'default_head_tags_disabled'],
      ['a boolean written as a string (bodies are never coerced)', { use_page_template: 'true' }, 'use_page_template'],
      ['a filter property that is not allowed', { filters: { match_type: 'includes_any', users: [] } }, 'filters.users'],
      ['an unknown match_type', { filters: { match_type: 'all' } }, 'filters.match_type'],
      ['a filter element with both id and metadata', { filters: { clients: [{ id: 'a', metadata: { k: 'v' } }] } }, 'filters.clients[0]'],
      ['a filter element with an extra property', { filters: { organizations: [{ id: 'a', name: 'b' }] } }, 'filters.organizations[0]'],
      ['filter metadata with two properties', { filters: { domains: [{ metadata: { a: '1', b: '2' } }] } }, 'filters.domains[0]'],
    ];
    it.each(invalid)('rejects %s with 400 naming the property', async (_name, body, property) => {
      const response = await patch('login', 'login', body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' });
      expect((response.body as Json).message).toMatch(new RegExp(`^Payload validation error: '.+' on property ${property.replace(/[.[\]]/g, '\\$&')}( \\(.*\\))?\\.$`));
      const stored = await request('GET', '/api/v2/prompts/login/screen/login/rendering');
      expect(stored.body).toMatchObject({ rendering_mode: 'standard', context_configuration: [], filters: null });
    });

    it('accepts all 18 static values, the six dynamic prefixes and valid filters', async () => {
      const { STATIC_CONTEXT_VALUES, DYNAMIC_CONTEXT_PREFIXES } = await import('../src/services/rendering/context-configuration.js');
      expect(STATIC_CONTEXT_VALUES).toHaveLength(18);
      expect(DYNAMIC_CONTEXT_PREFIXES).toHaveLength(6);
      const context = [...STATIC_CONTEXT_VALUES, ...DYNAMIC_CONTEXT_PREFIXES.map((prefix) => `${prefix}key_1`)];
      const filters = {
        match_type: 'excludes_any',
        // `metadata` has at most one property: none is valid too.
        clients: [{ id: 'client-1' }, { metadata: { tier: 'gold' } }, { metadata: {} }],
        organizations: [{ id: 'org_1' }],
        domains: [{ metadata: { region: 'eu' } }],
      };
      const response = await patch('login', 'login', { context_configuration: context, filters, head_tags: Array.from({ length: 3 }, () => ({ tag: 'link', attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, i])) })) });
      expect(response.status).toBe(200);
      expect((response.body as Json).filters).toEqual(filters);
    });
  });

  describe('GET /api/v2/prompts/rendering', () => {
    // A server of its own here: listing depends on exactly what exists. Its tests only read, or put back what they change.
    let fresh: TestServer;
    let freshToken: string;
    const pairs: [string, string, 'advanced' | 'standard'][] = [
      ['login', 'login', 'advanced'],
      ['login-id', 'login-id', 'standard'],
      ['signup', 'signup', 'advanced'],
      ['reset-password', 'reset-password-request', 'advanced'],
      ['reset-password', 'reset-password-email', 'standard'],
      ['logout', 'logout', 'advanced'],
      ['login-password', 'login-password', 'advanced'],
    ];

    beforeAll(async () => {
      fresh = await startTestServer({ dialect });
      freshToken = await fresh.token();
      for (const [prompt, screen, rendering_mode] of pairs) {
        const response = await fresh.app.inject({
          method: 'PATCH',
          url: `/api/v2/prompts/${prompt}/screen/${screen}/rendering`,
          headers: { authorization: `Bearer ${freshToken}` },
          payload: { rendering_mode },
        });
        expect(response.statusCode).toBe(200);
      }
    });
    afterAll(async () => fresh?.close());

    const get = async (query: string) => {
      const response = await fresh.app.inject({ method: 'GET', url: `/api/v2/prompts/rendering${query}`, headers: { authorization: `Bearer ${freshToken}` } });
      return { status: response.statusCode, body: response.json() as unknown };
    };
    const screens = (body: unknown) => ((Array.isArray(body) ? body : (body as { configs: Json[] }).configs) as Json[]).map((item) => item.screen);

    it('lists configured screens only, in creation order, as a bare array by default', async () => {
      const { status, body } = await get('');
      expect(status).toBe(200);
      expect(Array.isArray(body)).toBe(true);
      expect(screens(body)).toEqual(pairs.map(([, screen]) => screen));
      // Rewriting a screen keeps its place.
      const rewrite = (rendering_mode: string) =>
        fresh.app.inject({ method: 'PATCH', url: '/api/v2/prompts/login/screen/login/rendering', headers: { authorization: `Bearer ${freshToken}` }, payload: { rendering_mode } });
      expect((await rewrite('standard')).statusCode).toBe(200);
      expect(screens((await get('')).body)[0]).toBe('login');
      expect((await rewrite('advanced')).statusCode).toBe(200);
    });

    it('include_totals returns exactly {configs, start, limit, total}', async () => {
      const { body } = await get('?include_totals=true&page=1&per_page=3');
      expect(Object.keys(body as Json).sort()).toEqual(['configs', 'limit', 'start', 'total']);
      expect(body).toMatchObject({ start: 3, limit: 3, total: 7 });
      expect(screens(body)).toEqual(['reset-password-request', 'reset-password-email', 'logout']);
      expect(Array.isArray((await get('?include_totals=false')).body)).toBe(true);
    });

    it('cuts the page window first, then filters inside it (a filtered page can be short or empty)', async () => {
      // Window 0..2 = login(adv), login-id(std), signup(adv) -> advanced: login, signup
      expect(screens((await get('?per_page=3&rendering_mode=advanced')).body)).toEqual(['login', 'signup']);
      // Window 3..5 = reset-password-request(adv), reset-password-email(std), logout(adv)
      expect(screens((await get('?page=1&per_page=3&rendering_mode=standard')).body)).toEqual(['reset-password-email']);
      // Window 0..1 has no reset-password screens, although later pages do.
      const empty = await get('?per_page=2&prompt=reset-password&include_totals=true');
      expect(empty.body).toEqual({ configs: [], start: 0, limit: 2, total: 7 });
      expect(screens((await get('?page=1&per_page=2&prompt=reset-password')).body)).toEqual(['reset-password-request']);
      expect(screens((await get('?page=2&per_page=2&prompt=reset-password&screen=reset-password-email')).body)).toEqual(['reset-password-email']);
      expect(screens((await get('?page=9&per_page=2')).body)).toEqual([]);
    });

    it('fields with include_fields keeps or drops the named fields (unknown names ignored)', async () => {
      const kept = (await get('?per_page=1&fields=prompt,screen,nope')).body as Json[];
      expect(kept).toEqual([{ prompt: 'login', screen: 'login' }]);
      const dropped = (await get('?per_page=1&fields=head_tags,filters,context_configuration,tenant&include_fields=false')).body as Json[];
      expect(Object.keys(dropped[0] ?? {}).sort()).toEqual(['default_head_tags_disabled', 'prompt', 'rendering_mode', 'screen', 'use_page_template']);
      const all = (await get('?per_page=1&fields=')).body as Json[];
      expect(Object.keys(all[0] ?? {})).toHaveLength(9);
    });

    it('defaults to 50 per page and accepts the bounds 1 and 100', async () => {
      expect((await get('?include_totals=true')).body).toMatchObject({ start: 0, limit: 50 });
      expect((await get('?per_page=1')).status).toBe(200);
      expect((await get('?per_page=100&page=0')).status).toBe(200);
    });

    const badQueries: [string, string][] = [
      ['?page=-1', `Query validation error: 'Value -1 is less than minimum 0' on property page (Page index of the results to return. First page is 0.).`],
      ['?per_page=0', `Query validation error: 'Value 0 is less than minimum 1' on property per_page (Number of results per page. Defaults to 50.).`],
      ['?per_page=101', `Query validation error: 'Value 101 is greater than maximum 100' on property per_page (Number of results per page. Defaults to 50.).`],
      ['?per_page=1.5', `Query validation error: 'Expected type integer but found type string' on property per_page (Number of results per page. Defaults to 50.).`],
      ['?page=abc', `Query validation error: 'Expected type integer but found type string' on property page (Page index of the results to return. First page is 0.).`],
      ['?include_totals=1', `Query validation error: 'Expected type boolean but found type string' on property include_totals (Return results inside an object that contains the total result count (true) or as a direct array (false, default).).`],
      ['?include_fields=yes', `Query validation error: 'Expected type boolean but found type string' on property include_fields (Whether specified fields are to be included (default: true) or excluded (false).).`],
      ['?rendering_mode=fancy', `Query validation error: 'No enum match for: "fancy"' on property rendering_mode (Rendering mode to filter by.).`],
      ['?unknown=1', `Query validation error: 'Additional properties not allowed: unknown' on property unknown (unknown property).`],
    ];
    it.each(badQueries)('400 for %s', async (query, message) => {
      const { status, body } = await get(query);
      expect(status).toBe(400);
      expect(body).toEqual({ statusCode: 400, error: 'Bad Request', message, errorCode: 'invalid_query_string' });
    });
  });

  describe('authorization, feature gates and the order of checks', () => {
    afterAll(async () => setTenant({ subscription: 'paid', flags: { enable_advanced_customizations: true } }));

    it('401 without a token, 403 without read:prompts (before query validation)', async () => {
      expect(await request('GET', '/api/v2/prompts/rendering?per_page=500', undefined, null)).toMatchObject({
        status: 401,
        body: { statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' },
      });
      const narrow = await server.token('read:clients');
      expect(await request('GET', '/api/v2/prompts/rendering?per_page=500', undefined, narrow)).toEqual(
        expect.objectContaining({ status: 403, body: { statusCode: 403, error: 'Forbidden', message: 'Insufficient scope, expected any of: read:prompts', errorCode: 'insufficient_scope' } }),
      );
      const writer = await server.token('update:prompts');
      expect((await request('PATCH', '/api/v2/prompts/login/screen/login/rendering', { rendering_mode: 'advanced' }, writer)).status).toBe(200);
      expect((await request('GET', '/api/v2/prompts/login/screen/login/rendering', undefined, writer)).status).toBe(403);
      const reader = await server.token('read:prompts');
      expect((await request('PATCH', '/api/v2/prompts/login/screen/login/rendering', { rendering_mode: 'advanced' }, reader)).status).toBe(403);
    });

    it('402 on a free subscription (after query validation), then 403 when the feature is off', async () => {
      await setTenant({ subscription: 'free', flags: { enable_advanced_customizations: false } });
      expect((await list('?per_page=500')).status).toBe(400);
      expect(await list()).toMatchObject({
        status: 402,
        body: { statusCode: 402, error: 'Payment Required', message: 'A paid subscription is required to use Advanced Customizations.' },
      });
      await setTenant({ subscription: 'paid' });
      expect(await list()).toMatchObject({
        status: 403,
        body: { statusCode: 403, error: 'Forbidden', message: 'This tenant does not have Advanced Customizations enabled.' },
      });
      expect((await patch('login', 'login', { rendering_mode: 'advanced' })).status).toBe(403);
      await setTenant({ flags: { enable_advanced_customizations: true } });
      expect((await list()).status).toBe(200);
    });
  });
});
