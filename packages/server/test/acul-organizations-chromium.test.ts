import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundleOrigin, type BundleOrigin } from './support/acul-bundles.js';
import { configureAculBundle, renderedBySdk, sdkErrors, shownJson, submitThroughSdk } from './support/acul-screens.js';
import { startHostedLoginWorld, type HostedLoginWorld } from './support/hosted-login-browser.js';
import { USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import type { ManagementApi } from './support/management-api.js';

/**
 * The tenant bundle written with the platform's Advanced Customizations SDK (`@auth0/auth0-acul-js`, unmodified;
 * test/fixtures/acul/vanilla.ts) on the screens of consent and organizations, in Chromium: the SDK's own classes
 * (`Consent`, `OrganizationSelection`, `OrganizationPicker`, `AcceptInvitation`) parse Latchkey's
 * `universal_login_context` and post their answers; each flow ends at the application's callback with a code
 * exchanged for tokens (or with the error the application is answered).
 */

type Client = { clientId: string; clientSecret: string };

/** What the SDK's `Organization` model reads from the context (`sdk.organization`). */
interface OrganizationModel {
  id: string | null;
  name: string | null;
  usage: string | null;
}

describe('the platform SDK on the consent and organization screens, in Chromium', () => {
  let world: HostedLoginWorld;
  let fx: LoginFixture;
  let api: ManagementApi;
  let bundles: BundleOrigin;
  /** A third-party application (consent). */
  let partner: Client;
  /** Applications that require an organization: asking its name before login, or letting the member choose after. */
  let preLogin: Client;
  let postLogin: Client;
  /** An application that allows organizations, with an initiate_login_uri for invitation links. */
  let inviting: Client;
  let acme: { id: string; name: string };
  let globex: { id: string; name: string };

  const SCREENS = [
    ['login', 'login'],
    ['signup', 'signup'],
    ['consent', 'consent'],
    ['organizations', 'organization-selection'],
    ['organizations', 'organization-picker'],
    ['invitation', 'accept-invitation'],
  ] as const;

  const ok = async (response: Promise<{ status: number; body: unknown }>, status = 200) => {
    const answer = await response;
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body as Record<string, unknown> & Record<string, unknown>[];
  };

  async function createClient(name: string, settings: Record<string, unknown>): Promise<Client> {
    const created = await ok(
      api('POST', '/clients', { name, app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: ['authorization_code'], ...settings }),
      201,
    );
    return { clientId: String(created.client_id), clientSecret: String(created.client_secret) };
  }

  async function createOrganization(name: string, displayName: string): Promise<{ id: string; name: string }> {
    const created = await ok(api('POST', '/organizations', { name, display_name: displayName, branding: { logo_url: `https://cdn.example.com/${name}.png` } }), 201);
    return { id: String(created.id), name };
  }

  beforeAll(async () => {
    world = await startHostedLoginWorld();
    ({ fx, api } = world);
    partner = await createClient('Partner app', { is_first_party: false });
    preLogin = await createClient('Pre-login org app', { organization_usage: 'require', organization_require_behavior: 'pre_login_prompt' });
    postLogin = await createClient('Post-login org app', { organization_usage: 'require', organization_require_behavior: 'post_login_prompt' });
    inviting = await createClient('Inviting app', { organization_usage: 'allow', initiate_login_uri: 'https://app.example.com/login' });
    const [connection] = await ok(api('GET', `/connections?name=${fx.connection}`));
    const connectionId = String(connection?.id);
    const enabled = (connection?.enabled_clients as string[] | undefined) ?? [];
    await ok(api('PATCH', `/connections/${connectionId}`, { enabled_clients: [...enabled, partner.clientId, preLogin.clientId, postLogin.clientId, inviting.clientId] }));
    // The fixture's API describes its scopes, as the consent screen lists them.
    await ok(
      api('PATCH', `/resource-servers/${encodeURIComponent(fx.api.identifier)}`, {
        scopes: [
          { value: 'read:things', description: 'Read your things' },
          { value: 'write:things', description: 'Change your things' },
        ],
      }),
    );
    acme = await createOrganization('acme', 'Acme Corp');
    globex = await createOrganization('globex', 'Globex');
    for (const organization of [acme, globex]) {
      await ok(api('POST', `/organizations/${organization.id}/enabled_connections`, { connection_id: connectionId }), 201);
      await ok(api('POST', `/organizations/${organization.id}/members`, { members: [fx.user.userId] }), 204);
    }
    await ok(api('PATCH', '/prompts', { identifier_first: false }));
    bundles = await startBundleOrigin();
    await configureAculBundle(api, bundles.vanillaUrl, SCREENS, [partner.clientId, preLogin.clientId, postLogin.clientId, inviting.clientId]);
  }, 120_000);
  afterAll(async () => {
    await bundles?.close();
    await world?.close();
  });

  const idClaims = (tokens: Record<string, unknown>) => decodeJwt(String(tokens.id_token));

  /** The bundle's login screen: the SDK's `login()` with the fixture user's credentials (or `credentials`). */
  async function logInThroughSdk(page: Page, credentials = { username: fx.user.email, password: fx.user.password }): Promise<void> {
    await renderedBySdk(page, 'login');
    await page.fill('#username', credentials.username);
    await page.fill('#password', credentials.password);
    await submitThroughSdk(page);
  }

  describe('consent (a third-party application)', () => {
    // prompt=consent: asked each time, whatever an earlier test granted.
    const params = () => ({ audience: fx.api.identifier, scope: 'openid read:things write:things', prompt: 'consent' });

    it('the SDK lists the scopes with their descriptions; accept() answers with a code, exchanged for tokens with those scopes', async () => {
      const { page, close } = await world.open(partner.clientId, params());
      await logInThroughSdk(page);
      await renderedBySdk(page, 'consent');
      expect(new URL(page.url()).pathname).toBe('/u/consent');
      expect(await shownJson(page, '#acul-scopes')).toEqual({
        scopes: [
          { value: 'openid', description: '' },
          { value: 'read:things', description: 'Read your things' },
          { value: 'write:things', description: 'Change your things' },
        ],
        hideScopes: false,
      });
      // The user has logged in: the context names them (and nothing more about them than the platform's fields).
      expect(await page.evaluate(() => (window as unknown as { universal_login_context: { user: Record<string, unknown> } }).universal_login_context.user)).toMatchObject({ id: fx.user.userId, email: fx.user.email });
      await submitThroughSdk(page, '#consent-accept');
      const tokens = await world.exchangeAtCallback(page, partner);
      expect(tokens.scope).toBe('openid read:things write:things');
      expect(decodeJwt(String(tokens.access_token)).scope).toBe('openid read:things write:things');
      const grants = await ok(api('GET', `/grants?client_id=${partner.clientId}`));
      expect(grants.map((grant) => grant.scope)).toEqual([['openid', 'read:things', 'write:things']]);
      await close();
    });

    it('deny() answers the application access_denied', async () => {
      const { page, close } = await world.open(partner.clientId, params());
      await logInThroughSdk(page);
      await renderedBySdk(page, 'consent');
      await Promise.all([page.waitForURL(`${world.callback.origin}/**`), page.click('#consent-deny')]);
      const answered = new URL(page.url());
      expect(answered.pathname).toBe('/callback');
      expect(Object.fromEntries(answered.searchParams)).toEqual({ error: 'access_denied', error_description: 'User did not authorize the request', state: 'app-state' });
      await close();
    });
  });

  describe('organization prompts (applications that require an organization)', () => {
    it('pre_login_prompt: the SDK sends the organization name (a wrong one read back through getErrors()), then logs in; the ID token has org_id', async () => {
      const { page, close } = await world.open(preLogin.clientId);
      await renderedBySdk(page, 'organization-selection');
      expect(new URL(page.url()).pathname).toBe('/u/organization-selection');
      await page.fill('#organization-name', 'no-such-org');
      await submitThroughSdk(page);
      await renderedBySdk(page, 'organization-selection');
      expect((await sdkErrors(page))?.map((error) => [error.code, error.field])).toEqual([['invalid-organization', 'organizationName']]);

      await page.fill('#organization-name', 'acme');
      await submitThroughSdk(page);
      await renderedBySdk(page, 'login');
      // The login screen now runs in the organization's context, as the SDK reads it.
      expect(await shownJson<OrganizationModel>(page, '#acul-organization')).toMatchObject({ id: acme.id, name: 'acme', usage: 'require' });
      await logInThroughSdk(page);
      const tokens = await world.exchangeAtCallback(page, preLogin);
      expect(idClaims(tokens)).toMatchObject({ sub: fx.user.userId, org_id: acme.id });
      await close();
    });

    it('post_login_prompt: after login the SDK lists the user’s organizations (user.organizations) and selectOrganization() picks one; the ID token has its org_id', async () => {
      const { page, close } = await world.open(postLogin.clientId);
      await logInThroughSdk(page);
      await renderedBySdk(page, 'organization-picker');
      expect(new URL(page.url()).pathname).toBe('/u/organization-picker');
      const listed = await shownJson<Array<{ organizationId: string; organizationName: string; displayName: string; branding: { logoUrl?: string } }>>(page, '#acul-organizations');
      expect([...listed].sort((a, b) => a.organizationName.localeCompare(b.organizationName))).toEqual([
        { organizationId: acme.id, organizationName: 'acme', displayName: 'Acme Corp', branding: { logoUrl: 'https://cdn.example.com/acme.png' } },
        { organizationId: globex.id, organizationName: 'globex', displayName: 'Globex', branding: { logoUrl: 'https://cdn.example.com/globex.png' } },
      ]);
      expect(await page.textContent(`#organization-${globex.id}`)).toBe('Globex');
      await submitThroughSdk(page, `#organization-${globex.id}`);
      const tokens = await world.exchangeAtCallback(page, postLogin);
      expect(idClaims(tokens)).toMatchObject({ sub: fx.user.userId, org_id: globex.id });
      await close();
    });
  });

  describe('invitations', () => {
    it('the invitation link’s parameters lead to accept-invitation (inviter and address read by the SDK); acceptInvitation() leads to signup; the new member’s ID token has org_id', async () => {
      const invitee = `acul-invitee-${Date.now()}@example.com`;
      const invitation = await ok(
        api('POST', `/organizations/${acme.id}/invitations`, { inviter: { name: 'Alice' }, invitee: { email: invitee }, client_id: inviting.clientId, send_invitation_email: false }),
        201,
      );
      // The link goes to the application's initiate_login_uri, which starts the login with what it carries.
      const link = new URL(String(invitation.invitation_url));
      expect(link.origin + link.pathname).toBe('https://app.example.com/login');
      const carried = { organization: link.searchParams.get('organization') ?? '', invitation: link.searchParams.get('invitation') ?? '' };
      expect(carried).toEqual({ organization: acme.id, invitation: invitation.ticket_id });

      const { page, close } = await world.open(inviting.clientId, carried);
      await renderedBySdk(page, 'accept-invitation');
      expect(new URL(page.url()).pathname).toBe('/u/accept-invitation');
      expect(await shownJson(page, '#acul-data')).toEqual({ inviter: 'Alice', email: invitee });
      expect(await shownJson<OrganizationModel>(page, '#acul-organization')).toMatchObject({ id: acme.id, name: 'acme', usage: 'allow' });
      await submitThroughSdk(page);

      // The invited address has no account yet: signup, with that address.
      await renderedBySdk(page, 'signup');
      await page.fill('#email', invitee);
      await page.fill('#password', USER_PASSWORD);
      await submitThroughSdk(page);
      const tokens = await world.exchangeAtCallback(page, inviting);
      const claims = idClaims(tokens);
      expect(claims).toMatchObject({ email: invitee, org_id: acme.id });
      const members = await ok(api('GET', `/organizations/${acme.id}/members`));
      expect(members.map((member) => member.user_id)).toContain(claims.sub);
      // Accepted: the invitation is gone.
      expect((await api('GET', `/organizations/${acme.id}/invitations/${String(invitation.id)}`)).status).toBe(404);
      await close();
    });
  });
});
