import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import type { SigningCertificates } from '../../keys/certificate.js';
import type { SamlAddon } from '../../services/clients.js';
import { rawXml, xml, type Xml } from '../../text/xml.js';
import { HTTP_POST, HTTP_REDIRECT } from '../../services/connection-options/saml.js';
import { decodeSamlMessage, hasDtd, readXml, textOf, type XmlDocument } from './xml.js';

const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';

/** The platform's default attribute names for profile fields. */
const DEFAULT_MAPPINGS: Record<string, string> = {
  user_id: `${CLAIMS}/nameidentifier`,
  email: `${CLAIMS}/emailaddress`,
  name: `${CLAIMS}/name`,
  given_name: `${CLAIMS}/givenname`,
  family_name: `${CLAIMS}/surname`,
  nickname: 'http://schemas.auth0.com/nickname',
};

/** A request Latchkey will not serve; the message says why. */
export class SamlRequestRefused extends Error {}

export interface ParsedAuthnRequest {
  id: string;
  issuer?: string;
  acsUrl?: string;
  forceAuthn: boolean;
}

/** A SAMLRequest as a document; one that cannot be decoded or carries a DTD is refused. */
export function readSamlRequest(encoded: string, deflated: boolean | 'auto'): XmlDocument {
  let text: string;
  try {
    text = decodeSamlMessage(encoded, deflated);
  } catch {
    throw new SamlRequestRefused('The SAMLRequest could not be decoded.');
  }
  if (hasDtd(text)) throw new SamlRequestRefused('The SAMLRequest carries a DTD, which is not accepted.');
  try {
    return readXml(text);
  } catch {
    throw new SamlRequestRefused('The SAMLRequest is not XML.');
  }
}

/** The ID of a LogoutRequest (deflated by the redirect binding, plain or deflated by the POST binding), to answer it with `InResponseTo`. */
export function logoutRequestId(encoded: string, deflated: boolean | 'auto'): string | undefined {
  const root = readSamlRequest(encoded, deflated).documentElement;
  return root?.localName === 'LogoutRequest' ? (root.getAttribute('ID') ?? undefined) : undefined;
}

/** Reads an AuthnRequest (deflated for the redirect binding, plain for the post binding); DTDs are refused. */
export function parseAuthnRequest(encoded: string, binding: 'redirect' | 'post'): ParsedAuthnRequest {
  const doc = readSamlRequest(encoded, binding === 'redirect' ? true : 'auto');
  const root = doc.documentElement;
  if (!root || root.localName !== 'AuthnRequest') throw new SamlRequestRefused('The SAMLRequest is not an AuthnRequest.');
  const id = root.getAttribute('ID');
  if (!id) throw new SamlRequestRefused('The AuthnRequest has no ID.');
  const issuer = textOf(doc, 'Issuer');
  const acsUrl = root.getAttribute('AssertionConsumerServiceURL') ?? undefined;
  return { id, ...(issuer ? { issuer } : {}), ...(acsUrl ? { acsUrl } : {}), forceAuthn: root.getAttribute('ForceAuthn') === 'true' };
}

/**
 * The Audience of an assertion. An unsigned AuthnRequest's Issuer is only a claim: taken as it stands, any
 * service provider of the tenant could ask for assertions addressed to another one (all are signed by the same
 * key). So the Issuer counts only when it names an entity the application registered (its add-on audience, or
 * one of its callback URLs); otherwise the add-on's audience, else the assertion consumer service URL.
 */
export function samlAudience(addon: SamlAddon, callbacks: readonly string[], acsUrl: string, requestIssuer: string | undefined): string {
  const registered = addon.audience !== undefined ? [addon.audience] : [...(addon.callback ? [addon.callback] : []), ...callbacks];
  if (requestIssuer !== undefined && registered.includes(requestIssuer)) return requestIssuer;
  return addon.audience ?? acsUrl;
}

export interface SamlAnswerInput {
  addon: SamlAddon;
  acsUrl: string;
  /** Who the assertion is for (see samlAudience). */
  audience: string;
  inResponseTo?: string | undefined;
  user: Record<string, unknown> & { user_id: string };
  sessionIndex: string;
  authnInstant: Date;
}

/**
 * Latchkey as a SAML 2.0 identity provider (the SAML2 Web App add-on): signed responses for an application's
 * assertion consumer service, and the metadata it is configured from. The assertion is always signed (the
 * whole response too with `signResponse`), by the tenant's current signing key and its certificate.
 */
