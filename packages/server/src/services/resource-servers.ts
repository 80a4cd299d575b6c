import { randomHexId } from '../crypto/random.js';

export interface ResourceServerScope {
  value: string;
  description?: string;
}

export interface ResourceServerData {
  name: string;
  identifier: string;
  scopes: ResourceServerScope[];
  token_lifetime: number;
  signing_alg: 'RS256';
  allow_offline_access: boolean;
  skip_consent_for_verifiable_first_party_clients: boolean;
  [extra: string]: unknown;
}

export const DEFAULT_TOKEN_LIFETIME = 86_400;

export function newResourceServerData(input: Partial<ResourceServerData> & { identifier: string }): ResourceServerData {
  return {
    ...input,
    name: input.name ?? input.identifier,
    identifier: input.identifier,
    scopes: input.scopes ?? [],
    token_lifetime: input.token_lifetime ?? DEFAULT_TOKEN_LIFETIME,
    signing_alg: 'RS256',
    allow_offline_access: input.allow_offline_access ?? false,
    skip_consent_for_verifiable_first_party_clients: input.skip_consent_for_verifiable_first_party_clients ?? true,
  };
}

export function newResourceServerId(): string {
  return randomHexId();
}

/** The Management API's identifier: `$LATCHKEY_ISSUER/api/v2/`. */
export function managementApiIdentifier(issuer: string): string {
  return `${issuer}/api/v2/`;
}
