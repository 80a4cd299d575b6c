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

let local: { cert: Buffer; key: Buffer } | undefined;

/**
 * A TLS certificate for Latchkey on https://localhost and https://127.0.0.1: one per test process, made on first
 * use (each openssl run is a fresh 2048-bit RSA key, a quarter second of CPU and the worker blocked meanwhile). The
 * suites that take it all trust it the same way, and nothing expects it to differ from one suite to the next;
 * a certificate a test means not to trust comes from selfSignedCertificate.
 */
export const localTls = () => (local ??= selfSignedCertificate('localhost', 'DNS:localhost,IP:127.0.0.1'));