export function samlIdentityProvider(deps: { certificates: SigningCertificates; issuer: string; tenantId: string; now: () => Date }) {
  const entityId = `urn:latchkey:${deps.tenantId}`;
  const ssoUrl = (clientId: string) => `${deps.issuer}/samlp/${encodeURIComponent(clientId)}`;

  function sign(document: Xml, element: 'Assertion' | 'Response', key: { certificate: string; privateKeyPem: string }): Xml {
    const signer = new SignedXml({
      privateKey: key.privateKeyPem,
      publicCert: key.certificate,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    signer.addReference({
      xpath: `//*[local-name(.)='${element}']`,
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    signer.computeSignature(String(document), { location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' }, prefix: 'ds' });
    // rawXml: the signer's output is our own document with its signature added.
    return rawXml(signer.getSignedXml());
  }

  return {
    entityId,

    /** A signed `SAMLResponse` (base64) for the user. */
    async response(input: SamlAnswerInput): Promise<string> {
      const key = await deps.certificates.current();
      const now = deps.now();
      const lifetime = (input.addon.lifetimeInSeconds ?? 3600) * 1000;
      const until = new Date(now.getTime() + lifetime).toISOString();
      const recipient = input.addon.recipient ?? input.acsUrl;
      const destination = input.addon.destination ?? input.acsUrl;
      const probes = input.addon.nameIdentifierProbes ?? ['user_id'];
      const nameId = probes.map((field) => input.user[field]).find((value) => typeof value === 'string' && value !== '') as string | undefined;
      if (!nameId) throw new SamlRequestRefused('The user has none of the fields the application names as its NameID.');
      const inResponseTo = input.inResponseTo && xml` InResponseTo="${input.inResponseTo}"`;
      const mappings = { ...DEFAULT_MAPPINGS, ...(input.addon.mappings ?? {}) };
      const attributes = Object.entries(mappings).flatMap(([field, name]) => {
        const value = input.user[field];
        if (value === undefined || value === null || value === '' || typeof value === 'object') return [];
        return [xml`<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri"><saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${String(value)}</saml:AttributeValue></saml:Attribute>`];
      });
      const assertionId = `_${randomBytes(20).toString('hex')}`;
      const assertion = xml`${[
        xml`<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">`,
        xml`<saml:Issuer>${entityId}</saml:Issuer>`,
        xml`<saml:Subject><saml:NameID Format="${input.addon.nameIdentifierFormat ?? UNSPECIFIED}">${nameId}</saml:NameID>`,
        xml`<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${recipient}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>`,
        xml`<saml:Conditions NotBefore="${new Date(now.getTime() - 60_000).toISOString()}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${input.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`,
        xml`<saml:AuthnStatement AuthnInstant="${input.authnInstant.toISOString()}" SessionIndex="${input.sessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
        attributes.length > 0 && xml`<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`,
        xml`</saml:Assertion>`,
      ]}`;
      const signedAssertion = sign(assertion, 'Assertion', key);
      let response = xml`${[
        xml`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomBytes(20).toString('hex')}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${destination}"${inResponseTo}>`,
        xml`<saml:Issuer>${entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${signedAssertion}</samlp:Response>`,
      ]}`;
      if (input.addon.signResponse) response = sign(response, 'Response', key);
      return Buffer.from(String(response), 'utf8').toString('base64');
    },

    /** A successful LogoutResponse for the service provider's logout URL (redirect binding: deflated, base64). */
    logoutResponse(destination: string, inResponseTo: string | undefined): string {
      const answer = xml`${[
        xml`<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomBytes(20).toString('hex')}" Version="2.0" IssueInstant="${deps.now().toISOString()}" Destination="${destination}"`,
        xml`${inResponseTo && xml` InResponseTo="${inResponseTo}"`}><saml:Issuer>${entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`,
      ]}`;
      return deflateRawSync(Buffer.from(String(answer), 'utf8')).toString('base64');
    },

    /** The identity-provider metadata of one application's add-on. */
    async metadata(clientId: string): Promise<string> {
      const { certificate } = await deps.certificates.current();
      const der = certificate.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');
      const sso = ssoUrl(clientId);
      const slo = `${sso}/logout`;
      return String(
        xml`${[
          xml`<?xml version="1.0"?>\n<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">`,
          xml`<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="false">`,
          xml`<KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${der}</X509Certificate></X509Data></KeyInfo></KeyDescriptor>`,
          xml`<SingleLogoutService Binding="${HTTP_REDIRECT}" Location="${slo}"/><SingleLogoutService Binding="${HTTP_POST}" Location="${slo}"/>`,
          xml`<NameIDFormat>${UNSPECIFIED}</NameIDFormat><NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</NameIDFormat>`,
          xml`<SingleSignOnService Binding="${HTTP_REDIRECT}" Location="${sso}"/><SingleSignOnService Binding="${HTTP_POST}" Location="${sso}"/>`,
          xml`</IDPSSODescriptor></EntityDescriptor>\n`,
        ]}`,
      );
    },
  };
}

export type SamlIdentityProvider = ReturnType<typeof samlIdentityProvider>;
