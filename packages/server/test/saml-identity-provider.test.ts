import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities, inputValue } from './support/browser-client.js';
import { signInForSaml } from './support/saml-idp.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const SP_ENTITY = 'https://sp.example.com/metadata';
const ACS = 'https://sp.example.com/acs';
const SLO = 'https://sp.example.com/slo';
/** The add-on as the tests leave it: the service provider's entity is registered as the audience. */
const ADDON = { audience: SP_ENTITY, mappings: { email: 'email' }, logout: { callback: SLO, slo_enabled: true } };

/**
 * Latchkey as a SAML identity provider (the SAML2 Web App add-on), over a real socket, judged by a real SAML
 * service provider library (node-saml): it checks the signature with the certificate from Latchkey's metadata,
 * the issuer, audience, recipient, times and InResponseTo.
 */
describe('SAML2 Web App add-on (Latchkey as identity provider)', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let certificate: string;
  let entityId: string;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    const patched = await api('PATCH', `/clients/${fx.web.clientId}`, {
      callbacks: [fx.web.callback, ACS],
      addons: { samlp: ADDON },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const metadata = await (await fetch(`${server.url}/samlp/metadata/${fx.web.clientId}`)).text();
    entityId = /entityID="([^"]+)"/.exec(metadata)?.[1] ?? '';
    const der = /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(metadata)?.[1] ?? '';
    certificate = new X509Certificate(Buffer.from(der, 'base64')).toString();
    expect(metadata).toContain(`Location="${server.url}/samlp/${fx.web.clientId}"`);
  });
  afterAll(async () => server?.close());

  const serviceProviderOptions = (options: { wantAuthnResponseSigned?: boolean } = {}) => ({
    entryPoint: `${server.url}/samlp/${fx.web.clientId}`,
    issuer: SP_ENTITY,
    callbackUrl: ACS,
    idpCert: certificate,
    idpIssuer: entityId,
    audience: SP_ENTITY,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: options.wantAuthnResponseSigned ?? false,
    validateInResponseTo: ValidateInResponseTo.always,
    identifierFormat: null,
  });
  const serviceProvider = (options: { wantAuthnResponseSigned?: boolean } = {}) => new SAML(serviceProviderOptions(options));

  /** The page that posts the SAML response to the application: its fields. */
  async function postedFields(response: Response) {
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(decodeEntities(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '')).toBe(ACS);
    return { SAMLResponse: decodeEntities(inputValue(html, 'SAMLResponse') ?? ''), RelayState: decodeEntities(inputValue(html, 'RelayState') ?? '') };
  }

  const signIn = (browser: CookieClient, url: string) => signInForSaml(server, fx, browser, url);

  it('signs the user in through the hosted page and posts a response the service provider accepts; the session then answers at once', async () => {
    const sp = serviceProvider();
    const browser = new CookieClient(server.url);
    const fields = await postedFields(await signIn(browser, await sp.getAuthorizeUrlAsync('relay-one', undefined, {})));
    expect(fields.RelayState).toBe('relay-one');
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse });
    expect(profile).toMatchObject({ issuer: entityId, nameID: fx.user.userId, email: fx.user.email });

    const again = await postedFields(await browser.get(await sp.getAuthorizeUrlAsync('relay-two', undefined, {})));
    expect((await sp.validatePostResponseAsync({ SAMLResponse: again.SAMLResponse })).profile).toMatchObject({ nameID: fx.user.userId });
  });

  it('runs the post-login Actions when the SSO session answers a SAML application, and shows a denial instead of the response', async () => {
    const sp = serviceProvider();
    const browser = new CookieClient(server.url);
    await postedFields(await signIn(browser, await sp.getAuthorizeUrlAsync('relay-before', undefined, {})));
    const code = "exports.onExecutePostLogin = async (event, api) => { if (event.transaction.protocol === 'samlp') api.access.deny('No SAML today for ' + event.client.client_id); };";
    const created = await api('POST', '/actions/actions', { name: 'No SAML', supported_triggers: [{ id: 'post-login', version: 'v3' }], code });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('POST', `/actions/actions/${String(created.body.id)}/deploy`)).status).toBe(202);
    const bind = (bindings: unknown[]) => api('PATCH', '/actions/triggers/post-login/bindings', { bindings });
    expect((await bind([{ ref: { type: 'action_id', value: String(created.body.id) }, display_name: 'no saml' }])).status).toBe(200);
    try {
      const refused = await browser.get(await sp.getAuthorizeUrlAsync('relay-after', undefined, {}));
      expect(refused.status).toBe(403);
      const page = await refused.text();
      expect(page).toContain(`No SAML today for ${fx.web.clientId}`);
      expect(page).not.toContain('SAMLResponse');
    } finally {
      expect((await bind([])).status).toBe(200);
    }
  });

  it('identity-provider-initiated: without an AuthnRequest, a response for the application’s first assertion consumer service', async () => {
    const answer = await signIn(new CookieClient(server.url), `/samlp/${fx.web.clientId}?RelayState=from-idp`);
    const page = await answer.text();
    expect(decodeEntities(/<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '')).toBe(fx.web.callback);
    const unsolicited = new SAML({ issuer: SP_ENTITY, callbackUrl: fx.web.callback, idpCert: certificate, idpIssuer: entityId, audience: SP_ENTITY, wantAssertionsSigned: true, wantAuthnResponseSigned: false });
    const { profile } = await unsolicited.validatePostResponseAsync({ SAMLResponse: decodeEntities(inputValue(page, 'SAMLResponse') ?? '') });
    expect(profile).toMatchObject({ nameID: fx.user.userId });
    expect(decodeEntities(inputValue(page, 'RelayState') ?? '')).toBe('from-idp');
  });

  it('signs the whole response too when the add-on asks, and the service provider checks that signature', async () => {
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: { ...ADDON, signResponse: true } } })).status).toBe(200);
    try {
      const sp = serviceProvider({ wantAuthnResponseSigned: true });
      const fields = await postedFields(await signIn(new CookieClient(server.url), await sp.getAuthorizeUrlAsync('', undefined, {})));
      expect((await sp.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse })).profile).toMatchObject({ nameID: fx.user.userId });
    } finally {
      await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: ADDON } });
    }
  });

  it('takes an AuthnRequest by the POST binding, and names the user by the configured probes and format', async () => {
    const format = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: { ...ADDON, nameIdentifierFormat: format, nameIdentifierProbes: ['email'] } } })).status).toBe(200);
    try {
      const sp = new SAML({ ...serviceProviderOptions(), authnRequestBinding: 'HTTP-POST' });
      const form = await sp.getAuthorizeFormAsync('posted');
      const samlRequest = decodeEntities(/name="SAMLRequest" value="([^"]+)"/.exec(form)?.[1] ?? '');
      const browser = new CookieClient(server.url);
      const start = await browser.postForm(`/samlp/${fx.web.clientId}`, { SAMLRequest: samlRequest, RelayState: 'posted' });
      expect(start.status).toBe(302);
      const loginPage = new URL(start.headers.get('location') ?? '', server.url);
      const html = await (await browser.get(loginPage.pathname + loginPage.search)).text();
      const answer = await browser.postForm(loginPage.pathname + loginPage.search, { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '', username: fx.user.email, password: fx.user.password });
      const fields = await postedFields(answer);
      expect(fields.RelayState).toBe('posted');
      expect((await sp.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse })).profile).toMatchObject({ nameID: fx.user.email, nameIDFormat: format });
    } finally {
      await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: ADDON } });
    }
  });

  it('refuses an assertion consumer service the application does not list, and an application without the add-on', async () => {
    const stranger = new SAML({ entryPoint: `${server.url}/samlp/${fx.web.clientId}`, issuer: SP_ENTITY, callbackUrl: 'https://evil.example/acs', idpCert: certificate });
    expect((await new CookieClient(server.url).get(await stranger.getAuthorizeUrlAsync('', undefined, {}))).status).toBe(400);
    expect((await new CookieClient(server.url).get(`/samlp/${fx.spa.clientId}`)).status).toBe(404);
    expect((await new CookieClient(server.url).get(`/samlp/${fx.web.clientId}?SAMLRequest=bm90IHhtbA%3D%3D`)).status).toBe(400);
    const dtd = Buffer.from('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1">&e;</samlp:AuthnRequest>').toString('base64');
    expect((await new CookieClient(server.url).postForm(`/samlp/${fx.web.clientId}`, { SAMLRequest: dtd })).status).toBe(400);
  });

  it('the service provider library refuses the response for another audience or under another certificate', async () => {
    const sp = serviceProvider();
    const fields = await postedFields(await signIn(new CookieClient(server.url), await sp.getAuthorizeUrlAsync('', undefined, {})));
    const other = new SAML({ issuer: 'https://other-sp.example/metadata', callbackUrl: ACS, idpCert: certificate, audience: 'https://other-sp.example/metadata', wantAssertionsSigned: true, wantAuthnResponseSigned: false });
    await expect(other.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse })).rejects.toThrow(/audience/i);
    const wrongKey = new SAML({ issuer: SP_ENTITY, callbackUrl: ACS, idpCert: readFileSync(new URL('./fixtures/mtls-client-one.pem', import.meta.url), 'utf8'), audience: SP_ENTITY, wantAssertionsSigned: true, wantAuthnResponseSigned: false });
    await expect(wrongKey.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse })).rejects.toThrow(/signature/i);
  });

  it('takes the Audience from an AuthnRequest only when its Issuer names an entity the application registered', async () => {
    const audienceOf = (samlResponse: string) => decodeEntities(/<saml:Audience>([^<]*)<\/saml:Audience>/.exec(Buffer.from(samlResponse, 'base64').toString('utf8'))?.[1] ?? '');
    /** A service provider of the tenant that claims another entity's ID as the Issuer of its AuthnRequests. */
    const claiming = (entity: string) => new SAML({ ...serviceProviderOptions(), issuer: entity, audience: entity });
    const victim = claiming('https://victim-sp.example/metadata');
    const browser = new CookieClient(server.url);
    const registered = await postedFields(await signIn(browser, await victim.getAuthorizeUrlAsync('', undefined, {})));
    expect(audienceOf(registered.SAMLResponse)).toBe(SP_ENTITY);
    await expect(victim.validatePostResponseAsync({ SAMLResponse: registered.SAMLResponse })).rejects.toThrow(/audience/i);
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: { ...ADDON, audience: undefined } } })).status).toBe(200);
    try {
      // Without a registered audience: the assertion consumer service, unless the Issuer is one of the application's URLs.
      const fallback = await postedFields(await browser.get(await victim.getAuthorizeUrlAsync('', undefined, {})));
      expect(audienceOf(fallback.SAMLResponse)).toBe(ACS);
      await expect(victim.validatePostResponseAsync({ SAMLResponse: fallback.SAMLResponse })).rejects.toThrow(/audience/i);
      const byCallback = claiming(fx.web.callback);
      const named = await postedFields(await browser.get(await byCallback.getAuthorizeUrlAsync('', undefined, {})));
      expect(audienceOf(named.SAMLResponse)).toBe(fx.web.callback);
      expect((await byCallback.validatePostResponseAsync({ SAMLResponse: named.SAMLResponse })).profile).toMatchObject({ nameID: fx.user.userId });
    } finally {
      await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: ADDON } });
    }
  });
});
