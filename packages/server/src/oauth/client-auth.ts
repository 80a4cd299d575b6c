import { verifyClientSecret } from '../crypto/client-secret.js';
import type { ClientData } from '../services/clients.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { decodeJwt } from 'jose';
import { JWT_BEARER_ASSERTION, verifyClientAssertion, type AssertionDeps } from './client-assertion.js';
import { InvalidClient, InvalidRequest } from './errors.js';
import { forwardedCertificate, mtlsMethod, type EdgeHeaders } from './mtls.js';

export interface ClientCredentialsInput {
  authorization: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  clientAssertion?: string | undefined;
  clientAssertionType?: string | undefined;
  /** mTLS: what the customer edge forwarded. */
  edge?: EdgeHeaders;
}

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt' | 'tls_client_auth' | 'self_signed_tls_client_auth';

export interface AuthenticatedClient {
  clientId: string;
  data: ClientData;
  method: ClientAuthMethod;
  /** With mTLS: the certificate's thumbprint, which access tokens are bound to (`cnf.x5t#S256`). */
  certificateThumbprint?: string;
  /** The secret the client presented (kept in memory only: HS256 ID tokens are signed with it). */
  secret?: string;
}

export interface ClientAuthDeps {
  config: OAuthConfig;
  secretKey: Buffer;
  assertions: AssertionDeps;
  edgeApiKey: string | undefined;
}

/** Decodes `Authorization: Basic` per RFC 6749 2.3.1 (form-urlencoded id and secret). */
function parseBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * Built only on failure: an Error captures a stack trace, which costs more than the secret check itself. (A module
 * function rather than a closure per request: tsx names each closure it creates, which the profile showed.)
 */
function failedAuthentication(method: ClientAuthMethod): InvalidClient {
  return new InvalidClient('Client authentication failed.', method === 'client_secret_basic');
}

const NO_METHODS: ReadonlySet<string> = new Set();

/** The key- and certificate-based methods a client configured; when there are any, they are its only ones. */
function keyMethods(data: ClientData): ReadonlySet<string> {
  // Most clients configure none: no Set is built for them on every token request.
  if (data.client_authentication_methods === undefined || data.client_authentication_methods === null) return NO_METHODS;
  return new Set(Object.entries(data.client_authentication_methods).flatMap(([method, entry]) => ((entry?.credentials.length ?? 0) > 0 ? [method] : [])));
}

/** The client a bare assertion names (RFC 7523 lets `client_id` be left out): its unverified `iss`. */
function assertedClientId(assertion: string): string | undefined {
  try {
    const issuer = decodeJwt(assertion).iss;
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Authenticates the client of a token request: `client_secret_basic`, `client_secret_post`, `private_key_jwt`,
 * mTLS through the customer edge (`tls_client_auth`, `self_signed_tls_client_auth`), or for public clients the
 * id alone. Unknown clients and wrong secrets get the same answer.
 */
export async function authenticateClient(input: ClientCredentialsInput, deps: ClientAuthDeps): Promise<AuthenticatedClient> {
  let clientId = input.clientId;
  let secret = input.clientSecret;
  const assertion = input.clientAssertion;
  let method: ClientAuthMethod = secret !== undefined ? 'client_secret_post' : 'none';
  const basic = input.authorization?.toLowerCase().startsWith('basic ') ? input.authorization : undefined;
  if (basic !== undefined) {
    const credentials = parseBasic(basic);
    if (!credentials) throw new InvalidClient('Malformed Basic authorization header.', true);
    if (secret !== undefined) throw new InvalidRequest('Use only one client authentication method.');
    if (clientId !== undefined && clientId !== credentials.id) throw new InvalidRequest('client_id does not match the Basic credentials.');
    clientId = credentials.id;
    secret = credentials.secret;
    method = 'client_secret_basic';
  }
  if (assertion !== undefined || input.clientAssertionType !== undefined) {
    if (input.clientAssertionType !== JWT_BEARER_ASSERTION) throw new InvalidRequest(`client_assertion_type must be ${JWT_BEARER_ASSERTION}.`);
    if (assertion === undefined) throw new InvalidRequest('Missing required parameter: client_assertion');
    if (secret !== undefined) throw new InvalidRequest('Use only one client authentication method.');
    clientId ??= assertedClientId(assertion);
    method = 'private_key_jwt';
  }
  if (!clientId) throw new InvalidRequest('Missing required parameter: client_id');
  const certificate = input.edge ? forwardedCertificate(input.edge, deps.edgeApiKey) : undefined;
  const record = await deps.config.client(clientId);
  if (!record) throw failedAuthentication(method);
  const data = record.data;
  const configured = keyMethods(data);

  if (method === 'private_key_jwt') {
    if (!configured.has('private_key_jwt')) throw failedAuthentication(method);
    await verifyClientAssertion(assertion ?? '', clientId, data, deps.assertions);
    return { clientId, data, method };
  }
  if (certificate && secret === undefined && (configured.has('tls_client_auth') || configured.has('self_signed_tls_client_auth'))) {
    const used = mtlsMethod(data, certificate, deps.assertions.now());
    if (!used) throw failedAuthentication(method);
    return { clientId, data, method: used, certificateThumbprint: certificate.thumbprint };
  }
  if (configured.size > 0) throw failedAuthentication(method);
  if (method === 'none') {
    if (data.token_endpoint_auth_method !== 'none') throw failedAuthentication(method);
  } else if (!record.secretHash || !verifyClientSecret(deps.secretKey, secret ?? '', record.secretHash)) {
    throw failedAuthentication(method);
  }
  return { clientId, data, method, ...(secret !== undefined ? { secret } : {}) };
}
