import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import * as samlify from 'samlify';
import { SignedXml } from 'xml-crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient, decodeEntities } from './support/browser-client.js';
import { selfSignedCertificate } from './support/certificates.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const IDP_ENTITY = 'https://idp.test.example/metadata';
const IDP_SSO = 'https://idp.test.example/sso';

function keyAndCertificate(name: string): { key: string; cert: string } {
  const { key, cert } = selfSignedCertificate(name);
  return { key: key.toString('utf8'), cert: cert.toString('utf8') };
}

/**
 * Latchkey as a SAML service provider, over a real socket. Genuine responses come from a test identity provider
 * built with samlify (its own key and certificate, configured from Latchkey's SP metadata); each validation rule
 * then gets a response forged or altered one way (signed with xml-crypto) that must be refused.
 */
describe('SAML connections (Latchkey as service provider)', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let idpKeys: { key: string; cert: string };
  let attackerKeys: { key: string; cert: string };
  let idp: ReturnType<typeof samlify.IdentityProvider>;
  let sp: ReturnType<typeof samlify.ServiceProvider>;
  const acs = (connection: string) => `${server.url}/login/callback?connection=${connection}`;
  const spEntity = (connection: string) => `urn:latchkey:${server.registry.tenantId}:${connection}`;

  beforeAll(async () => {
    idpKeys = keyAndCertificate('idp');
    attackerKeys = keyAndCertificate('attacker');
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    const options = (idpinitiated: Record<string, unknown>) => ({
      signInEndpoint: IDP_SSO,
      signingCert: idpKeys.cert,
      issuer: IDP_ENTITY,
      fieldsMap: { name: 'displayName' },
      idpinitiated,
    });
    for (const [name, idpinitiated] of [
      ['corp', { enabled: true, client_id: fx.web.clientId, client_protocol: 'oauth2', client_authorizequery: `response_type=code&scope=openid%20email&redirect_uri=${encodeURIComponent(fx.web.callback)}` }],
      ['strict', { enabled: false }],
    ] as const) {
      const created = await api('POST', '/connections', { name, strategy: 'samlp', enabled_clients: [fx.web.clientId], options: options(idpinitiated) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    samlify.setSchemaValidator({ validate: async () => 'skipped' });
    idp = samlify.IdentityProvider({
      entityID: IDP_ENTITY,
      privateKey: idpKeys.key,
      signingCert: idpKeys.cert,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: IDP_SSO }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    });
    // The identity provider is configured from Latchkey's own service-provider metadata.
    const metadata = await (await fetch(`${server.url}/samlp/metadata?connection=corp`)).text();
    expect(metadata).toContain(acs('corp'));
    expect(metadata).toContain(`entityID="${spEntity('corp')}"`);
    expect(metadata).toMatch(/X509Certificate>MII/);
    expect(metadata).toContain('AuthnRequestsSigned="false"');
    sp = samlify.ServiceProvider({ metadata, wantAssertionsSigned: true });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  /** Starts an SP-initiated login; answers the browser, the AuthnRequest's ID and the RelayState. */
  async function startLogin(connection = 'corp') {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'app-state', connection });
    const response = await browser.get(`/authorize?${query}`);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe(IDP_SSO);
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    const requestId = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
    expect(request).toContain(`AssertionConsumerServiceURL="${acs(connection)}"`);
    return { browser, requestId, relayState: location.searchParams.get('RelayState') ?? '' };
  }

  /** A genuine response of the test identity provider (samlify), answering `requestId` when given. */
  async function genuine(email: string, requestId?: string): Promise<string> {
    const requestInfo = (requestId ? { extract: { request: { id: requestId } } } : {}) as Parameters<typeof idp.createLoginResponse>[1];
    const { context } = await idp.createLoginResponse(sp, requestInfo, 'post', { email });
    return context as string;
  }

  /** Posts the response as the browser's auto-submitted form; with `held`, the login transaction's cookie goes along. */
  async function post(browser: CookieClient, connection: string, fields: Record<string, string>) {
    const response = await browser.postForm(`/login/callback?connection=${connection}`, { ...fields, _resubmitted: '1' });
    return { status: response.status, location: response.headers.get('location') ?? '', text: response.status === 302 ? '' : await response.text() };
  }

  it('service-provider-initiated: the AuthnRequest is answered, the user created, the application gets a code', async () => {
    const { browser, requestId, relayState } = await startLogin();
    const answer = await post(browser, 'corp', { SAMLResponse: await genuine('alice@corp.example', requestId), RelayState: relayState });
    expect(answer.status).toBe(302);
    const back = new URL(answer.location);
    expect(back.origin + back.pathname).toBe(fx.web.callback);
    expect(back.searchParams.get('state')).toBe('app-state');
    expect(back.searchParams.get('code')).toBeTruthy();
    const user = await api('GET', `/users/${encodeURIComponent('samlp|corp|alice@corp.example')}`);
    expect(user.body).toMatchObject({ email: 'alice@corp.example', identities: [{ provider: 'samlp', connection: 'corp' }] });
  });

  it('signs its AuthnRequests when the connection asks (the certificate is in its metadata)', async () => {
    const created = await api('POST', '/connections', {
      name: 'signed',
      strategy: 'samlp',
      enabled_clients: [fx.web.clientId],
      options: { signInEndpoint: IDP_SSO, signingCert: idpKeys.cert, issuer: IDP_ENTITY, signSAMLRequest: true },
    });
    expect(created.status).toBe(201);
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', connection: 'signed' });
    const location = new URL((await browser.get(`/authorize?${query}`)).headers.get('location') ?? '');
    expect(location.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(location.searchParams.get('Signature')).toBeTruthy();
    const metadata = await (await fetch(`${server.url}/samlp/metadata?connection=signed`)).text();
    expect(metadata).toContain('AuthnRequestsSigned="true"');
    expect(metadata).toMatch(/X509Certificate>MII/);
  });

  it('sends the AuthnRequest by the POST binding when the connection says so', async () => {
    const created = await api('POST', '/connections', {
      name: 'posted',
      strategy: 'samlp',
      enabled_clients: [fx.web.clientId],
      options: { signInEndpoint: IDP_SSO, signingCert: idpKeys.cert, issuer: IDP_ENTITY, protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST' },
    });
    expect(created.status).toBe(201);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid', connection: 'posted' });
    const page = await new CookieClient(server.url).get(`/authorize?${query}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`action="${IDP_SSO}"`);
    const request = Buffer.from(decodeEntities(/name="SAMLRequest" value="([^"]+)"/.exec(html)?.[1] ?? ''), 'base64').toString('utf8');
    expect(request).toContain('AuthnRequest');
    expect(request).toContain(`AssertionConsumerServiceURL="${acs('posted')}"`);
  });

  it('a cross-site form post is re-posted from our origin, so the login transaction’s cookie goes along', async () => {
    const { browser, requestId, relayState } = await startLogin();
    const first = await browser.postForm('/login/callback?connection=corp', { SAMLResponse: await genuine('alice@corp.example', requestId), RelayState: relayState });
    // With the cookie held, the answer is immediate; a browser that left it out gets the re-post page.
    expect(first.status).toBe(302);
    const stranger = new CookieClient(server.url);
    const repost = await stranger.postForm('/login/callback?connection=corp', { SAMLResponse: 'x', RelayState: relayState });
    expect(repost.status).toBe(200);
    expect(await repost.text()).toContain('action="/login/callback?connection=corp"');
  });

  it('identity-provider-initiated: accepted where allowed, for the default application', async () => {
    const browser = new CookieClient(server.url);
    const answer = await post(browser, 'corp', { SAMLResponse: await genuine('bob@corp.example') });
    expect(answer.status).toBe(302);
    expect(new URL(answer.location).searchParams.get('code')).toBeTruthy();
    expect(answer.location.startsWith(fx.web.callback)).toBe(true);
  });

  it('refuses an unsolicited response where identity-provider-initiated sign-on is off', async () => {
    const answer = await post(new CookieClient(server.url), 'strict', { SAMLResponse: await genuine('bob@corp.example') });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('does not accept identity-provider-initiated sign-on');
  });

  /** A SAML response written by hand, its assertion signed with `key` (xml-crypto, as identity providers do). */
  function forged(options: {
    key?: string;
    issuer?: string;
    audience?: string;
    recipient?: string;
    inResponseTo?: string;
    /** Where the InResponseTo goes: the Response, the assertion's SubjectConfirmationData, or both (default). */
    inResponseToAt?: 'response' | 'subject' | 'both';
    nameId?: string;
    notOnOrAfter?: Date;
    assertionId?: string;
    prolog?: string;
    wrap?: boolean;
    destination?: string;
  } = {}): string {
    const now = new Date();
    const later = options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
    const assertionId = options.assertionId ?? `_a${randomBytes(12).toString('hex')}`;
    const inResponse = (at: 'response' | 'subject') =>
      options.inResponseTo && [at, 'both'].includes(options.inResponseToAt ?? 'both') ? ` InResponseTo="${options.inResponseTo}"` : '';
    const assertion = (id: string, nameId: string) =>
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${now.toISOString()}">` +
      `<saml:Issuer>${options.issuer ?? IDP_ENTITY}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${nameId}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${later.toISOString()}" Recipient="${options.recipient ?? acs('corp')}"${inResponse('subject')}/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${new Date(now.getTime() - 60_000).toISOString()}" NotOnOrAfter="${later.toISOString()}"><saml:AudienceRestriction><saml:Audience>${options.audience ?? spEntity('corp')}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${now.toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement><saml:Attribute Name="displayName"><saml:AttributeValue>Carol Forged</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
      `</saml:Assertion>`;
    const signer = new SignedXml({ privateKey: options.key ?? idpKeys.key, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#' });
    signer.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    signer.computeSignature(assertion(assertionId, options.nameId ?? 'carol@corp.example'), { location: { reference: "//*[local-name(.)='Issuer']", action: 'after' } });
    let signed = signer.getSignedXml();
    if (options.wrap) {
      // Signature wrapping: an unsigned assertion for someone else comes first; the signed one hides inside it.
      const evil = assertion('_evil', 'admin@corp.example').replace('</saml:Assertion>', `<saml:Advice>${signed}</saml:Advice></saml:Assertion>`);
      signed = evil;
    }
    const response =
      `${options.prolog ?? ''}<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(12).toString('hex')}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${options.destination ?? acs('corp')}"${inResponse('response')}>` +
      `<saml:Issuer>${options.issuer ?? IDP_ENTITY}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${signed}</samlp:Response>`;
    return Buffer.from(response).toString('base64');
  }

  const refusedIdpInitiated = async (samlResponse: string) => {
    const answer = await post(new CookieClient(server.url), 'corp', { SAMLResponse: samlResponse });
    expect(answer.status, answer.location).toBe(400);
    return answer.text;
  };

  it('accepts a correctly signed hand-written response, with the attribute mapping', async () => {
    const answer = await post(new CookieClient(server.url), 'corp', { SAMLResponse: forged({ nameId: 'carol@corp.example' }) });
    expect(answer.status, answer.text).toBe(302);
    expect((await api('GET', `/users/${encodeURIComponent('samlp|corp|carol@corp.example')}`)).body).toMatchObject({ name: 'Carol Forged' });
  });

  it('refuses a response signed by any key but the registered certificate', async () => {
    expect(await refusedIdpInitiated(forged({ key: attackerKeys.key }))).toContain('not valid');
  });

  it('refuses a wrapped signature (an unsigned assertion around a signed one)', async () => {
    expect(await refusedIdpInitiated(forged({ wrap: true }))).toContain('not valid');
  });

  it('refuses an expired response, another audience, another issuer and another recipient', async () => {
    expect(await refusedIdpInitiated(forged({ notOnOrAfter: new Date(Date.now() - 10 * 60_000) }))).toContain('not valid');
    expect(await refusedIdpInitiated(forged({ audience: 'urn:someone-else' }))).toContain('not valid');
    expect(await refusedIdpInitiated(forged({ issuer: 'https://evil.example/metadata' }))).toContain('another Issuer');
    expect(await refusedIdpInitiated(forged({ recipient: 'https://evil.example/acs' }))).toContain('Recipient');
    expect(await refusedIdpInitiated(forged({ destination: 'https://evil.example/acs' }))).toContain('Destination');
  });

  it('accepts each assertion once (replay refused)', async () => {
    const response = forged({ nameId: 'dave@corp.example' });
    expect((await post(new CookieClient(server.url), 'corp', { SAMLResponse: response })).status).toBe(302);
    expect(await refusedIdpInitiated(response)).toContain('used already');
  });

  it('refuses DTDs (XXE and entity expansion) before parsing', async () => {
    const xxe = forged({ prolog: `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>` });
    expect(await refusedIdpInitiated(xxe)).toContain('DTD');
  });

  it('refuses an unsolicited response that claims to answer a request, and a solicited one answering another request', async () => {
    expect(await refusedIdpInitiated(forged({ inResponseTo: '_someone-elses-request' }))).toContain('InResponseTo');
    const { browser, relayState } = await startLogin();
    const answer = await post(browser, 'corp', { SAMLResponse: forged({ inResponseTo: '_not-this-login' }), RelayState: relayState });
    expect(answer.status).toBe(302);
    expect(Object.fromEntries(new URL(answer.location).searchParams)).toMatchObject({ error: 'access_denied', state: 'app-state' });
  });

  it('refuses an unsolicited response whose assertion alone claims to answer a request, even a spent one', async () => {
    expect(await refusedIdpInitiated(forged({ inResponseTo: '_someone-elses-request', inResponseToAt: 'subject' }))).toContain('InResponseTo');
    const { browser, requestId, relayState } = await startLogin();
    expect((await post(browser, 'corp', { SAMLResponse: await genuine('erin@corp.example', requestId), RelayState: relayState })).status).toBe(302);
    // The login is over: a fresh assertion naming its request cannot pass as an identity-provider-initiated one.
    const late = await post(browser, 'corp', { SAMLResponse: forged({ nameId: 'mallory@corp.example', inResponseTo: requestId, inResponseToAt: 'subject' }), RelayState: relayState });
    expect(late.status, late.location).toBe(400);
    expect(late.text).toContain('InResponseTo');
    expect((await api('GET', `/users/${encodeURIComponent('samlp|corp|mallory@corp.example')}`)).status).toBe(404);
  });

  it('checks an answer against its login’s request wherever the InResponseTo sits', async () => {
    const answer = async (inResponseTo: (requestId: string) => string, inResponseToAt: 'response' | 'subject' | 'both') => {
      const { browser, requestId, relayState } = await startLogin();
      const { location } = await post(browser, 'corp', { SAMLResponse: forged({ inResponseTo: inResponseTo(requestId), inResponseToAt }), RelayState: relayState });
      return Object.fromEntries(new URL(location).searchParams);
    };
    // Identity providers that mark only the subject confirmation are understood.
    expect(await answer((id) => id, 'subject')).toMatchObject({ code: expect.any(String), state: 'app-state' });
    expect(await answer((id) => id, 'response')).toMatchObject({ code: expect.any(String) });
    for (const at of ['subject', 'response', 'both'] as const) {
      expect(await answer(() => '_not-this-login', at)).toMatchObject({ error: 'access_denied', state: 'app-state' });
    }
  });
});
