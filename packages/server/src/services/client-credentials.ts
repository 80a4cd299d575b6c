import { X509Certificate, createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { randomId } from '../crypto/random.js';
import type { Storage } from '../storage/storage.js';
import type { ClientAuthenticationMethods, ClientCredential, ClientData, CredentialAlg, CredentialMethod, CredentialType } from '../storage/records.js';
import { ServiceError } from './errors.js';
import { found } from './unique.js';

export type { ClientAuthenticationMethods, ClientCredential, CredentialAlg, CredentialMethod, CredentialType } from '../storage/records.js';

export interface CredentialInput {
  credential_type: CredentialType;
  name?: string;
  pem?: string;
  subject_dn?: string;
  alg?: CredentialAlg;
  kid?: string;
  parse_expiry_from_cert?: boolean;
  expires_at?: string;
}

/** Which credential type each authentication method accepts. */
export const METHOD_CREDENTIAL_TYPES = {
  private_key_jwt: 'public_key',
  tls_client_auth: 'cert_subject_dn',
  self_signed_tls_client_auth: 'x509_cert',
} as const satisfies Record<CredentialMethod, CredentialType>;

const invalid = (message: string) => new ServiceError('invalid', message, 'invalid_body');
const noClient = () => new ServiceError('not_found', 'The client does not exist', 'inexistent_client');
const noCredential = () => new ServiceError('not_found', 'The credential does not exist', 'inexistent_credential');

/** The SHA-256 thumbprint of a certificate (base64url of the DER digest). */
export function certificateThumbprint(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.raw).digest('base64url');
}

/** A subject DN in one spelling, so `CN=a, O=b` and node's `CN=a\nO=b` compare equal. */
export function normalizeDn(dn: string): string {
  return dn
    .split(/\s*[\n,]\s*/)
    .map((part) => part.trim())
    .filter(Boolean)
    .join(',');
}

function parseCertificate(pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw invalid('pem is not a PEM X.509 certificate.');
  }
}

/** The public key of a PEM key or certificate; refuses private keys (a client never hands us its private key). */
function publicKeyOf(pem: string): KeyObject {
  if (/PRIVATE KEY/.test(pem)) throw invalid('pem must hold a public key or certificate, never a private key.');
  try {
    const key = pem.includes('BEGIN CERTIFICATE') ? new X509Certificate(pem).publicKey : createPublicKey(pem);
    if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new Error('weak');
    return key;
  } catch {
    throw invalid('pem must be an RSA public key (SPKI or PKCS#1) or certificate of at least 2048 bits.');
  }
}

/**
 * Parsed keys by credential. The config cache hands out the same client data while it is fresh, so a client
 * authenticating repeatedly parses its PEM once; a changed client comes back as new objects and is parsed anew.
 */
const parsedKeys = new WeakMap<ClientCredential, KeyObject>();

/** The public key of a `public_key` credential, for verifying client assertions. */
export function credentialKey(credential: ClientCredential): KeyObject | undefined {
  if (!credential.pem) return undefined;
  let key = parsedKeys.get(credential);
  if (!key) {
    key = publicKeyOf(credential.pem);
    parsedKeys.set(credential, key);
  }
  return key;
}

/** Validates a create request and builds the stored credential. */
export function newCredential(input: CredentialInput, now: Date): ClientCredential {
  const stamp = now.toISOString();
  const base = { id: `cred_${randomId(22)}`, name: input.name ?? '', credential_type: input.credential_type, created_at: stamp, updated_at: stamp };
  switch (input.credential_type) {
    case 'public_key': {
      if (!input.pem) throw invalid('A public_key credential needs pem.');
      if (input.subject_dn !== undefined) throw invalid('subject_dn applies only to cert_subject_dn credentials.');
      publicKeyOf(input.pem);
      let expires = input.expires_at;
      if (input.parse_expiry_from_cert) {
        if (!input.pem.includes('BEGIN CERTIFICATE')) throw invalid('parse_expiry_from_cert needs pem to be a certificate.');
        expires = new Date(parseCertificate(input.pem).validTo).toISOString();
      }
      if (expires !== undefined && Number.isNaN(Date.parse(expires))) throw invalid('expires_at must be an ISO 8601 date.');
      return {
        ...base,
        kid: input.kid ?? randomId(32),
        alg: input.alg ?? 'RS256',
        pem: input.pem.trim(),
        ...(expires !== undefined ? { expires_at: new Date(expires).toISOString() } : {}),
      };
    }
    case 'x509_cert': {
      if (!input.pem) throw invalid('An x509_cert credential needs pem.');
      const certificate = parseCertificate(input.pem);
      return {
        ...base,
        subject_dn: normalizeDn(certificate.subject),
        thumbprint_sha256: certificateThumbprint(certificate),
        expires_at: new Date(certificate.validTo).toISOString(),
      };
    }
    case 'cert_subject_dn': {
      if ((input.pem === undefined) === (input.subject_dn === undefined)) throw invalid('A cert_subject_dn credential needs exactly one of pem and subject_dn.');
      const subject = input.pem ? parseCertificate(input.pem).subject : (input.subject_dn ?? '');
      if (!normalizeDn(subject)) throw invalid('subject_dn must not be empty.');
      return { ...base, subject_dn: normalizeDn(subject) };
    }
  }
}

