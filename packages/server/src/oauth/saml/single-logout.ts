import { createHash } from 'node:crypto';
import { SAML } from '@node-saml/node-saml';
import { certificatePem } from '../../crypto/certificate-pem.js';
import type { Storage } from '../../storage/storage.js';
import { logoutConfirmation } from '../logout-confirmation.js';
import { readSamlRequest, SamlRequestRefused } from './identity-provider.js';

/** How old a signed LogoutRequest may be (its IssueInstant), and the clock skew allowed either way. */
const MAX_AGE_MS = 5 * 60_000;
const CLOCK_SKEW_MS = 60_000;

/** The parameters of the redirect binding that its signature covers, in the order SAML Bindings 3.4.4.1 signs them. */
const SIGNED_PARAMETERS = ['SAMLRequest', 'RelayState', 'SigAlg'] as const;

/** A LogoutRequest as it arrived: the redirect binding's raw query string, or the POST binding's form field. */
export type LogoutMessage = { binding: 'redirect'; rawQuery: string } | { binding: 'post'; samlRequest: string };

export interface SingleLogoutDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
}

/**
 * The raw (still URL-encoded) value of each parameter of a query string, refusing a parameter given twice:
 * the redirect binding's signature covers the bytes the service provider sent, not a re-encoding of them.
 */
function rawParameters(rawQuery: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decoded(at < 0 ? pair : pair.slice(0, at));
    if (parameters.has(name)) throw new SamlRequestRefused(`The logout request gives ${name} more than once.`);
    parameters.set(name, at < 0 ? '' : pair.slice(at + 1));
  }
  return parameters;
}

function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new SamlRequestRefused('The logout request is not correctly URL-encoded.');
  }
}

/**
 * Single logout at Latchkey as a SAML identity provider. A logout that anyone could trigger by linking to it
 * must not end a session: an application that registered its certificate (`addons.samlp.signingCert`) is
 * obeyed only through LogoutRequests signed by it (the redirect binding's query signature or the POST binding's
 * XML signature, checked by node-saml), each fresh and used once; for any other application the user confirms
 * on a page whose form carries a token bound to the session cookie.
 */
export function samlSingleLogout(deps: SingleLogoutDeps) {
  /** The confirmation form's token: the one `/oidc/logout` uses too (logout-confirmation.ts). */
  const confirmation = logoutConfirmation(deps.handleKey);

  /** node-saml as the verifier of the application's messages: only the certificate matters here. */
  const verifier = (certificate: string) => new SAML({ idpCert: certificate, issuer: 'urn:latchkey:single-logout', callbackUrl: 'urn:latchkey:single-logout', acceptedClockSkewMs: CLOCK_SKEW_MS });

  async function verifySignature(certificate: string, message: LogoutMessage) {
    if (message.binding === 'post') return verifier(certificate).validatePostRequestAsync({ SAMLRequest: message.samlRequest });
    const raw = rawParameters(message.rawQuery);
    const samlRequest = raw.get('SAMLRequest');
    const sigAlg = raw.get('SigAlg');
    const signature = raw.get('Signature');
    // node-saml lets a message without a Signature through: here one is required.
    if (samlRequest === undefined || sigAlg === undefined || signature === undefined) throw new SamlRequestRefused('The logout request is not signed (SigAlg and Signature are required).');
    const signedQuery = SIGNED_PARAMETERS.flatMap((name) => (raw.has(name) ? [`${name}=${raw.get(name)}`] : [])).join('&');
    const relayState = raw.get('RelayState');
    const container = { SAMLRequest: decoded(samlRequest), SigAlg: decoded(sigAlg), Signature: decoded(signature), ...(relayState !== undefined ? { RelayState: decoded(relayState) } : {}) };
    return verifier(certificate).validateRedirectAsync(container, signedQuery);
  }

  return {
    /**
     * Verifies a LogoutRequest against the application's certificate: signed by it, issued within the last few
     * minutes, and not seen before (a copied logout link cannot be replayed). Answers the request's ID.
     */
    async verifySigned(clientId: string, signingCert: string, message: LogoutMessage): Promise<string> {
      const certificate = certificatePem(signingCert);
      if (!certificate) throw new SamlRequestRefused('The application’s signing certificate is not usable.');
      const encoded = message.binding === 'post' ? message.samlRequest : decoded(rawParameters(message.rawQuery).get('SAMLRequest') ?? '');
      const request = readSamlRequest(encoded, message.binding === 'redirect' ? true : 'auto').documentElement;
      if (request?.localName !== 'LogoutRequest') throw new SamlRequestRefused('The SAMLRequest is not a LogoutRequest.');
      let profile;
      try {
        ({ profile } = await verifySignature(certificate, message));
      } catch (error) {
        if (error instanceof SamlRequestRefused) throw error;
        throw new SamlRequestRefused(`The logout request is not validly signed by the application: ${(error as Error).message}`);
      }
      const id = typeof profile?.ID === 'string' ? profile.ID : undefined;
      if (!id) throw new SamlRequestRefused('The logout request has no ID.');
      const issued = Date.parse(request.getAttribute('IssueInstant') ?? '');
      const now = deps.now().getTime();
      if (Number.isNaN(issued) || issued > now + CLOCK_SKEW_MS || issued < now - MAX_AGE_MS - CLOCK_SKEW_MS) {
        throw new SamlRequestRefused('The logout request is not fresh (IssueInstant).');
      }
      const first = await deps.storage.artifacts.insert(deps.tenantId, 'saml_logout_request', {
        id: createHash('sha256').update(`${clientId}\n${id}`).digest('base64url'),
        data: {},
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(issued + MAX_AGE_MS + 2 * CLOCK_SKEW_MS).toISOString(),
      });
      if (!first) throw new SamlRequestRefused('The logout request was used already (replay).');
      return id;
    },

    confirmationToken: confirmation.token,

    confirmationValid: confirmation.valid,
  };
}

export type SamlSingleLogout = ReturnType<typeof samlSingleLogout>;
