import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SAML } from '@node-saml/node-saml';
import { SignedXml } from 'xml-crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities, inputValue } from './support/browser-client.js';
import { selfSignedCertificate } from './support/certificates.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { signInForSaml } from './support/saml-idp.js';

const SP_ENTITY = 'https://sp.example.com/metadata';
const ACS = 'https://sp.example.com/acs';
const SLO = 'https://sp.example.com/slo';
const ADDON = { audience: SP_ENTITY, logout: { callback: SLO, slo_enabled: true } };
const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

const pemPair = (name: string) => {
  const { key, cert } = selfSignedCertificate(name);
  return { key: key.toString('utf8'), cert: cert.toString('utf8') };
};

/**
 * Single logout at Latchkey as SAML identity provider, over a real socket. A plain link must not end anyone's
 * session: an application with a registered certificate is obeyed only through LogoutRequests it signed
 * (node-saml signs the redirect binding, xml-crypto the POST binding, as service providers do); any other gets
 * a confirmation page whose form only the session's browser can submit.
 */
describe('SAML single logout (Latchkey as identity provider)', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let entityId: string;
  const sp = pemPair('service-provider');
  const attacker = pemPair('attacker');
  const logoutPath = () => `/samlp/${fx.web.clientId}/logout`;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { callbacks: [fx.web.callback, ACS], addons: { samlp: ADDON } })).status).toBe(200);
    entityId = /entityID="([^"]+)"/.exec(await (await fetch(`${server.url}/samlp/metadata/${fx.web.clientId}`)).text())?.[1] ?? '';
  });
  afterAll(async () => server?.close());

  it('publishes single logout for both bindings in the metadata', async () => {
    const metadata = await (await fetch(`${server.url}/samlp/metadata/${fx.web.clientId}`)).text();
    for (const binding of ['HTTP-Redirect', 'HTTP-POST']) {
      expect(metadata).toContain(`<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${server.url}${logoutPath()}"/>`);
    }
  });

  const registerCertificate = async (signingCert: string | undefined) =>
    (await api('PATCH', `/clients/${fx.web.clientId}`, { addons: { samlp: { ...ADDON, ...(signingCert !== undefined ? { signingCert } : {}) } } })).status;

  /** A browser with an SSO session (an identity-provider-initiated sign-on through the login page). */
  async function signedIn(): Promise<CookieClient> {
    const browser = new CookieClient(server.url);
    expect((await signInForSaml(server, fx, browser, `/samlp/${fx.web.clientId}`)).status).toBe(200);
    return browser;
  }
  /** A session answers a sign-on at once; without one it goes to the login page. */
  const hasSession = async (browser: CookieClient) => (await browser.get(`/samlp/${fx.web.clientId}`)).status === 200;

  /** The service provider library, signing its LogoutRequests with `key` when given. */
  const serviceProvider = (key?: string) =>
    new SAML({ issuer: SP_ENTITY, callbackUrl: ACS, idpCert: sp.cert, entryPoint: `${server.url}/samlp/${fx.web.clientId}`, logoutUrl: `${server.url}${logoutPath()}`, ...(key ? { privateKey: key, signatureAlgorithm: 'sha256' as const } : {}) });
  const logoutUrl = async (library: SAML, relayState = 'leaving') => {
    const url = new URL(await library.getLogoutUrlAsync({ issuer: entityId, nameID: fx.user.userId, nameIDFormat: UNSPECIFIED }, relayState, {}));
    return url.pathname + url.search;
  };
  const requestIdOf = (path: string) => /ID="([^"]+)"/.exec(inflateRawSync(Buffer.from(new URL(path, server.url).searchParams.get('SAMLRequest') ?? '', 'base64')).toString())?.[1];

  /** The LogoutResponse the service provider's logout URL receives. */
  function logoutResponse(response: Response) {
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe(SLO);
    const xml = inflateRawSync(Buffer.from(back.searchParams.get('SAMLResponse') ?? '', 'base64')).toString();
    expect(xml).toContain('urn:oasis:names:tc:SAML:2.0:status:Success');
    return { xml, relayState: back.searchParams.get('RelayState') };
  }

  describe('an application without a registered certificate', () => {
    beforeAll(async () => expect(await registerCertificate(undefined)).toBe(200));

    it('a logout link only asks; the session ends when the user submits the confirmation form', async () => {
      const browser = await signedIn();
      const hostile = '"><script>alert(1)</script>';
      const page = await browser.get(`${logoutPath()}?RelayState=${encodeURIComponent(hostile)}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      const html = await page.text();
      expect(html).not.toContain('<script');
      expect(inputValue(html, 'RelayState')).toBe(hostile);
      expect(await hasSession(browser)).toBe(true);

      // What another site can send along with the browser's cookies: no token, or a guessed one.
      expect((await browser.postForm(logoutPath(), { RelayState: 'x' })).status).toBe(200);
      expect((await browser.postForm(logoutPath(), { RelayState: 'x', _csrf: 'forged' })).status).toBe(403);
      // Another browser's token is worth nothing here either.
      const other = await signedIn();
      const otherToken = inputValue(await (await other.get(logoutPath())).text(), '_csrf') ?? '';
      expect((await browser.postForm(logoutPath(), { RelayState: 'x', _csrf: otherToken })).status).toBe(403);
      expect(await hasSession(browser)).toBe(true);

      const action = decodeEntities(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '');
      expect(action).toBe(logoutPath());
      const confirmed = await browser.postForm(action, { RelayState: inputValue(html, 'RelayState') ?? '', _csrf: inputValue(html, '_csrf') ?? '' });
      expect(logoutResponse(confirmed).relayState).toBe(hostile);
      expect(await hasSession(browser)).toBe(false);
      expect(await hasSession(other)).toBe(true);
    });

    it('answers an unsigned LogoutRequest of the service provider library, after confirmation, in response to it', async () => {
      const browser = await signedIn();
      const path = await logoutUrl(serviceProvider());
      const html = await (await browser.get(path)).text();
      expect(await hasSession(browser)).toBe(true);
      const confirmed = await browser.postForm(logoutPath(), { SAMLRequest: inputValue(html, 'SAMLRequest') ?? '', RelayState: inputValue(html, 'RelayState') ?? '', _csrf: inputValue(html, '_csrf') ?? '' });
      const answer = logoutResponse(confirmed);
      expect(answer.xml).toContain(`InResponseTo="${requestIdOf(path)}"`);
      expect(answer.relayState).toBe('leaving');
      expect(await hasSession(browser)).toBe(false);
    });

    it('without a session there is nothing to confirm; an unreadable request is refused', async () => {
      expect(logoutResponse(await new CookieClient(server.url).get(`${logoutPath()}?RelayState=bye`)).relayState).toBe('bye');
      const browser = await signedIn();
      expect((await browser.get(`${logoutPath()}?SAMLRequest=bm90IHhtbA%3D%3D`)).status).toBe(400);
      expect(await hasSession(browser)).toBe(true);
    });
  });

  describe('an application that registered its signing certificate', () => {
    beforeAll(async () => expect(await registerCertificate(sp.cert)).toBe(200));

    /** A LogoutRequest for the POST binding, signed with xml-crypto over its root element. */
    function postedLogoutRequest(key: string, issued = new Date()) {
      const id = `_lr${randomBytes(12).toString('hex')}`;
      const request =
        `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${issued.toISOString()}" Destination="${server.url}${logoutPath()}">` +
        `<saml:Issuer>${SP_ENTITY}</saml:Issuer><saml:NameID Format="${UNSPECIFIED}">${fx.user.userId}</saml:NameID></samlp:LogoutRequest>`;
      const signer = new SignedXml({ privateKey: key, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#' });
      signer.addReference({
        xpath: "/*[local-name(.)='LogoutRequest']",
        transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
        digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      });
      signer.computeSignature(request, { location: { reference: "//*[local-name(.)='Issuer']", action: 'after' } });
      return { id, SAMLRequest: Buffer.from(signer.getSignedXml()).toString('base64') };
    }

    it('refuses a certificate that is none', async () => {
      expect(await registerCertificate('not a certificate')).toBe(400);
    });

    it('ends the session only for a LogoutRequest signed by it (redirect binding), once', async () => {
      const browser = await signedIn();
      const refused = async (path: string, reason: RegExp) => {
        const response = await browser.get(path);
        expect(response.status).toBe(400);
        expect(await response.text()).toMatch(reason);
        expect(await hasSession(browser)).toBe(true);
      };
      await refused(`${logoutPath()}?RelayState=bye`, /must be signed/);
      await refused(await logoutUrl(serviceProvider()), /not signed/);
      await refused(await logoutUrl(serviceProvider(attacker.key)), /not validly signed/);
      const signed = await logoutUrl(serviceProvider(sp.key));
      await refused(signed.replace('RelayState=leaving', 'RelayState=elsewhere'), /not validly signed/);

      const answer = logoutResponse(await browser.get(signed));
      expect(answer.xml).toContain(`InResponseTo="${requestIdOf(signed)}"`);
      expect(answer.relayState).toBe('leaving');
      expect(await hasSession(browser)).toBe(false);

      // A signed logout link seen once (in a log, a referrer) cannot end the next session.
      const next = await signedIn();
      const replay = await next.get(signed);
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('used already');
      expect(await hasSession(next)).toBe(true);
    });

    it('verifies the XML signature of a LogoutRequest by the POST binding, and its freshness', async () => {
      const browser = await signedIn();
      for (const [refused, reason] of [
        [postedLogoutRequest(sp.key, new Date(Date.now() - 30 * 60_000)), /not fresh/],
        [postedLogoutRequest(attacker.key), /not validly signed/],
      ] as const) {
        const response = await browser.postForm(logoutPath(), { SAMLRequest: refused.SAMLRequest, RelayState: 'r' });
        expect(response.status).toBe(400);
        expect(await response.text()).toMatch(reason);
      }
      expect(await hasSession(browser)).toBe(true);
      const { id, SAMLRequest } = postedLogoutRequest(sp.key);
      expect(logoutResponse(await browser.postForm(logoutPath(), { SAMLRequest, RelayState: 'posted' })).xml).toContain(`InResponseTo="${id}"`);
      expect(await hasSession(browser)).toBe(false);
    });
  });
});