/** What the Management API shows of a credential: never the PEM it was made from. */
export function credentialView(credential: ClientCredential): Omit<ClientCredential, 'pem'> {
  const { pem: _pem, ...view } = credential;
  return view;
}

/**
 * Checks that every credential the methods name exists on the client and has the type the method needs, so a
 * client can never be left with a method it cannot authenticate by.
 */
export function checkAuthenticationMethods(methods: ClientAuthenticationMethods | null | undefined, credentials: readonly ClientCredential[]): void {
  for (const [method, entry] of Object.entries(methods ?? {}) as [CredentialMethod, { credentials: { id: string }[] } | undefined][]) {
    for (const { id } of entry?.credentials ?? []) {
      const credential = credentials.find((candidate) => candidate.id === id);
      if (!credential) throw invalid(`Credential ${id} does not exist on this client.`);
      if (credential.credential_type !== METHOD_CREDENTIAL_TYPES[method]) {
        throw invalid(`${method} needs ${METHOD_CREDENTIAL_TYPES[method]} credentials; ${id} is ${credential.credential_type}.`);
      }
    }
  }
}

/** The credentials an authentication method of the client may use now (configured, not expired). */
export function credentialsFor(data: ClientData, method: CredentialMethod, now: Date): ClientCredential[] {
  const ids = new Set((data.client_authentication_methods?.[method]?.credentials ?? []).map((entry) => entry.id));
  return (data.credentials ?? []).filter((credential) => ids.has(credential.id) && (!credential.expires_at || Date.parse(credential.expires_at) > now.getTime()));
}

/** Management of a client's credentials (`/api/v2/clients/{id}/credentials`). */
export function clientCredentialsService(deps: { storage: Storage; tenantId: string; now: () => Date }) {
  const { storage, tenantId } = deps;
  const load = async (clientId: string) => found(await storage.clients.get(tenantId, clientId), noClient);
  const save = async (clientId: string, data: ClientData) => {
    if (!(await storage.clients.update(tenantId, clientId, { data }))) throw noClient();
  };
  return {
    async list(clientId: string) {
      return ((await load(clientId)).data.credentials ?? []).map(credentialView);
    },
    async get(clientId: string, credentialId: string) {
      const credential = (await load(clientId)).data.credentials?.find((candidate) => candidate.id === credentialId);
      return credentialView(found(credential, noCredential));
    },
    async create(clientId: string, input: CredentialInput) {
      const credential = newCredential(input, deps.now());
      const record = await load(clientId);
      const existing = record.data.credentials ?? [];
      if (existing.length >= 20) throw invalid('A client has at most 20 credentials.');
      if (credential.kid !== undefined && existing.some((other) => other.kid === credential.kid)) {
        throw new ServiceError('conflict', 'A credential with this kid already exists on the client.', 'credential_conflict');
      }
      await save(clientId, { ...record.data, credentials: [...existing, credential] });
      return credentialView(credential);
    },
    /** A credential in use by an authentication method cannot be removed until the method no longer names it. */
    async remove(clientId: string, credentialId: string) {
      const record = await load(clientId);
      const existing = record.data.credentials ?? [];
      if (!existing.some((credential) => credential.id === credentialId)) return;
      const inUse = Object.values(record.data.client_authentication_methods ?? {}).some((entry) => entry?.credentials.some((ref) => ref.id === credentialId));
      if (inUse) throw invalid('The credential is in use by client_authentication_methods: remove it there first.');
      await save(clientId, { ...record.data, credentials: existing.filter((credential) => credential.id !== credentialId) });
    },
  };
}
