import { createHash } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SigningCertificates } from '../../keys/certificate.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthorizationAnswer } from '../authorize/response.js';
import { HTTP_POST, type SamlSettings } from './options.js';
import { attributeOf, hasDtd, readXml, textOf } from './xml.js';

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

/**
 * Latchkey as a SAML 2.0 service provider for `samlp` connections. Signature checking and its defences
 * (signature wrapping, several assertions, keys only from the connection's certificates, never from the
 * document) are node-saml's; on top Latchkey refuses DTDs outright, checks Recipient and Destination against
 * its assertion consumer service, ties a response to the AuthnRequest of this browser's login (InResponseTo),
 * refuses an unsolicited response that claims to answer a request, and accepts each assertion ID once.
 */
export function samlServiceProvider(deps: SamlSpDeps) {
  const acsUrl = (connection: string) => `${deps.issuer}/login/callback?connection=${encodeURIComponent(connection)}`;
  const entityId = (connection: string) => `urn:latchkey:${deps.tenantId}:${connection}`;

  function client(connection: string, settings: SamlSettings, signingKey?: string, expectedRequestId?: string, issued?: (id: string) => void): SAML {
    const cacheProvider: CacheProvider = {
      saveAsync: async (key, value) => {
        issued?.(key);
        return { value, createdAt: Date.now() };
      },
      // node-saml reads the value as the request's issue time; the login transaction's own expiry bounds it.
      getAsync: async (key) => (expectedRequestId !== undefined && key === expectedRequestId ? new Date().toISOString() : null),
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
      // node-saml records a request's ID (through the cache provider) only when it will check InResponseTo.
      validateInResponseTo: expectedRequestId !== undefined || issued !== undefined ? ValidateInResponseTo.always : ValidateInResponseTo.never,
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
      const sp = client(connection, settings, signingKey, undefined, (id) => (requestId = id));
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
      const inResponseTo = attributeOf(response, 'Response', 'InResponseTo');
      if (expectedRequestId === undefined && inResponseTo) throw new SamlRefused('An unsolicited SAML response must not claim to answer a request (InResponseTo).');
      let profile: Profile | null;
      try {
        ({ profile } = await client(connection, settings, undefined, expectedRequestId).validatePostResponseAsync({ SAMLResponse: samlResponse }));
      } catch (error) {
        throw new SamlRefused(`The SAML response is not valid: ${(error as Error).message}`);
      }
      if (!profile) throw new SamlRefused('The SAML response carries no assertion.');
      const assertion = readXml(profile.getAssertionXml?.() ?? '');
      const assertionIssuer = textOf(assertion, 'Issuer');
      const responseIssuer = textOf(response, 'Issuer');
      if (assertionIssuer !== settings.idpIssuer || (responseIssuer !== undefined && responseIssuer !== settings.idpIssuer)) {
        throw new SamlRefused('The SAML response comes from another Issuer.');
      }
      const destination = attributeOf(response, 'Response', 'Destination');
      if (destination !== undefined && destination !== '' && destination !== acsUrl(connection)) throw new SamlRefused('The SAML response is addressed to another Destination.');
      const recipient = attributeOf(assertion, 'SubjectConfirmationData', 'Recipient');
      if (recipient !== acsUrl(connection)) throw new SamlRefused('The SAML assertion is for another Recipient.');
      const assertionId = attributeOf(assertion, 'Assertion', 'ID');
      if (!assertionId) throw new SamlRefused('The SAML assertion has no ID.');
      const notOnOrAfter = attributeOf(assertion, 'Conditions', 'NotOnOrAfter');
      const now = deps.now();
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
