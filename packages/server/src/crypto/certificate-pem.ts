import { X509Certificate } from 'node:crypto';

/**
 * A certificate as PEM, from PEM or the bare base64 of its DER (how the platform's SAML settings carry
 * certificates); undefined if the value is no X.509 certificate.
 */
export function certificatePem(value: string): string | undefined {
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) return undefined;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? body}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return undefined;
  }
}
