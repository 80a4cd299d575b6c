import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh RSA key and self-signed certificate (by openssl), for TLS servers and SAML signers in tests. */
export function selfSignedCertificate(commonName = 'localhost', subjectAltName?: string): { cert: Buffer; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${commonName}`, ...(subjectAltName ? ['-addext', `subjectAltName=${subjectAltName}`] : []), '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A TLS certificate for Latchkey on https://localhost and https://127.0.0.1. */
export const localTls = () => selfSignedCertificate('localhost', 'DNS:localhost,IP:127.0.0.1');
