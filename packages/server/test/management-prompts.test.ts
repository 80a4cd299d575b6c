import { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS, postgresAvailable, REDIS_URL, redisAvailable, type DialectKind } from './support/services.js';

/**
 * The prompt settings (`/api/v2/prompts`) and custom texts (`/api/v2/prompts/{prompt}/custom-text/{language}`) of
 * the Management API, and the `prompts` service the hosted pages read them through.
 */

const DEFAULTS = { universal_login_experience: 'new', identifier_first: false, webauthn_platform_first_factor: false };

describe.each(DIALECTS)('prompt settings and custom texts (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const texts = (prompt: string, language: string) => `/prompts/${prompt}/custom-text/${language}`;
  /** A request that must be refused with the Management API's error shape, leaving nothing changed. */
  const refused = async (method: string, path: string, body: unknown, status: number, errorCode: string) => {
    const answer = await api(method, path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.any(String), errorCode });
    return String(answer.body.message);
  };

  describe('settings', () => {
    it('start at the platform’s defaults', async () => {
      expect(await api('GET', '/prompts')).toEqual({ status: 200, body: DEFAULTS });
      expect(await server.registry.prompts.settings()).toEqual(DEFAULTS);
    });

    it('PATCH changes only the fields sent and answers the full settings; null restores a flag’s default', async () => {
      expect(await api('PATCH', '/prompts', { identifier_first: true })).toEqual({ status: 200, body: { ...DEFAULTS, identifier_first: true } });
      expect(await api('PATCH', '/prompts', { webauthn_platform_first_factor: true, universal_login_experience: 'classic' })).toEqual({
        status: 200,
        body: { universal_login_experience: 'classic', identifier_first: true, webauthn_platform_first_factor: true },
      });
      expect((await api('GET', '/prompts')).body).toEqual({ universal_login_experience: 'classic', identifier_first: true, webauthn_platform_first_factor: true });
      expect(await server.registry.prompts.settings()).toEqual({ universal_login_experience: 'classic', identifier_first: true, webauthn_platform_first_factor: true });

      expect((await api('PATCH', '/prompts', { identifier_first: null, webauthn_platform_first_factor: null, universal_login_experience: 'new' })).body).toEqual(DEFAULTS);
      expect(await server.registry.prompts.settings()).toEqual(DEFAULTS);
    });

    it('leave the tenant settings alone, and the tenant settings leave them alone', async () => {
      await api('PATCH', '/prompts', { identifier_first: true });
      const tenant = await api('GET', '/tenants/settings');
      expect(tenant.body).not.toHaveProperty('identifier_first');
      expect(tenant.body).not.toHaveProperty('prompts');
      expect((await api('PATCH', '/tenants/settings', { friendly_name: 'Prompts Inc' })).status).toBe(200);
      expect((await api('GET', '/prompts')).body).toMatchObject({ identifier_first: true });
      await api('PATCH', '/prompts', { identifier_first: null });
    });

    it('refuse a body that is empty, names another property or has a wrong type, changing nothing', async () => {
      await api('PATCH', '/prompts', { identifier_first: true });
      expect(await refused('PATCH', '/prompts', {}, 400, 'invalid_body')).toMatch(/^Payload validation error: 'Too few properties defined \(0\), must be at least 1'/);
      expect(await refused('PATCH', '/prompts', { identifier_first: false, universal_login: 'new' }, 400, 'invalid_body')).toBe(
        "Payload validation error: 'Additional properties not allowed: universal_login' on property universal_login (unknown property).",
      );
      expect(await refused('PATCH', '/prompts', { identifier_first: 'false' }, 400, 'invalid_body')).toMatch(/Expected type boolean,null but found type string/);
      expect(await refused('PATCH', '/prompts', { universal_login_experience: 'modern' }, 400, 'invalid_body')).toMatch(/No enum match for: "modern"/);
      expect(await refused('PATCH', '/prompts', { universal_login_experience: null }, 400, 'invalid_body')).toMatch(/universal_login_experience/);
      expect(await refused('PATCH', '/prompts', [], 400, 'invalid_body')).toMatch(/Expected type object/);
      expect((await api('GET', '/prompts')).body).toEqual({ ...DEFAULTS, identifier_first: true });
      await api('PATCH', '/prompts', { identifier_first: null });
    });
  });

  describe('custom texts', () => {
    it('are {} until stored; PUT answers what it stored and GET reads it back, as does the hosted pages’ service', async () => {
      expect(await api('GET', texts('login', 'en'))).toEqual({ status: 200, body: {} });
      expect(await server.registry.prompts.customText('login', 'en')).toEqual({});

      const body = { login: { title: 'Welcome to ${companyName}', description: 'Log in to continue to ${clientName}.', 'wrong-credentials': 'Nope.' } };
      expect(await api('PUT', texts('login', 'en'), body)).toEqual({ status: 200, body });
      expect(await api('GET', texts('login', 'en'))).toEqual({ status: 200, body });
      expect(await server.registry.prompts.customText('login', 'en')).toEqual(body);
      // Other languages and prompts are kept apart.
      expect((await api('GET', texts('login', 'fr'))).body).toEqual({});
      expect((await api('GET', texts('login-id', 'en'))).body).toEqual({});
      expect(await server.registry.prompts.customText('login-id', 'en')).toEqual({});
    });

    it('PUT replaces every override of the prompt and language; {} clears them', async () => {
      await api('PUT', texts('signup', 'de'), { signup: { title: 'Alt', description: 'Alt' } });
      expect((await api('PUT', texts('signup', 'de'), { signup: { buttonText: 'Weiter' } })).body).toEqual({ signup: { buttonText: 'Weiter' } });
      expect((await api('GET', texts('signup', 'de'))).body).toEqual({ signup: { buttonText: 'Weiter' } });
      expect(await server.registry.prompts.customText('signup', 'de')).toEqual({ signup: { buttonText: 'Weiter' } });
      expect(await api('PUT', texts('signup', 'de'), {})).toEqual({ status: 200, body: {} });
      expect((await api('GET', texts('signup', 'de'))).body).toEqual({});
      expect(await server.registry.prompts.customText('signup', 'de')).toEqual({});
    });

    it('take every screen of a prompt at once, and only the prompt’s screens', async () => {
      const body = {
        'reset-password-request': { title: 'Forgot it?' },
        'reset-password-email': { title: 'Check your e-mail' },
        'reset-password-success': { eventTitle: 'Done' },
      };
      expect(await api('PUT', texts('reset-password', 'pt-BR'), body)).toEqual({ status: 200, body });
      expect(await server.registry.prompts.customText('reset-password', 'pt-BR')).toEqual(body);

      expect(await refused('PUT', texts('login-id', 'en'), { 'login-id': { title: 'ok' }, login: { title: 'not here' } }, 400, 'invalid_screen')).toBe(
        'The screen "login" does not belong to the prompt "login-id".',
      );
      expect((await api('GET', texts('login-id', 'en'))).body).toEqual({});
    });

    it('answer 404 for an unknown prompt or a language the platform does not have (tags are matched exactly)', async () => {
      expect(await refused('GET', texts('no-such-prompt', 'en'), undefined, 404, 'inexistent_prompt')).toBe('The prompt does not exist.');
      expect(await refused('PUT', texts('no-such-prompt', 'en'), { login: { title: 'x' } }, 404, 'inexistent_prompt')).toBe('The prompt does not exist.');
      expect(await refused('GET', texts('login', 'xx'), undefined, 404, 'inexistent_language')).toBe('The language "xx" is not supported.');
      expect(await refused('PUT', texts('login', 'pt-br'), { login: { title: 'x' } }, 404, 'inexistent_language')).toBe('The language "pt-br" is not supported.');
      expect(await refused('GET', texts('__proto__', 'en'), undefined, 404, 'inexistent_prompt')).toBe('The prompt does not exist.');
      for (const language of ['en', 'fr', 'de', 'es', 'pt-BR', 'ja', 'fr-CA', 'es-419', 'zh-TW', 'zgh']) {
        expect((await api('GET', texts('login', language))).status, language).toBe(200);
      }
    });

    it('refuse a body that breaks a rule, storing none of it', async () => {
      const stored = { 'login-password': { title: 'Your password' } };
      await api('PUT', texts('login-password', 'es'), stored);
      const path = texts('login-password', 'es');
      const put = (screenTexts: unknown) => ({ 'login-password': screenTexts });

      expect(await refused('PUT', path, put({ title: 'x'.repeat(2001) }), 400, 'invalid_body')).toMatch(/String is too long \(2001 chars\), maximum 2000/);
      expect(await refused('PUT', path, put({ ['k'.repeat(101)]: 'x' }), 400, 'invalid_body')).toBe(
        'A text key of the screen "login-password" must be 1 to 100 characters long.',
      );
      expect(await refused('PUT', path, put({ '': 'x' }), 400, 'invalid_body')).toBe('A text key of the screen "login-password" must be 1 to 100 characters long.');
      const tooMany = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`key${i}`, 'x']));
      expect(await refused('PUT', path, put(tooMany), 400, 'invalid_body')).toMatch(/Too many properties defined \(201\), must be at most 200/);
      expect(await refused('PUT', path, put({ title: 1 }), 400, 'invalid_body')).toMatch(/Expected type string but found type integer/);
      expect(await refused('PUT', path, put({ title: { nested: 'x' } }), 400, 'invalid_body')).toMatch(/Expected type string but found type object/);
      expect(await refused('PUT', path, { 'login-password': ['x'] }, 400, 'invalid_body')).toMatch(/Expected type object but found type array/);
      expect(await refused('PUT', path, { 'login-password': 'x' }, 400, 'invalid_body')).toMatch(/Expected type object but found type string/);
      expect(await refused('PUT', path, ['login-password'], 400, 'invalid_body')).toMatch(/Expected type object but found type array/);
      // A valid screen before an unknown one: the valid one is not stored either.
      expect(await refused('PUT', path, { 'login-password': { title: 'new' }, 'login-id': { title: 'x' } }, 400, 'invalid_screen')).toMatch(/login-id/);
      // A valid screen before a bad text of another screen: neither is stored.
      const resetPath = texts('reset-password', 'es');
      await api('PUT', resetPath, { 'reset-password': { title: 'Kept' } });
      expect(await refused('PUT', resetPath, { 'reset-password-request': { title: 'new' }, 'reset-password': { title: 'x'.repeat(2001) } }, 400, 'invalid_body')).toMatch(/too long/);
      expect((await api('GET', resetPath)).body).toEqual({ 'reset-password': { title: 'Kept' } });
      // The JSON parser refuses a __proto__ key outright.
      expect((await api('PUT', path, JSON.parse('{"login-password":{"__proto__":"x"}}'))).status).toBe(400);

      expect((await api('GET', path)).body).toEqual(stored);
      expect(await server.registry.prompts.customText('login-password', 'es')).toEqual(stored);
    });

    it('accept the limits themselves: keys of 100 characters, texts of 2000, 200 keys a screen', async () => {
      // 200 texts of 2000 characters would pass the rules but not the body limit (256 KiB): one long text will do.
      const screen = Object.fromEntries(Array.from({ length: 198 }, (_, i) => [`key${i}`, `text ${i}`]));
      const body = { 'login-password': { ...screen, long: 'x'.repeat(2000), ['k'.repeat(100)]: 'ünïcødé ✓ <b>&amp;</b> ${userName}' } };
      expect(await api('PUT', texts('login-password', 'ja'), body)).toEqual({ status: 200, body });
      expect((await api('GET', texts('login-password', 'ja'))).body).toEqual(body);
    });

    it('hand the hosted pages frozen objects, so no reader changes what the next one reads', async () => {
      await api('PUT', texts('logout', 'en'), { logout: { title: 'Bye' } });
      const read = await server.registry.prompts.customText('logout', 'en');
      expect(Object.isFrozen(read)).toBe(true);
      expect(Object.isFrozen(read.logout)).toBe(true);
    });
  });

  describe('scopes', () => {
    it('401 without a token, with the Management error shape', async () => {
      for (const [method, path] of [['GET', '/prompts'], ['PATCH', '/prompts'], ['GET', texts('login', 'en')], ['PUT', texts('login', 'en')]] as const) {
        const response = await server.app.inject({ method, url: `/api/v2${path}`, ...(method === 'GET' ? {} : { payload: { identifier_first: true } }) });
        expect(response.statusCode, `${method} ${path}`).toBe(401);
        expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Missing authentication', errorCode: 'invalid_token' });
      }
    });

    it('403 without the scope: reads need read:prompts, writes update:prompts', async () => {
      const unrelated = await server.token('read:clients');
      const reader = await server.token('read:prompts');
      const writer = await server.token('update:prompts');
      const expectForbidden = async (method: string, path: string, body: unknown, token: string, scope: string) => {
        const answer = await api(method, path, body, token);
        expect(answer.status, `${method} ${path}`).toBe(403);
        expect(answer.body).toEqual({ statusCode: 403, error: 'Forbidden', message: `Insufficient scope, expected any of: ${scope}`, errorCode: 'insufficient_scope' });
      };
      await expectForbidden('GET', '/prompts', undefined, unrelated, 'read:prompts');
      await expectForbidden('GET', texts('login', 'en'), undefined, writer, 'read:prompts');
      await expectForbidden('PATCH', '/prompts', { identifier_first: true }, reader, 'update:prompts');
      await expectForbidden('PUT', texts('login', 'en'), { login: { title: 'no' } }, reader, 'update:prompts');
      // The scope check comes before the prompt is looked at.
      await expectForbidden('PUT', texts('no-such-prompt', 'en'), {}, reader, 'update:prompts');

      expect((await api('GET', '/prompts', undefined, reader)).status).toBe(200);
      expect((await api('PATCH', '/prompts', { identifier_first: false }, writer)).status).toBe(200);
      expect((await api('PUT', texts('captcha', 'en'), { 'interstitial-captcha': { title: 'Are you human?' } }, writer)).status).toBe(200);
      expect((await api('GET', texts('captcha', 'en'), undefined, reader)).body).toEqual({ 'interstitial-captcha': { title: 'Are you human?' } });
    });
  });

  it('one flow over the real socket: settings, then texts, read back', async () => {
    const socket = managementApi(server, 'socket');
    expect(await socket('PATCH', '/prompts', { identifier_first: true })).toEqual({ status: 200, body: { ...DEFAULTS, identifier_first: true } });
    expect(await socket('GET', '/prompts')).toEqual({ status: 200, body: { ...DEFAULTS, identifier_first: true } });
    const body = { 'login-passwordless-email-code': { title: 'Check your inbox' }, 'login-passwordless-sms-otp': { title: 'Check your phone' } };
    expect(await socket('PUT', texts('login-passwordless', 'fr-CA'), body)).toEqual({ status: 200, body });
    expect(await socket('GET', texts('login-passwordless', 'fr-CA'))).toEqual({ status: 200, body });
    const wrong = await socket('PUT', texts('login-passwordless', 'fr-CA'), { 'login-passwordless-email-link': { title: 1 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errorCode: 'invalid_body' });
    expect(await socket('GET', texts('login-passwordless', 'fr-CA'))).toEqual({ status: 200, body });
    await socket('PATCH', '/prompts', { identifier_first: null });
  });
});

