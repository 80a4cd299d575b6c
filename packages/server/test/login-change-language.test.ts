import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

/**
 * `action=change-language`, as the platform SDK's `changeLanguage` posts it from any screen: the login goes on in
 * that language when the tenant enables it, on the same screen; a post from another site changes nothing.
 */
describe('changing the language of a login (real socket)', () => {
  let server: TestServer;
  let fx: LoginFixture;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    expect((await managementApi(server)('PATCH', '/tenants/settings', { enabled_locales: ['en', 'fr'] })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  const langOf = (html: string) => /<html lang="([^"]+)"/.exec(html)?.[1];

  it('shows the same screen again in the chosen language, for the rest of the login', async () => {
    const browser = new CookieClient(server.url);
    const start = await browser.get(`/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code' }).toString()}`);
    const login = start.headers.get('location') ?? '';
    const state = new URL(login, server.url).searchParams.get('state') ?? '';
    expect(langOf(await (await browser.get(login)).text())).toBe('en');

    const forged = await browser.postForm(login, { state, action: 'change-language', language: 'fr' }, { origin: 'https://attacker.example' });
    expect(forged.status).toBe(403);
    expect(langOf(await (await browser.get(login)).text())).toBe('en');

    const changed = await browser.postForm(login, { state, action: 'change-language', language: 'fr', persist: 'session' });
    expect([changed.status, changed.headers.get('location')]).toEqual([303, login]);
    const page = await (await browser.get(login)).text();
    expect(langOf(page)).toBe('fr');
    expect(page).toContain('data-screen="login"');

    // A language the tenant does not enable, or one that is not a language tag, leaves the page as it was.
    for (const language of ['de', '"><script>']) {
      expect((await browser.postForm(login, { state, action: 'change-language', language })).status).toBe(303);
      expect(langOf(await (await browser.get(login)).text())).toBe('fr');
    }

    const wrong = await browser.postForm(login, { state, username: fx.user.email, password: 'not it' });
    expect(wrong.status).toBe(400);
    expect(langOf(await wrong.text())).toBe('fr');
    const answered = await browser.postForm(login, { state, username: fx.user.email, password: fx.user.password });
    expect(answered.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\/callback\?code=/);
  });
});
