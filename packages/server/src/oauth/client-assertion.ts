import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type ProtectedHeaderParameters } from 'jose';
import { credentialKey, credentialsFor } from '../services/client-credentials.js';
import type { ClientData } from '../services/clients.js';
import type { Storage } from '../storage/storage.js';
import { InvalidClient } from './errors.js';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Assertions are meant to be minted per request; one valid for longer than this is refused. */
const MAX_LIFETIME_SECONDS = 3600;
const CLOCK_TOLERANCE_SECONDS = 30;

export interface AssertionDeps {
  storage: Storage;
  tenantId: string;
  /** Accepted `aud` values: the issuer (with and without the trailing slash) and the token endpoint. */
  audiences: readonly string[];
  now: () => Date;
}

const refused = (description: string) => new InvalidClient(description, false);

function headerOf(assertion: string): ProtectedHeaderParameters {
  try {
    return decodeProtectedHeader(assertion);
  } catch {
    throw refused('The client assertion is not a JWT.');
  }
}

/**
 * RFC 7523 client authentication: a JWT signed by one of the client's registered `public_key` credentials, with
 * `iss` and `sub` the client, `aud` this server, a short `exp`, and a `jti` used once (kept until the assertion
 * would have expired, so a captured assertion cannot be replayed).
 */
export async function verifyClientAssertion(assertion: string, clientId: string, data: ClientData, deps: AssertionDeps): Promise<void> {
  const now = deps.now();
  const header = headerOf(assertion);
  const candidates = credentialsFor(data, 'private_key_jwt', now).filter(
    (credential) => credential.alg === header.alg && (header.kid === undefined || credential.kid === header.kid),
  );
  if (candidates.length === 0) throw refused('No registered credential matches the client assertion (kid and alg).');
  let payload: { jti?: string; exp?: number } | undefined;
  for (const credential of candidates) {
    const key = credentialKey(credential);
    if (!key || !credential.alg) continue;
    try {
      ({ payload } = await jwtVerify(assertion, key, {
        algorithms: [credential.alg],
        issuer: clientId,
        subject: clientId,
        audience: [...deps.audiences],
        requiredClaims: ['exp', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: now,
      }));
      break;
    } catch {
      // Try the next credential with this kid/alg; none verifying is reported below.
    }
  }
  if (!payload?.jti || payload.exp === undefined) throw refused('The client assertion is invalid (signature, iss, sub, aud, exp or jti).');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (payload.exp - nowSeconds > MAX_LIFETIME_SECONDS) throw refused(`The client assertion must expire within ${MAX_LIFETIME_SECONDS} seconds.`);
  const first = await deps.storage.artifacts.insert(deps.tenantId, 'client_assertion', {
    id: createHash('sha256').update(`${clientId}\n${payload.jti}`).digest('base64url'),
    subject: clientId,
    data: {},
    createdAt: now.toISOString(),
    expiresAt: new Date((payload.exp + CLOCK_TOLERANCE_SECONDS) * 1000).toISOString(),
  });
  if (!first) throw refused('The client assertion was already used (jti).');
}
