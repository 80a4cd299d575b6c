import type { ManagementClient } from 'auth0';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, inputValue } from './support/browser-client.js';
import type { TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/** E-mail verification over real HTTPS (the official SDK only speaks https), on both dialects. */
describe.each(DIALECTS)('e-mail verification (%s)', (dialect) => {
  let sdk: SdkServer;
  let server: TestServer;
  let fx: LoginFixture;
  let management: ManagementClient;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect });
    ({ server, management } = sdk);
    fx = await provisionLogin(server);
  });
  afterAll(async () => sdk?.close());

  /** The verification link most recently e-mailed to an address. */
  async function linkSentTo(email: string): Promise<string | undefined> {
    const entry = (await server.registry.outbox.recent(200)).find((candidate) => candidate.channel === 'email' && candidate.message.to === email && /Verify/.test(candidate.message.subject));
    return entry?.channel !== 'email' ? undefined : entry.message.text.match(/https:\/\/\S+\/u\/email-verification\?ticket=[^\s#]+/)?.[0];
  }
  const open = (url: string) => fetch(url, { redirect: 'manual' });
  const userOf = async (userId: string) => (await managementApi(server)('GET', `/users/${encodeURIComponent(userId)}`)).body;
  const logTypes = async (userId: string) => {
    await server.registry.events.flush();
    return (await managementApi(server)('GET', `/users/${encodeURIComponent(userId)}/logs`)).body as unknown as { type: string }[];
  };

  it('a signup sends the e-mail; the link verifies once; tokens then say email_verified', async () => {
    const email = `signup-${dialect}@example.com`;
    const signup = await postJson(server, '/dbconnections/signup', { client_id: fx.web.clientId, connection: fx.connection, email, password: USER_PASSWORD });
    expect(signup.status, signup.text).toBe(200);
    const link = await linkSentTo(email);
    expect(link).toBeDefined();
    const userId = `auth0|${String(signup.json._id)}`;
    expect((await userOf(userId)).email_verified).toBe(false);

    const first = await open(link ?? '');
    expect(first.status).toBe(200);
    const page = await first.text();
    expect(page).toContain('data-screen="email-verification-result"');
    expect(page).toContain('E-mail address verified');
    // Back to the application (the site of its callback), as screen.links.login says to a bundle.
    expect(page).toMatch(/<a href="https:\/\/app\.example\.com\/">Back to Web /);
    expect((await userOf(userId)).email_verified).toBe(true);

    // Single use: the same link again verifies nothing.
    const second = await open(link ?? '');
    expect(second.status).toBe(400);
    expect(await second.text()).toContain('not valid');

    const token = await postJson(server, '/oauth/token', {
      grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: email,
      password: USER_PASSWORD,
      realm: fx.connection,
      scope: 'openid email',
    });
    expect(token.status, token.text).toBe(200);
    expect(decodeJwt(String(token.json.id_token)).email_verified).toBe(true);
    expect((await logTypes(userId)).map((event) => event.type)).toEqual(expect.arrayContaining(['ss', 'sv']));
    // The spent link names nobody (its ticket is gone), so its failure is in the tenant log only.
    const recent = (await managementApi(server)('GET', '/logs?per_page=100')).body as unknown as { type: string }[];
    expect(recent.map((event) => event.type)).toContain('fv');
  });

  it('the hosted signup page sends the e-mail too', async () => {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'id_token', nonce: 'n', scope: 'openid email', screen_hint: 'signup' });
    const path = (await browser.get(`/authorize?${query.toString()}`)).headers.get('location') ?? '';
    const html = await (await browser.get(path)).text();
    const email = `hosted-${dialect}@example.com`;
    const created = await browser.postForm(path, { state: inputValue(html, 'state') ?? '', email, password: 'A-strong-passw0rd' });
    expect(created.status).toBe(302);
    expect(await linkSentTo(email)).toBeDefined();
  });

  it('a ticket from the official SDK redirects to result_url with the address; an expired one fails', async () => {
    const api = managementApi(server);
    const user = await api('POST', '/users', { connection: fx.connection, email: `ticket-${dialect}@example.com`, password: USER_PASSWORD });
    const userId = String(user.body.user_id);
    const created = await management.tickets.verifyEmail({ user_id: userId, result_url: 'https://app.example.com/verified', includeEmailInRedirect: true });
    const ticket = new URL(String(created.ticket));
    expect(ticket.pathname).toBe('/u/email-verification');
    const answer = await open(ticket.toString());
    expect(answer.status).toBe(302);
    const target = new URL(answer.headers.get('location') ?? '');
    expect(target.origin + target.pathname).toBe('https://app.example.com/verified');
    expect(target.searchParams.get('success')).toBe('true');
    expect(target.searchParams.get('email')).toBe(`ticket-${dialect}@example.com`);
    expect((await userOf(userId)).email_verified).toBe(true);

    // A second ticket for a verified user says so.
    const again = await api('POST', '/tickets/email-verification', { user_id: userId });
    const already = await open(String(again.body.ticket));
    expect(already.status).toBe(200);
    expect(await already.text()).toContain('was verified already');

    const other = await api('POST', '/users', { connection: fx.connection, email: `expired-${dialect}@example.com`, password: USER_PASSWORD });
    const short = await api('POST', '/tickets/email-verification', { user_id: other.body.user_id, ttl_sec: 1 });
    expect(short.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await open(String(short.body.ticket))).status).toBe(400);
    expect((await userOf(String(other.body.user_id))).email_verified).toBe(false);

    expect((await api('POST', '/tickets/email-verification', { user_id: 'auth0|nobody' })).status).toBe(404);
    expect((await api('POST', '/tickets/email-verification', {})).status).toBe(400);
  });

  it('the verification-email job sends the link; verify_email and a changed address send one too', async () => {
    const api = managementApi(server);
    const email = `job-${dialect}@example.com`;
    const user = await api('POST', '/users', { connection: fx.connection, email, password: USER_PASSWORD, verify_email: false });
    const userId = String(user.body.user_id);
    expect(await linkSentTo(email)).toBeUndefined();
    const job = await management.jobs.verificationEmail.create({ user_id: userId });
    expect(job).toMatchObject({ type: 'verification_email', status: 'completed' });
    expect(String(job.id)).toMatch(/^job_/);
    // Stored: the job can be read back, as the platform's can.
    expect(await management.jobs.get(String(job.id))).toMatchObject({ id: job.id, type: 'verification_email', status: 'completed' });
    expect((await logTypes(userId)).map((event) => event.type)).toContain('svr');
    const link = await linkSentTo(email);
    expect((await open(link ?? '')).status).toBe(200);
    expect((await userOf(userId)).email_verified).toBe(true);

    // A new address is not verified; verify_email sends a link to it.
    const moved = `moved-${dialect}@example.com`;
    const patched = await api('PATCH', `/users/${encodeURIComponent(userId)}`, { email: moved, verify_email: true });
    expect(patched.body.email_verified).toBe(false);
    expect(await linkSentTo(moved)).toBeDefined();
    // The first link was for the old address: a ticket for it verifies nothing now.
    const created = await api('POST', '/users', { connection: fx.connection, email: `asked-${dialect}@example.com`, password: USER_PASSWORD, verify_email: true });
    expect(created.status).toBe(201);
    expect(await linkSentTo(`asked-${dialect}@example.com`)).toBeDefined();

    expect((await api('POST', '/jobs/verification-email', { user_id: 'auth0|nobody' })).status).toBe(404);
  });
});
