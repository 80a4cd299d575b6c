// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { SigningKeys } from './signing-keys.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/**
 * The X.509 certificate SAML peers verify our signatures with: self-signed by the current signing key. Every
 * field is derived from the key (serial from its kid, fixed validity), and RSA PKCS#1 v1.5 signatures are
 * deterministic, so every node of a deployment publishes the same certificate for the same key.
 */
export function signingCertificates(keys: SigningKeys, subject: string) {
  const made = new Map<string, Promise<string>>();

  async function create(kid: string, privateKey: CryptoKey): Promise<string> {
    const jwk = (await keys.jwks()).keys.find((key) => key.kid === kid);
    if (!jwk) throw new Error(`the signing key ${kid} is not published`);
    const publicKey = await webcrypto.subtle.importKey('jwk', { kty: jwk.kty, n: jwk.n, e: jwk.e, ext: true }, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']);
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: `01${createHash('sha256').update(kid).digest('hex').slice(0, 30)}`,
      name: `CN=${subject.replace(/[,=+<>#;"\\]/g, ' ')}`,
      notBefore: new Date('2025-01-01T00:00:00Z'),
      notAfter: new Date('2050-01-01T00:00:00Z'),
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      keys: { privateKey, publicKey: publicKey as CryptoKey },
      extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
    });
    return certificate.toString('pem');
  }

  return {
    /** The current key's certificate (PEM) and the key itself, for signing XML. */
    async current(): Promise<{ kid: string; certificate: string; privateKeyPem: string }> {
      const { kid, key, privateKey } = await keys.current();
      let pending = made.get(kid);
      if (!pending) {
        pending = create(kid, key);
        made.set(kid, pending);
        pending.catch(() => made.delete(kid));
      }
      return { kid, certificate: await pending, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    },
  };
}

export type SigningCertificates = ReturnType<typeof signingCertificates>;
