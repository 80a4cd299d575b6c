import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, formAction, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

/**
 * Logins to organizations over a real socket, on both dialects: `organization` on `/authorize` (id or name) puts
 * `org_id` (and `org_name` where the tenant allows) in the tokens, keeps it on refresh and silent authentication,
 * offers only the organization's connections, refuses non-members unless the connection assigns membership; an
 * invitation makes the invited address a member with its roles, once; clients that require an organization refuse,
 * ask its name before login, or let the user choose after; RBAC in an organization reads the member's roles there.
 */
describe.each(DIALECTS)('organization logins (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let org: { id: string; name: string };
  let connectionId: string;

  const ok = async (response: Promise<{ status: number; body: unknown }>, status = 200) => {
    const answer = await response;
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body as Record<string, unknown> & Record<string, unknown>[];
  };

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    await ok(api('PATCH', `/clients/${fx.web.clientId}`, { organization_usage: 'allow', initiate_login_uri: 'https://app.example.com/login' }));
    const created = await ok(api('POST', '/organizations', { name: 'acme', display_name: 'Acme Corp', metadata: { tier: 'gold' } }), 201);
    org = { id: String(created.id), name: 'acme' };
    connectionId = String((await ok(api('GET', `/connections?name=${fx.connection}`)))[0]?.id);
    await ok(api('POST', `/organizations/${org.id}/enabled_connections`, { connection_id: connectionId }), 201);
  }, 60_000);
  afterAll(async () => server?.close());

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid email offline_access', state: 'st', ...extra })}`;

  const location = (response: Response) => {
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') ?? '', server.url);
  };

  /** Posts the form of the page at `at` with `fields`; answers the redirect. */
  async function submit(browser: CookieClient, at: URL, fields: Record<string, string>): Promise<URL> {
    const html = await (await browser.get(at.pathname + at.search)).text();
    return location(await browser.postForm(formAction(html) ?? at.pathname + at.search, { state: inputValue(html, 'state') ?? '', ...fields }));
  }

  /** Logs in on the hosted page from `/authorize` with `extra`; answers where the browser is sent next. */
  async function login(browser: CookieClient, extra: Record<string, string>, credentials = { username: fx.user.email, password: fx.user.password }): Promise<URL> {
    return submit(browser, location(await browser.get(authorizeUrl(extra))), credentials);
  }

  async function tokensFor(callback: URL) {
    expect(callback.origin + callback.pathname, callback.href).toBe(fx.web.callback);
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code') ?? '', redirect_uri: fx.web.callback, client_id: fx.web.clientId, client_secret: fx.web.clientSecret }),
    });
    const body = (await response.json()) as Record<string, string>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  const refresh = async (refreshToken: string) => {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: fx.web.clientId, client_secret: fx.web.clientSecret }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, string>;
  };

  it('a member logs in to an organization by id or name: org_id in the tokens, on refresh and silently; org_name only when the tenant allows', async () => {
    await ok(api('POST', `/organizations/${org.id}/members`, { members: [fx.user.userId] }), 204);
    const browser = new CookieClient(server.url);
    const tokens = await tokensFor(await login(browser, { organization: org.id }));
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ org_id: org.id });
    expect(decodeJwt(tokens.id_token ?? '').org_name).toBeUndefined();
    expect(decodeJwt((await refresh(tokens.refresh_token ?? '')).id_token ?? '')).toMatchObject({ org_id: org.id });

    await ok(api('PATCH', '/tenants/settings', { allow_organization_name_in_authentication_api: true }));
    try {
      // By name (any case), silently from the same SSO session.
      const silent = location(await browser.get(authorizeUrl({ organization: 'ACME', prompt: 'none' })));
      expect(silent.searchParams.get('code'), silent.href).toBeTruthy();
      expect(decodeJwt((await tokensFor(silent)).id_token ?? '')).toMatchObject({ org_id: org.id, org_name: 'acme' });
    } finally {
      await ok(api('PATCH', '/tenants/settings', { allow_organization_name_in_authentication_api: false }));
    }
    // Without the parameter, no organization.
    expect(decodeJwt((await tokensFor(location(await browser.get(authorizeUrl())))).id_token ?? '').org_id).toBeUndefined();
  });

  it('refuses what the organization does not allow: a non-member, a connection not enabled for it, an unknown organization, a client that denies organizations', async () => {
    const stranger = await ok(api('POST', '/users', { connection: fx.connection, email: `stranger-${dialect}@example.com`, password: USER_PASSWORD }), 201);
    const refused = await login(new CookieClient(server.url), { organization: org.id }, { username: `stranger-${dialect}@example.com`, password: USER_PASSWORD });
    expect(refused.searchParams.get('error')).toBe('access_denied');
    expect(refused.searchParams.get('error_description')).toBe(`User '${String(stranger.user_id)}' is not part of the '${org.id}' organization.`);

    const other = await ok(api('POST', '/connections', { name: `other-${dialect}`, strategy: 'auth0', enabled_clients: [fx.web.clientId] }), 201);
    const wrongConnection = location(await new CookieClient(server.url).get(authorizeUrl({ organization: org.id, connection: String(other.name) })));
    expect(wrongConnection.searchParams.get('error_description')).toBe(`The connection '${String(other.name)}' is not enabled for the organization.`);
    const unknown = location(await new CookieClient(server.url).get(authorizeUrl({ organization: 'org_nope' })));
    expect(Object.fromEntries(unknown.searchParams)).toMatchObject({ error: 'invalid_request', error_description: 'parameter organization is invalid: no organization found for org_nope' });
    const denying = await ok(api('GET', `/clients/${fx.spa.clientId}`));
    expect(denying.organization_usage).toBeUndefined();
    const spaRefused = await new CookieClient(server.url).get(
      `/authorize?${new URLSearchParams({ client_id: fx.spa.clientId, redirect_uri: fx.spa.callback, response_type: 'code', scope: 'openid', state: 'st', organization: org.id, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
    );
    expect(location(spaRefused).searchParams.get('error_description')).toBe('parameter organization is not allowed for this client');

    // A connection that assigns membership on login makes the stranger a member.
    await ok(api('PATCH', `/organizations/${org.id}/enabled_connections/${connectionId}`, { assign_membership_on_login: true }));
    try {
      const joined = await login(new CookieClient(server.url), { organization: org.id }, { username: `stranger-${dialect}@example.com`, password: USER_PASSWORD });
      expect(decodeJwt((await tokensFor(joined)).id_token ?? '').org_id).toBe(org.id);
      const members = await ok(api('GET', `/organizations/${org.id}/members`));
      expect(members.map((member) => member.user_id)).toContain(stranger.user_id);
    } finally {
      await ok(api('PATCH', `/organizations/${org.id}/enabled_connections/${connectionId}`, { assign_membership_on_login: false }));
    }
  });

  it('an invitation: the link to initiate_login_uri, the accept-invitation screen, signup with the invited address, membership with its roles, once', async () => {
    const role = await ok(api('POST', '/roles', { name: `Org admin ${dialect}` }));
    const invitee = `invitee-${dialect}@example.com`;
    const invitation = await ok(
      api('POST', `/organizations/${org.id}/invitations`, { inviter: { name: 'Alice' }, invitee: { email: invitee }, client_id: fx.web.clientId, connection_id: connectionId, roles: [String(role.id)] }),
      201,
    );
    const link = new URL(String(invitation.invitation_url));
    expect(link.origin + link.pathname).toBe('https://app.example.com/login');
    expect(Object.fromEntries(link.searchParams)).toEqual({ invitation: invitation.ticket_id, organization: org.id, organization_name: 'acme' });
    // The e-mail carries the same link.
    const mail = (await server.registry.outbox.recent(200)).find((entry) => entry.channel === 'email' && entry.message.to === invitee);
    expect(mail?.channel === 'email' ? mail.message.text : '').toContain(link.href);

    const browser = new CookieClient(server.url);
    const params = { organization: org.id, invitation: String(invitation.ticket_id) };
    const accept = location(await browser.get(authorizeUrl(params)));
    expect(accept.pathname).toBe('/u/accept-invitation');
    const screen = await (await browser.get(accept.pathname + accept.search)).text();
    expect(screen).toContain('Alice invited you to join Acme Corp on');
    const signup = await submit(browser, accept, { action: 'default' });
    expect(signup.pathname).toBe('/u/signup');
    const joined = await submit(browser, signup, { email: invitee, password: USER_PASSWORD });
    const tokens = await tokensFor(joined);
    const claims = decodeJwt(tokens.id_token ?? '');
    expect(claims).toMatchObject({ org_id: org.id, email: invitee });
    const roles = await ok(api('GET', `/organizations/${org.id}/members/${encodeURIComponent(String(claims.sub))}/roles`));
    expect(roles.map((entry) => entry.id)).toEqual([role.id]);
    expect((await api('GET', `/organizations/${org.id}/invitations/${String(invitation.id)}`)).status).toBe(404);
    // Spent: the same link is refused.
    const again = location(await new CookieClient(server.url).get(authorizeUrl(params)));
    expect(again.searchParams.get('error')).toBe('invalid_request');
  });

  it('an invitation for another address is refused at login, and stays valid', async () => {
    const invitation = await ok(api('POST', `/organizations/${org.id}/invitations`, { inviter: { name: 'Bob' }, invitee: { email: `someone-else-${dialect}@example.com` }, client_id: fx.web.clientId, send_invitation_email: false }), 201);
    const browser = new CookieClient(server.url);
    const accept = location(await browser.get(authorizeUrl({ organization: org.id, invitation: String(invitation.ticket_id) })));
    const signup = await submit(browser, accept, {});
    // The invited address has no account: signup is offered; the user logs in with their own account instead.
    const loginPage = new URL(signup.href.replace('/u/signup', '/u/login'));
    const refused = await submit(browser, loginPage, { username: fx.user.email, password: fx.user.password });
    expect(Object.fromEntries(refused.searchParams)).toMatchObject({ error: 'access_denied', error_description: 'The invitation is for another e-mail address.' });
    expect((await api('GET', `/organizations/${org.id}/invitations/${String(invitation.id)}`)).status).toBe(200);
  });

  it('clients that require an organization: no_prompt refuses, pre_login_prompt asks its name first, post_login_prompt lets the member choose', async () => {
    await ok(api('POST', `/organizations/${org.id}/members`, { members: [fx.user.userId] }), 204);
    await ok(api('PATCH', `/clients/${fx.web.clientId}`, { organization_usage: 'require' }));
    try {
      const refused = location(await new CookieClient(server.url).get(authorizeUrl()));
      expect(refused.searchParams.get('error_description')).toBe('parameter organization is required for this client');

      await ok(api('PATCH', `/clients/${fx.web.clientId}`, { organization_require_behavior: 'pre_login_prompt' }));
      const browser = new CookieClient(server.url);
      const selection = location(await browser.get(authorizeUrl()));
      expect(selection.pathname).toBe('/u/organization-selection');
      const html = await (await browser.get(selection.pathname + selection.search)).text();
      const wrong = await browser.postForm(formAction(html) ?? '', { state: inputValue(html, 'state') ?? '', organizationName: 'no-such-org' });
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('The organization you entered is invalid.');
      const loginPage = await submit(browser, selection, { organizationName: 'acme' });
      expect(loginPage.pathname).toBe('/u/login');
      const selected = await submit(browser, loginPage, { username: fx.user.email, password: fx.user.password });
      expect(decodeJwt((await tokensFor(selected)).id_token ?? '').org_id).toBe(org.id);

      await ok(api('PATCH', `/clients/${fx.web.clientId}`, { organization_require_behavior: 'post_login_prompt' }));
      const chooser = new CookieClient(server.url);
      const picker = await login(chooser, {});
      expect(picker.pathname).toBe('/u/organization-picker');
      const page = await (await chooser.get(picker.pathname + picker.search)).text();
      expect(page).toMatch(new RegExp(`name="organization" value="${org.id}">Acme Corp</button>`));
      const chosen = await submit(chooser, picker, { organization: org.id });
      expect(decodeJwt((await tokensFor(chosen)).id_token ?? '').org_id).toBe(org.id);
      // Silently, the choice cannot be made.
      expect(location(await chooser.get(authorizeUrl({ prompt: 'none' }))).searchParams.get('error')).toBe('login_required');
    } finally {
      await ok(api('PATCH', `/clients/${fx.web.clientId}`, { organization_usage: 'allow', organization_require_behavior: 'no_prompt' }));
    }
  });

  it('RBAC in an organization: an enforce_policies API gets the permissions of the member\u2019s roles in that organization', async () => {
    await ok(api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, { enforce_policies: true, token_dialect: 'access_token_authz' }));
    try {
      const reader = await ok(api('POST', '/roles', { name: `Reader ${dialect}` }));
      await ok(api('POST', `/roles/${String(reader.id)}/permissions`, { permissions: [{ resource_server_identifier: fx.api.identifier, permission_name: 'read:things' }] }), 201);
      const writer = await ok(api('POST', '/roles', { name: `Writer ${dialect}` }));
      await ok(api('POST', `/roles/${String(writer.id)}/permissions`, { permissions: [{ resource_server_identifier: fx.api.identifier, permission_name: 'write:things' }] }), 201);
      // Globally a writer; in the organization a reader.
      await ok(api('POST', `/users/${encodeURIComponent(fx.user.userId)}/roles`, { roles: [writer.id] }), 204);
      await ok(api('POST', `/organizations/${org.id}/members`, { members: [fx.user.userId] }), 204);
      await ok(api('POST', `/organizations/${org.id}/members/${encodeURIComponent(fx.user.userId)}/roles`, { roles: [reader.id] }), 204);
      const scope = 'openid read:things write:things offline_access';
      const inOrg = await tokensFor(await login(new CookieClient(server.url), { organization: org.id, audience: fx.api.identifier, scope }));
      expect(decodeJwt(inOrg.access_token ?? '')).toMatchObject({ org_id: org.id, scope: 'openid read:things offline_access', permissions: ['read:things'] });
      expect(decodeJwt((await refresh(inOrg.refresh_token ?? '')).access_token ?? '')).toMatchObject({ org_id: org.id, permissions: ['read:things'] });
      const outside = await tokensFor(await login(new CookieClient(server.url), { audience: fx.api.identifier, scope }));
      expect(decodeJwt(outside.access_token ?? '')).toMatchObject({ scope: 'openid write:things offline_access', permissions: ['write:things'] });
    } finally {
      await ok(api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, { enforce_policies: false, token_dialect: 'access_token' }));
    }
  });
});
