import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

/**
 * The SMS one-time-code screen over a real socket: an application whose only connection is passwordless SMS starts
 * at `login-id`, which sends a code to the phone number and moves to `login-passwordless-sms-otp`; a wrong code is
 * refused on the same screen, `action=resend` sends another, and the right one answers the application with a code.
 */
describe.each(DIALECTS)('the SMS code screen (%s)', (dialect) => {
  let server: TestServer;
  let clientId = '';
  let clientSecret = '';
  const callback = 'https://sms-app.example.com/callback';
  const phone = '+15551230000';

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    const api = managementApi(server);
    const created = await api('POST', '/clients', { name: 'SMS app', app_type: 'regular_web', callbacks: [callback], grant_types: ['authorization_code'] });
    expect(created.status).toBe(201);
    clientId = String(created.body.client_id);
    clientSecret = String(created.body.client_secret);
    expect((await api('POST', '/connections', { name: `sms-${dialect}`, strategy: 'sms', enabled_clients: [clientId] })).status).toBe(201);
  }, 60_000);
  afterAll(async () => server?.close());

  const codesSentTo = async (to: string) =>
    (await server.registry.outbox.recent(200)).flatMap((entry) => (entry.channel === 'sms' && entry.message.to === to ? [/\b(\d{6})\b/.exec(entry.message.body)?.[1] ?? ''] : []));

  it('logs in with a texted code, after a wrong one and a resend', async () => {
    const browser = new CookieClient(server.url);
    const start = await browser.get(`/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: callback, response_type: 'code', state: 'app' }).toString()}`);
    const loginId = start.headers.get('location') ?? '';
    expect(loginId).toMatch(/^\/u\/login\/identifier\?state=/);
    const state = new URL(loginId, server.url).searchParams.get('state') ?? '';

    const sent = await browser.postForm(loginId, { state, username: phone });
    expect(sent.status).toBe(302);
    const challenge = sent.headers.get('location') ?? '';
    expect(challenge).toBe(`/u/login/passwordless-sms-challenge?state=${state}`);
    const page = await (await browser.get(challenge)).text();
    expect(page).toContain('data-screen="login-passwordless-sms-otp"');
    expect(page).toContain(phone);

    const wrong = await browser.postForm(challenge, { state, code: '000000' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('This code is not valid.');

    const resent = await browser.postForm(challenge, { state, action: 'resend' });
    expect([resent.status, resent.headers.get('location')]).toEqual([302, challenge]);
    const codes = await codesSentTo(phone);
    expect(codes).toHaveLength(2);

    const answered = await browser.postForm(challenge, { state, code: codes[0] ?? '' });
    const location = new URL(answered.headers.get('location') ?? '', server.url);
    expect(`${location.origin}${location.pathname}`).toBe(callback);
    expect(location.searchParams.get('state')).toBe('app');
    const tokens = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', redirect_uri: callback, client_id: clientId, client_secret: clientSecret }),
    });
    expect(tokens.status).toBe(200);
  });

  it('refuses the code screen before a code was sent, and a post from another site', async () => {
    const browser = new CookieClient(server.url);
    const start = await browser.get(`/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: callback, response_type: 'code' }).toString()}`);
    const state = new URL(start.headers.get('location') ?? '', server.url).searchParams.get('state') ?? '';
    const early = await browser.postForm(`/u/login/passwordless-sms-challenge?state=${state}`, { state, code: '123456' });
    expect([early.status, early.headers.get('location')]).toEqual([302, `/u/login/identifier?state=${state}`]);
    const forged = await browser.postForm(`/u/login/identifier?state=${state}`, { state, username: phone }, { origin: 'https://attacker.example' });
    expect(forged.status).toBe(403);
    expect(await codesSentTo('+15559990000')).toEqual([]);
  });
});
