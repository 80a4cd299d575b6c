import { readFileSync } from 'node:fs';

/**
 * Options that make federated connections valid (they are checked when saved) for tests that only need such a
 * connection to exist: no provider answers at these addresses.
 */
export const SAMPLE_FEDERATED_OPTIONS: Readonly<Record<string, Record<string, unknown>>> = {
  samlp: {
    signInEndpoint: 'https://idp.example.com/sso',
    issuer: 'https://idp.example.com/',
    signingCert: readFileSync(new URL('../fixtures/mtls-client-one.pem', import.meta.url), 'utf8'),
  },
  oidc: { discovery_url: 'https://idp.example.com/.well-known/openid-configuration' },
  oauth2: { authorizationURL: 'https://idp.example.com/authorize', tokenURL: 'https://idp.example.com/token', profileURL: 'https://idp.example.com/me' },
};