interface SharedSetup {
  name: string;
  dialect: DialectKind;
  env: Record<string, string>;
}

const SHARED: SharedSetup[] = [
  ...(postgresAvailable ? [{ name: 'one PostgreSQL database: LISTEN/NOTIFY', dialect: 'postgres' as const, env: {} }] : []),
  ...(redisAvailable ? [{ name: 'one SQLite file and Redis pub/sub', dialect: 'sqlite' as const, env: { REDIS_URL } }] : []),
];

/**
 * Two nodes on one database, each with its own configuration cache (kept 300 s here, far longer than the test):
 * what one node changes, the other's hosted pages read at once, because the change bus clears its cache.
 */
describe.each(SHARED)('two nodes sharing a database see each other’s prompt changes ($name)', ({ dialect, env }) => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer({ dialect, listen: true, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '300', ...env } });
    b = await startTestServer({ dialect, listen: true, shareWith: a });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const soon = (what: string, probe: () => Promise<boolean>) => eventually(what, probe, 5000);

  it('settings changed on A are read on B, and back', async () => {
    // B reads first, so that its cache holds the old settings.
    expect(await b.registry.prompts.settings()).toEqual(DEFAULTS);
    expect((await managementApi(a, 'socket')('PATCH', '/prompts', { identifier_first: true })).status).toBe(200);
    await soon('B reads identifier_first', async () => (await b.registry.prompts.settings()).identifier_first);
    expect((await managementApi(b, 'socket')('GET', '/prompts')).body).toMatchObject({ identifier_first: true });

    expect((await managementApi(b, 'socket')('PATCH', '/prompts', { identifier_first: null })).status).toBe(200);
    await soon('A reads the default again', async () => !(await a.registry.prompts.settings()).identifier_first);
  });

  it('custom texts put on A are read on B, replacements too', async () => {
    expect(await b.registry.prompts.customText('login-id', 'en')).toEqual({});
    const first = { 'login-id': { title: 'Who are you?' } };
    expect((await managementApi(a, 'socket')('PUT', '/prompts/login-id/custom-text/en', first)).status).toBe(200);
    await soon('B reads the texts', async () => JSON.stringify(await b.registry.prompts.customText('login-id', 'en')) === JSON.stringify(first));
    expect((await managementApi(b, 'socket')('GET', '/prompts/login-id/custom-text/en')).body).toEqual(first);

    const second = { 'login-id': { description: 'Enter your e-mail address.' } };
    expect((await managementApi(a, 'socket')('PUT', '/prompts/login-id/custom-text/en', second)).status).toBe(200);
    await soon('B reads the replacement', async () => JSON.stringify(await b.registry.prompts.customText('login-id', 'en')) === JSON.stringify(second));
  });
});

