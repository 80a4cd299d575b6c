import { X509Certificate } from 'node:crypto';
import { safeEqual } from '../crypto/handles.js';
import { certificateThumbprint, credentialsFor, normalizeDn } from '../services/client-credentials.js';
import type { ClientData } from '../services/clients.js';
import { InvalidClient, InvalidRequest } from './errors.js';

/** The headers a customer edge that terminated TLS forwards (spec: authentication interface, mTLS). */
export interface EdgeHeaders {
  apiKey: string | undefined;
  certificate: string | undefined;
  caVerified: string | undefined;
}

/** A client certificate the edge vouches for. */
export interface ForwardedCertificate {
  thumbprint: string;
  subjectDn: string;
  /** Whether the edge verified the chain against its trusted CAs (`client-certificate-ca-verified: SUCCESS`). */
  caVerified: boolean;
}

/**
 * The forwarded certificate, when the request carries one and the edge proved itself with the shared key.
 * Without a configured key no forwarded certificate is believed: anyone could send the headers.
 */
export function forwardedCertificate(headers: EdgeHeaders, edgeApiKey: string | undefined): ForwardedCertificate | undefined {
  if (headers.certificate === undefined) return undefined;
  if (edgeApiKey === undefined || headers.apiKey === undefined || !safeEqual(headers.apiKey, edgeApiKey)) {
    throw new InvalidClient('The forwarded client certificate is not trusted (cname-api-key).', false);
  }
  let certificate: X509Certificate;
  try {
    // Edges send the PEM URL-encoded, since a header cannot hold its line breaks.
    certificate = new X509Certificate(decodeURIComponent(headers.certificate));
  } catch {
    throw new InvalidRequest('client-certificate is not a URL-encoded PEM certificate.');
  }
  return { thumbprint: certificateThumbprint(certificate), subjectDn: normalizeDn(certificate.subject), caVerified: headers.caVerified === 'SUCCESS' };
}

/**
 * RFC 8705 client authentication: `self_signed_tls_client_auth` matches a registered certificate's thumbprint;
 * `tls_client_auth` needs a CA-verified certificate whose subject DN is registered. Returns the method used.
 */
export function mtlsMethod(data: ClientData, certificate: ForwardedCertificate, now: Date): 'tls_client_auth' | 'self_signed_tls_client_auth' | undefined {
  if (credentialsFor(data, 'self_signed_tls_client_auth', now).some((credential) => credential.thumbprint_sha256 !== undefined && safeEqual(credential.thumbprint_sha256, certificate.thumbprint))) {
    return 'self_signed_tls_client_auth';
  }
  if (certificate.caVerified && credentialsFor(data, 'tls_client_auth', now).some((credential) => credential.subject_dn === certificate.subjectDn)) {
    return 'tls_client_auth';
  }
  return undefined;
}
