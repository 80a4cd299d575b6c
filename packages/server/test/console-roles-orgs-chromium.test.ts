import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR_ROLE } from '../src/services/console-setup.js';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { passwordRealmForm, provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

// A 1×1 PNG, answered for the organization's logo address so that the page shows it without the network.
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/**
 * The console's Roles and Organizations areas in Chromium, over a socket, as an administrator uses them: a role is
 * given an API's permission and a user, and that user's own login for the API then carries the permission; an
 * organization gets its branding, a member with a role, an enabled connection and an invitation. The API's refusals
 * are shown in its words, and every removal asks first.
 */
describe('console Roles and Organizations in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let fx: LoginFixture;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ dialect: 'sqlite', listen: true, env: { LATCHKEY_CONSOLE: 'on' } }), launchChromium()]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    fx = await provisionLogin(server);
    // RBAC on the API, with the permissions claim: what a role grants is what the user's token carries.
    const rbac = await api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, { enforce_policies: true, token_dialect: 'access_token_authz' });
    expect(rbac.status).toBe(200);
    // The single-page application can carry invitations (it has a login URI); the web application cannot.
    expect((await api('PATCH', `/clients/${fx.spa.clientId}`, { initiate_login_uri: 'https://app.example.com/login' })).status).toBe(200);
    // Another role, so that the list shows more than the administrators' own.
    expect((await api('POST', '/roles', { name: 'Support agent', description: 'Reads users to answer tickets' })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedIn(run: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      await run(page);
    } finally {
      await context.close();
    }
  }

  /** The user's own password-realm login for the API: the permissions its access token carries. */
  async function permissionsInToken(): Promise<unknown> {
    const form = passwordRealmForm(fx, { audience: fx.api.identifier, scope: 'openid read:things write:things' });
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(form) });
    const tokens = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(tokens)).toBe(200);
    return decodeJwt(tokens.access_token).permissions;
  }

  it('creates a role, gives it an API permission and a user whose login then carries it; removes, deletes and warns about the administrators', async () => {
    expect(await permissionsInToken()).toEqual([]);
    await signedIn(async (page) => {
      await page.getByRole('link', { name: 'Roles', exact: true }).click();
      await expect.poll(() => page.getByRole('row', { name: new RegExp(ADMINISTRATOR_ROLE) }).textContent()).toContain('Console administrators');
      await page.getByRole('button', { name: 'Create role' }).click();
      await page.getByLabel('Name').fill('Things reader');
      await page.getByLabel('Description').fill('Reads the things');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Things reader' }).waitFor();

      // The API refuses a second role of the same name: its words, not silence.
      await page.getByLabel('Name').fill(ADMINISTRATOR_ROLE);
      await page.getByRole('button', { name: 'Save changes' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('A role with this name already exists.');
      await page.getByLabel('Name').fill('Things reader');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      const apiName = String((await api('GET', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`)).body.name);
      await page.getByLabel('API', { exact: true }).selectOption({ label: `${apiName} (${fx.api.identifier})` });
      await page.getByRole('checkbox', { name: 'read:things' }).check();
      await page.getByRole('button', { name: 'Add permissions' }).click();
      const permissions = page.getByRole('table', { name: 'Permissions of Things reader' });
      await permissions.getByRole('cell', { name: 'read:things', exact: true }).waitFor();

      await page.getByLabel('Assign the role to a user').fill(fx.user.email.split('@')[0] ?? '');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('button', { name: `Assign ${fx.user.email}` }).click();
      await page.getByRole('table', { name: 'Users holding Things reader' }).getByRole('link', { name: fx.user.email }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'roles-orgs-role');

      // The user's own login for the API now carries the role's permission, and only it.
      expect(await permissionsInToken()).toEqual(['read:things']);

      await permissions.getByRole('button', { name: 'Remove read:things' }).click();
      await page.getByRole('dialog', { name: 'Remove read:things?' }).getByRole('button', { name: 'Remove' }).click();
      await page.getByText('This role grants no permission yet.').waitFor();
      expect(await permissionsInToken()).toEqual([]);

      await page.getByRole('button', { name: `Remove ${fx.user.email}` }).click();
      const takeBack = page.getByRole('dialog', { name: `Take Things reader from ${fx.user.email}?` });
      await takeBack.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/users/${encodeURIComponent(fx.user.userId)}/roles`)).body).toHaveLength(1);
      await page.getByRole('button', { name: `Remove ${fx.user.email}` }).click();
      await takeBack.getByRole('button', { name: 'Remove' }).click();
      await page.getByText('Nobody holds this role yet.').waitFor();
      expect((await api('GET', `/users/${encodeURIComponent(fx.user.userId)}/roles`)).body).toEqual([]);

      const role = ((await api('GET', '/roles?name_filter=Things')).body[0] ?? {}) as { id?: string };
      await page.getByRole('button', { name: 'Delete role' }).click();
      await page.getByRole('dialog', { name: 'Delete Things reader?' }).getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/roles/${role.id}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete role' }).click();
      await page.getByRole('dialog', { name: 'Delete Things reader?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Roles' }).waitFor();
      expect((await api('GET', `/roles/${role.id}`)).status).toBe(404);
      await expectAccessible(page);
      await screenshot(page, 'roles-orgs-roles');

      // The administrators' role is marked, and taking it from its last holder or deleting it warns first.
      await page.getByRole('link', { name: ADMINISTRATOR_ROLE }).click();
      await page.getByText('This is the console’s own role').waitFor();
      await page.getByRole('button', { name: `Remove ${administrator.email}` }).click();
      const lastHolder = page.getByRole('dialog', { name: `Take ${ADMINISTRATOR_ROLE} from ${administrator.email}?` });
      expect(await lastHolder.textContent()).toContain('is the last holder of the console’s administrator role');
      await expectAccessible(page);
      await screenshot(page, 'roles-orgs-administrators-warning');
      await lastHolder.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete role' }).click();
      const deleteAdministrators = page.getByRole('dialog', { name: `Delete ${ADMINISTRATOR_ROLE}?` });
      expect(await deleteAdministrators.textContent()).toContain('Everyone who holds it, you included, loses access to this console');
      await deleteAdministrators.getByRole('button', { name: 'Cancel' }).click();
      const administrators = (await api('GET', `/users/${encodeURIComponent(administrator.user_id)}/roles`)).body;
      expect(administrators).toEqual([expect.objectContaining({ name: ADMINISTRATOR_ROLE })]);
    });
  }, 60_000);

  it('creates an organization, brands it, adds a member with a role, enables a connection, invites and revokes; deletes it after asking', async () => {
    const viewer = String((await api('POST', '/roles', { name: 'Org viewer', description: 'Sees the organization' })).body.id);
    const connectionId = String(((await api('GET', `/connections?name=${fx.connection}`)).body[0] as { id: string }).id);
    await signedIn(async (page) => {
      await page.route('https://logo.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: LOGO }));
      await page.getByRole('link', { name: 'Organizations', exact: true }).click();
      await page.getByText('Page 1 of 1 (0 organizations)').waitFor();
      await page.getByRole('button', { name: 'Create organization' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Acme Corp');
      await page.getByLabel('Display name').fill('Acme Corporation');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      // The name's rules are the API's: its refusal, in words.
      expect(await page.getByRole('alert').textContent()).toMatch(/name/);
      await page.getByLabel('Name', { exact: true }).fill('acme');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Acme Corporation' }).waitFor();
      const organization = { id: String((await api('GET', '/organizations/name/acme')).body.id) };

      await page.getByLabel('Logo URL').fill('https://logo.example/acme.png');
      await page.getByLabel('Use the organization’s own colours').check();
      await page.getByLabel('Primary colour').fill('#112233');
      await page.getByRole('button', { name: 'Add a pair' }).click();
      await page.getByLabel('Key 1').fill('tier');
      await page.getByLabel('Value 1').fill('gold');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await api('GET', `/organizations/${organization.id}`)).body).toMatchObject({
        display_name: 'Acme Corporation',
        branding: { logo_url: 'https://logo.example/acme.png', colors: { primary: '#112233', page_background: '#ffffff' } },
        metadata: { tier: 'gold' },
      });

      await page.getByLabel('Add a member').fill(fx.user.email);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('button', { name: `Add ${fx.user.email}` }).click();
      const members = page.getByRole('table', { name: 'Members of Acme Corporation' });
      await members.getByRole('link', { name: fx.user.email }).waitFor();
      await members.getByRole('button', { name: `Roles of ${fx.user.email}` }).click();
      await page.getByLabel('Find a role to give by name').fill('viewer');
      await page.getByLabel('Role to give', { exact: true }).selectOption({ label: 'Org viewer' });
      await page.getByRole('button', { name: 'Give role' }).click();
      await members.getByRole('cell', { name: 'Org viewer', exact: true }).waitFor();
      const memberRoles = await api('GET', `/organizations/${organization.id}/members/${encodeURIComponent(fx.user.userId)}/roles`);
      expect(memberRoles.body).toEqual([expect.objectContaining({ id: viewer })]);

      await page.getByLabel('Connection to enable').selectOption({ label: `${fx.connection} (auth0)` });
      await page.getByLabel('Members join on login', { exact: true }).check();
      await page.getByRole('button', { name: 'Enable connection' }).click();
      await page.getByRole('checkbox', { name: `Members join on login with ${fx.connection}` }).waitFor();
      expect((await api('GET', `/organizations/${organization.id}/enabled_connections/${connectionId}`)).body).toMatchObject({ assign_membership_on_login: true });

      await page.getByRole('button', { name: 'Invite someone' }).click();
      await page.getByLabel('Inviter’s name').fill('Ada Admin');
      await page.getByLabel('Invitee’s e-mail address').fill('new.hire@example.com');
      await page.getByLabel('Application').selectOption({ label: `Web ${fx.connection.slice(3)} (no login URI)` });
      await page.getByRole('button', { name: 'Send invitation' }).click();
      // An application without a login URI cannot receive the invitation's link: the API says so.
      expect(await page.getByRole('alert').textContent()).toContain('initiate_login_uri');
      await page.getByLabel('Application').selectOption({ label: `SPA ${fx.connection.slice(3)}` });
      await page.getByLabel('Connection to log in with').selectOption({ label: fx.connection });
      await page.getByLabel('Find a role by name').fill('viewer');
      await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Org viewer' });
      await page.getByRole('button', { name: 'Add role' }).click();
      await page.getByLabel('Valid for (days)').fill('3');
      await page.getByLabel('Send the invitation e-mail').uncheck();
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByRole('status').filter({ hasText: 'new.hire@example.com is invited' }).waitFor();
      const invitations = page.getByRole('table', { name: 'Invitations to Acme Corporation' });
      await invitations.getByRole('cell', { name: 'new.hire@example.com', exact: true }).waitFor();
      const stored = (await api('GET', `/organizations/${organization.id}/invitations`)).body[0] as { roles: string[]; connection_id: string; client_id: string; created_at: string; expires_at: string };
      expect(stored).toMatchObject({ roles: [viewer], connection_id: connectionId, client_id: fx.spa.clientId });
      expect(Date.parse(stored.expires_at) - Date.parse(stored.created_at)).toBe(3 * 86_400_000);
      await expect.poll(() => page.locator('img.logo-preview').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(1);
      await expectAccessible(page);
      await screenshot(page, 'roles-orgs-organization');

      await invitations.getByRole('button', { name: 'Revoke the invitation of new.hire@example.com' }).click();
      await page.getByRole('dialog', { name: 'Revoke the invitation of new.hire@example.com?' }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('No pending invitation.').waitFor();
      expect((await api('GET', `/organizations/${organization.id}/invitations`)).body).toEqual([]);

      await members.getByRole('button', { name: `Remove ${fx.user.email}` }).click();
      await page.getByRole('dialog', { name: `Remove ${fx.user.email} from Acme Corporation?` }).getByRole('button', { name: 'Remove' }).click();
      await page.getByText('No member yet.').waitFor();
      expect((await api('GET', `/organizations/${organization.id}/members`)).body).toEqual([]);

      await page.getByRole('link', { name: '← Organizations' }).click();
      await page.getByRole('link', { name: 'Acme Corporation' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'roles-orgs-organizations');
      await page.getByRole('link', { name: 'Acme Corporation' }).click();
      await page.getByRole('button', { name: 'Delete organization' }).click();
      await page.getByRole('dialog', { name: 'Delete Acme Corporation?' }).getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/organizations/${organization.id}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete organization' }).click();
      await page.getByRole('dialog', { name: 'Delete Acme Corporation?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Organizations' }).waitFor();
      expect((await api('GET', `/organizations/${organization.id}`)).status).toBe(404);
    });
  }, 60_000);
});