/**
 * The official Management SDK (npm `auth0` v7), unmodified, over real HTTPS (it always builds
 * https://{domain}/api/v2 and fetches its token from https://{domain}/oauth/token).
 */
describe('official Management SDK: prompts', () => {
  let sdk: SdkServer;
  let server: TestServer;
  let management: ManagementClient;
  let domain: string;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect: 'sqlite' });
    ({ server, management, domain } = sdk);
  });
  afterAll(async () => sdk?.close());


  it('getSettings and updateSettings', async () => {
    expect(await management.prompts.getSettings()).toEqual(DEFAULTS);
    expect(await management.prompts.updateSettings({ identifier_first: true, webauthn_platform_first_factor: true })).toEqual({
      ...DEFAULTS,
      identifier_first: true,
      webauthn_platform_first_factor: true,
    });
    expect(await management.prompts.getSettings()).toEqual({ ...DEFAULTS, identifier_first: true, webauthn_platform_first_factor: true });
    expect(await management.prompts.updateSettings({ webauthn_platform_first_factor: null })).toEqual({ ...DEFAULTS, identifier_first: true });
    expect(await server.registry.prompts.settings()).toEqual({ ...DEFAULTS, identifier_first: true });

    const bad = await rejection(management.prompts.updateSettings({}));
    expect(bad.constructor.name).toBe('BadRequestError');
    expect(bad.body).toMatchObject({ errorCode: 'invalid_body' });
  });

  it('customText.set and customText.get', async () => {
    expect(await management.prompts.customText.get('signup-id', 'en')).toEqual({});
    const body = { 'signup-id': { title: 'Create your ${companyName} account', buttonText: 'Go' } };
    expect(await management.prompts.customText.set('signup-id', 'en', body)).toBeUndefined();
    expect(await management.prompts.customText.get('signup-id', 'en')).toEqual(body);
    expect(await server.registry.prompts.customText('signup-id', 'en')).toEqual(body);

    const unknownScreen = await rejection(management.prompts.customText.set('signup-id', 'en', { signup: { title: 'x' } }));
    expect(unknownScreen.constructor.name).toBe('BadRequestError');
    expect(unknownScreen.body).toMatchObject({ errorCode: 'invalid_screen' });
    const unknownLanguage = await rejection(management.prompts.customText.get('signup-id', 'xx' as 'en'));
    expect(unknownLanguage.constructor.name).toBe('NotFoundError');
    expect(unknownLanguage.body).toMatchObject({ errorCode: 'inexistent_language' });
    expect(await management.prompts.customText.get('signup-id', 'en')).toEqual(body);

    const forbidden = await rejection(new ManagementClient({ domain, token: await server.token('read:prompts') }).prompts.customText.set('signup-id', 'en', {}));
    expect(forbidden.constructor.name).toBe('ForbiddenError');
  });
});
