import { createHash } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SigningCertificates } from '../../keys/certificate.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthorizationAnswer } from '../authorize/response.js';
import { HTTP_POST, type SamlSettings } from '../../services/connection-options/saml.js';
import { attributeOf, hasDtd, readXml, textOf, type XmlDocument } from './xml.js';

/** A response Latchkey will not accept; the message says which rule it broke. */
export class SamlRefused extends Error {}

/** Clock skew allowed on NotBefore / NotOnOrAfter. */
const CLOCK_SKEW_MS = 60_000;
const EMAIL_NAMEID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailaddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'];

export interface SamlSpDeps {
  storage: Storage;
  /** The tenant key's certificate: it signs AuthnRequests and is published in the metadata. */
  certificates: SigningCertificates;
  tenantId: string;
  issuer: string;
  now: () => Date;
}

/** What a validated response says about the user, as claims Latchkey's federated users understand. */
export type SamlClaims = Record<string, unknown> & { sub: string };

function attribute(profile: Profile, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (name === 'nameID') return profile.nameID;
  const value = profile[name] ?? (profile.attributes as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

const unsolicitedClaimsRequest = () => new SamlRefused('An unsolicited SAML response must not claim to answer a request (InResponseTo).');

/** The InResponseTo values of every element of that local name (the outer Response, or each SubjectConfirmationData). */
function answeredRequests(doc: XmlDocument, element: 'Response' | 'SubjectConfirmationData'): string[] {
  const elements = element === 'Response' ? [doc.documentElement] : Array.from(doc.getElementsByTagNameNS('*', element));
  return elements.flatMap((node) => {
    const value = node?.getAttribute('InResponseTo');
    return value ? [value] : [];
  });
}

/** Whether any SubjectConfirmationData's NotOnOrAfter has passed (allowing for clock skew). */
function subjectConfirmationsExpired(assertion: XmlDocument, now: Date): boolean {
  return Array.from(assertion.getElementsByTagNameNS('*', 'SubjectConfirmationData')).some((data) => {
    const until = Date.parse(data.getAttribute('NotOnOrAfter') ?? '');
    return !Number.isNaN(until) && now.getTime() >= until + CLOCK_SKEW_MS;
  });
}

/**
 * Identity providers put InResponseTo on the Response, on the assertion's SubjectConfirmationData, or both.
 * Wherever it sits it counts: an answer to a request must name exactly this login's request, and a response
 * with no login behind it (identity-provider-initiated) must name none.
 */
function checkAnsweredRequest(claimed: string[], expectedRequestId: string | undefined): void {
  if (expectedRequestId === undefined) {
    if (claimed.length > 0) throw unsolicitedClaimsRequest();
    return;
  }
  if (claimed.length === 0) throw new SamlRefused('The SAML response does not say which request it answers (InResponseTo).');
  if (claimed.some((id) => id !== expectedRequestId)) throw new SamlRefused('The SAML response answers another request (InResponseTo).');
}

/**
 * Latchkey as a SAML 2.0 service provider for `samlp` connections. Signature checking and its defences
 * (signature wrapping, several assertions, keys only from the connection's certificates, never from the
 * document) are node-saml's; on top Latchkey refuses DTDs outright, checks Recipient and Destination against
 * its assertion consumer service, ties a response to the AuthnRequest of this browser's login (InResponseTo,
 * on the Response or the subject confirmation), refuses an unsolicited response that claims to answer any
 * request, and accepts each assertion ID once.
 */
export function samlServiceProvider(deps: SamlSpDeps) {
  const acsUrl = (connection: string) => `${deps.issuer}/login/callback?connection=${encodeURIComponent(connection)}`;
  const entityId = (connection: string) => `urn:latchkey:${deps.tenantId}:${connection}`;

  function client(connection: string, settings: SamlSettings, signingKey?: string, issued?: (id: string) => void): SAML {
    // node-saml hands a new AuthnRequest's ID to the cache provider: `begin` keeps it in the login transaction.
    // Responses are never checked against this cache; `validate` ties them to the transaction's request itself.
    const cacheProvider: CacheProvider = {
      saveAsync: async (key, value) => {
        issued?.(key);
        return { value, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    return new SAML({
      entryPoint: settings.signInEndpoint,
      issuer: entityId(connection),
      callbackUrl: acsUrl(connection),
      idpCert: settings.certificates,
      idpIssuer: settings.idpIssuer,
      audience: entityId(connection),
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      // node-saml records a request's ID (through the cache provider) only when it would check InResponseTo.
      // Its own check reads only the outer Response's InResponseTo, so validation does without it (see answeredRequests).
      validateInResponseTo: issued !== undefined ? ValidateInResponseTo.always : ValidateInResponseTo.never,
      requestIdExpirationPeriodMs: 3600_000,
      cacheProvider,
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      disableRequestedAuthnContext: true,
      // The POST binding carries the request as plain base64 XML (SAML Bindings 3.5.4), not deflated.
      ...(settings.binding === HTTP_POST ? { authnRequestBinding: 'HTTP-POST', skipRequestCompression: true } : {}),
      ...(signingKey ? { privateKey: signingKey, signatureAlgorithm: 'sha256' as const } : {}),
    });
  }

  return {
    acsUrl,
    entityId,

    /** The AuthnRequest for a login (RelayState names the login transaction), and its ID for InResponseTo. */
    async begin(connection: string, settings: SamlSettings, relayState: string): Promise<{ answer: AuthorizationAnswer; requestId: string }> {
      let requestId = '';
      const signingKey = settings.signRequests ? (await deps.certificates.current()).privateKeyPem : undefined;
      const sp = client(connection, settings, signingKey, (id) => (requestId = id));
      if (settings.binding === HTTP_POST) {
        const message = await sp.getAuthorizeMessageAsync(relayState);
        const fields = Object.fromEntries(Object.entries(message).map(([name, value]) => [name, String(value)]));
        return { answer: { kind: 'form_post', action: settings.signInEndpoint, fields }, requestId };
      }
      return { answer: { kind: 'redirect', location: await sp.getAuthorizeUrlAsync(relayState, undefined, {}) }, requestId };
    },

    /**
     * Validates a posted `SAMLResponse`. With `expectedRequestId` it must answer that AuthnRequest; without,
     * it is an identity-provider-initiated sign-on and must not claim to answer any request.
     */
    async validate(connection: string, settings: SamlSettings, samlResponse: string, expectedRequestId: string | undefined): Promise<SamlClaims> {
      const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
      // No DTDs at all: entity expansion and external entities are refused before any parser sees them.
      if (hasDtd(xml)) throw new SamlRefused('The SAML response carries a DTD, which is not accepted.');
      const response = readXml(xml);
      // A cheap first refusal before any signature work; the full rule is checked on the verified assertion below.
      if (expectedRequestId === undefined && answeredRequests(response, 'Response').length > 0) throw unsolicitedClaimsRequest();
      let profile: Profile | null;
      try {
        ({ profile } = await client(connection, settings).validatePostResponseAsync({ SAMLResponse: samlResponse }));
      } catch (error) {
        throw new SamlRefused(`The SAML response is not valid: ${(error as Error).message}`);
      }
      if (!profile) throw new SamlRefused('The SAML response carries no assertion.');
      const assertion = readXml(profile.getAssertionXml?.() ?? '');
      checkAnsweredRequest([...answeredRequests(response, 'Response'), ...answeredRequests(assertion, 'SubjectConfirmationData')], expectedRequestId);
      const assertionIssuer = textOf(assertion, 'Issuer');
      const responseIssuer = textOf(response, 'Issuer');
      if (assertionIssuer !== settings.idpIssuer || (responseIssuer !== undefined && responseIssuer !== settings.idpIssuer)) {
        throw new SamlRefused('The SAML response comes from another Issuer.');
      }
      const destination = attributeOf(response, 'Response', 'Destination');
      if (destination !== undefined && destination !== '' && destination !== acsUrl(connection)) throw new SamlRefused('The SAML response is addressed to another Destination.');
      const recipient = attributeOf(assertion, 'SubjectConfirmationData', 'Recipient');
      if (recipient !== acsUrl(connection)) throw new SamlRefused('The SAML assertion is for another Recipient.');
      const now = deps.now();
      // node-saml reads the subject confirmation's times only along with its own InResponseTo check, which is off.
      if (subjectConfirmationsExpired(assertion, now)) throw new SamlRefused('The SAML assertion’s subject confirmation has expired (NotOnOrAfter).');
      const assertionId = attributeOf(assertion, 'Assertion', 'ID');
      if (!assertionId) throw new SamlRefused('The SAML assertion has no ID.');
      const notOnOrAfter = attributeOf(assertion, 'Conditions', 'NotOnOrAfter');
      const until = notOnOrAfter && !Number.isNaN(Date.parse(notOnOrAfter)) ? new Date(Date.parse(notOnOrAfter) + CLOCK_SKEW_MS) : new Date(now.getTime() + 3600_000);
      const first = await deps.storage.artifacts.insert(deps.tenantId, 'saml_assertion', {
        id: createHash('sha256').update(`${connection}\n${assertionId}`).digest('base64url'),
        data: {},
        createdAt: now.toISOString(),
        expiresAt: until.toISOString(),
      });
      if (!first) throw new SamlRefused('The SAML assertion was used already (replay).');

      const map = settings.fieldsMap;
      const userId = attribute(profile, map.user_id ?? 'nameID');
      if (!userId) throw new SamlRefused('The SAML assertion names no user (NameID).');
      const email = attribute(profile, map.email) ?? EMAIL_ATTRIBUTES.map((name) => attribute(profile, name)).find(Boolean) ?? (profile.nameIDFormat === EMAIL_NAMEID ? profile.nameID : undefined);
      const claims: SamlClaims = { sub: userId };
      if (email) claims.email = email;
      for (const field of ['name', 'given_name', 'family_name', 'nickname', 'picture'] as const) {
        const value = attribute(profile, map[field] ?? field);
        if (value) claims[field] = value;
      }
      return claims;
    },

    /** The service-provider metadata an identity provider is configured from: entity ID, ACS URL, our certificate. */
    async metadata(connection: string, settings: SamlSettings): Promise<string> {
      const { certificate, privateKeyPem } = await deps.certificates.current();
      // node-saml publishes a certificate only for a signing SP, and then says its requests are signed.
      const metadata = client(connection, settings, privateKeyPem).generateServiceProviderMetadata(null, certificate);
      return settings.signRequests ? metadata : metadata.replace('AuthnRequestsSigned="true"', 'AuthnRequestsSigned="false"');
    },
  };
}

export type SamlServiceProvider = ReturnType<typeof samlServiceProvider>;
