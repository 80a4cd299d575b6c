import { certificatePem } from '../../crypto/certificate-pem.js';
import type { ConnectionData } from '../../storage/records.js';

export const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
export const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** Profile fields and the SAML attribute (or `nameID`) each is read from. */
export type SamlFieldsMap = Partial<Record<'user_id' | 'email' | 'name' | 'given_name' | 'family_name' | 'nickname' | 'picture', string>>;

export interface IdpInitiated {
  enabled: boolean;
  /** The application a sign-on nobody asked for goes to, and how (`client_authorizequery`, e.g. `response_type=code&scope=openid`). */
  clientId?: string;
  clientProtocol: 'oauth2';
  clientAuthorizeQuery: string;
}

export interface SamlSettings {
  signInEndpoint: string;
  /** PEM certificates of the identity provider; a response signed by any other key is refused. */
  certificates: string[];
  /** The identity provider's entity ID: the Issuer its responses must carry. */
  idpIssuer: string;
  binding: typeof HTTP_REDIRECT | typeof HTTP_POST;
  /** Sign AuthnRequests with the tenant's key (the certificate is in our service-provider metadata). */
  signRequests: boolean;
  fieldsMap: SamlFieldsMap;
  idpInitiated: IdpInitiated;
}

const FIELDS = new Set(['user_id', 'email', 'name', 'given_name', 'family_name', 'nickname', 'picture']);

/**
 * Reads a `samlp` connection's options (the platform's names: `signInEndpoint`, `signingCert` or
 * `signingCerts`, `issuer`, `protocolBinding`, `fieldsMap`, `idpinitiated`). Answers the problems, so that a
 * connection that could never validate a response is refused when it is saved.
 */
export function samlSettings(connection: Pick<ConnectionData, 'options'>, allowHttp: boolean): { settings?: SamlSettings; problems: string[] } {
  const options = connection.options;
  const problems: string[] = [];
  const signInEndpoint = typeof options.signInEndpoint === 'string' ? options.signInEndpoint : '';
  try {
    const url = new URL(signInEndpoint);
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) problems.push('options.signInEndpoint must be an https URL');
  } catch {
    problems.push('options.signInEndpoint must be the identity provider’s sign-in URL');
  }
  // Kept for the platform's exports and tools; Latchkey does not send logout requests upstream yet, but a value
  // that could never be a logout URL is refused now rather than carried along.
  if (options.signOutEndpoint !== undefined && options.signOutEndpoint !== '') {
    const url = typeof options.signOutEndpoint === 'string' && URL.canParse(options.signOutEndpoint) ? new URL(options.signOutEndpoint) : undefined;
    if (!url || (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))) problems.push('options.signOutEndpoint must be an https URL');
  }
  const given = [...(typeof options.signingCert === 'string' ? [options.signingCert] : []), ...(Array.isArray(options.signingCerts) ? options.signingCerts : [])];
  const certificates = given.map((value) => (typeof value === 'string' ? certificatePem(value) : undefined));
  if (certificates.length === 0) problems.push('options.signingCert (or signingCerts) must hold the identity provider’s signing certificate');
  if (certificates.some((pem) => pem === undefined)) problems.push('options.signingCert must be a PEM or base64 certificate');
  const idpIssuer = typeof options.issuer === 'string' ? options.issuer.trim() : '';
  if (!idpIssuer) problems.push('options.issuer must be the identity provider’s entity ID (the Issuer of its responses)');
  const binding = options.protocolBinding ?? HTTP_REDIRECT;
  if (binding !== HTTP_REDIRECT && binding !== HTTP_POST) problems.push(`options.protocolBinding must be ${HTTP_REDIRECT} or ${HTTP_POST}`);
  const fieldsMap = (options.fieldsMap ?? {}) as Record<string, unknown>;
  for (const [field, attribute] of Object.entries(fieldsMap)) {
    if (!FIELDS.has(field)) problems.push(`options.fieldsMap.${field} is not a profile field (${[...FIELDS].join(', ')})`);
    else if (typeof attribute !== 'string' || attribute === '') problems.push(`options.fieldsMap.${field} must name an attribute`);
  }
  const raw = (options.idpinitiated ?? {}) as Record<string, unknown>;
  const idpInitiated: IdpInitiated = {
    enabled: raw.enabled === true,
    clientProtocol: 'oauth2',
    clientAuthorizeQuery: typeof raw.client_authorizequery === 'string' ? raw.client_authorizequery : '',
    ...(typeof raw.client_id === 'string' ? { clientId: raw.client_id } : {}),
  };
  if (idpInitiated.enabled && !idpInitiated.clientId) problems.push('options.idpinitiated.client_id must name the default application');
  if (raw.client_protocol !== undefined && raw.client_protocol !== 'oauth2') problems.push('options.idpinitiated.client_protocol must be oauth2');
  if (problems.length > 0) return { problems };
  return {
    settings: {
      signInEndpoint,
      certificates: certificates as string[],
      idpIssuer,
      binding: binding as SamlSettings['binding'],
      signRequests: options.signSAMLRequest === true,
      fieldsMap: fieldsMap as SamlFieldsMap,
      idpInitiated,
    },
    problems,
  };
}
