import { invalidToken, type AuthError } from '../helper/errors.js';
import { IdTokenError, verifyIdToken, type IdTokenPayload } from './id-token.js';
import type { KeyLookup } from './jwks.js';

/** What a login hands the application (the reference library's `authResult`). */
export interface AuthResult {
  accessToken: string | null;
  idToken: string | null;
  idTokenPayload: IdTokenPayload | null;
  appState: unknown;
  refreshToken: string | null;
  state: string | null;
  /** Seconds, as the spec types it: a string. */
  expiresIn: string | null;
  tokenType: string | null;
  scope: string | null;
}

export type ResponseFields = Record<string, string | number | undefined>;

const field = (fields: ResponseFields, name: string): string | null => {
  const value = fields[name];
  return value === undefined ? null : String(value);
};

export interface ValidationContext {
  keys: KeyLookup;
  issuer: string;
  clientId: string;
  leeway: number;
  maxAge?: number | undefined;
  nonce?: string | undefined;
  now?: () => number;
}

/**
 * Turns an authorization response (hash fields or a web_message response) into an `authResult`, validating its
 * ID token first. A failed check answers `invalid_token` with the check's message.
 */
export async function toAuthResult(fields: ResponseFields, context: ValidationContext, appState: unknown = null): Promise<AuthResult | AuthError> {
  const state = field(fields, 'state') ?? undefined;
  const idToken = field(fields, 'id_token');
  const accessToken = field(fields, 'access_token');
  let payload: IdTokenPayload | null = null;
  if (idToken !== null) {
    try {
      payload = await verifyIdToken(idToken, context.keys, {
        issuer: context.issuer,
        clientId: context.clientId,
        leeway: context.leeway,
        nonce: context.nonce,
        maxAge: context.maxAge,
        accessToken: accessToken ?? undefined,
        now: Math.floor((context.now ?? Date.now)() / 1000),
      });
    } catch (error) {
      const description = error instanceof IdTokenError ? error.message : `The ID token could not be validated: ${String(error)}`;
      return invalidToken(description, state);
    }
  }
  return {
    accessToken,
    idToken,
    idTokenPayload: payload,
    appState: appState ?? null,
    refreshToken: field(fields, 'refresh_token'),
    state: state ?? null,
    expiresIn: field(fields, 'expires_in'),
    tokenType: field(fields, 'token_type'),
    scope: field(fields, 'scope'),
  };
}

export const isAuthError = (value: AuthResult | AuthError): value is AuthError => 'error' in value;
