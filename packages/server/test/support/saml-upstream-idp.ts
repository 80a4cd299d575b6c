import { inflateRawSync } from 'node:zlib';
import * as samlify from 'samlify';
import { selfSignedCertificate } from './certificates.js';
import type { TestServer } from './harness.js';

export const UPSTREAM_IDP_ENTITY = 'https://idp.test.example/metadata';
export const UPSTREAM_IDP_SSO = 'https://idp.test.example/sso';

/**
 * A SAML identity provider upstream of Latchkey (Latchkey as service provider), built with samlify, with a key and
 * certificate of its own. `connectionOptions` configures a `samlp` connection that trusts it; `trustedBy` reads
 * that connection's service-provider metadata from Latchkey and answers genuine, signed login responses for it.
 */
export function upstreamSamlIdp() {
  const keys = selfSignedCertificate('upstream-idp');
  const cert = keys.cert.toString('utf8');
  samlify.setSchemaValidator({ validate: async () => 'skipped' });
  const idp = samlify.IdentityProvider({
    entityID: UPSTREAM_IDP_ENTITY,
    privateKey: keys.key.toString('utf8'),
    signingCert: cert,
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: UPSTREAM_IDP_SSO }],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
  });
  return {
    connectionOptions: (extra: Record<string, unknown> = {}) => ({ signInEndpoint: UPSTREAM_IDP_SSO, signingCert: cert, issuer: UPSTREAM_IDP_ENTITY, ...extra }),

    async trustedBy(server: TestServer, connection: string) {
      const metadata = await (await fetch(`${server.url}/samlp/metadata?connection=${encodeURIComponent(connection)}`)).text();
      const sp = samlify.ServiceProvider({ metadata, wantAssertionsSigned: true });
      return {
        /** A signed response for `email`: to the AuthnRequest `requestId`, or unsolicited without it. */
        async respond(email: string, requestId?: string): Promise<string> {
          const requestInfo = (requestId ? { extract: { request: { id: requestId } } } : {}) as Parameters<typeof idp.createLoginResponse>[1];
          const { context } = await idp.createLoginResponse(sp, requestInfo, 'post', { email });
          return context as string;
        },
      };
    },
  };
}

/** The ID and RelayState of the AuthnRequest Latchkey redirected the browser with (HTTP-Redirect binding). */
export function authnRequestOf(location: string): { requestId: string; relayState: string } {
  const url = new URL(location);
  const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  return { requestId: /\bID="([^"]+)"/.exec(request)?.[1] ?? '', relayState: url.searchParams.get('RelayState') ?? '' };
}
