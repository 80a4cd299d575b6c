import type { RefreshTokenSettings } from '../storage/records.js';
import { ServiceError } from './errors.js';

export type { RefreshTokenSettings } from '../storage/records.js';

/** The platform's longest refresh-token lifetime (five years), absolute or idle. */
export const MAX_REFRESH_TOKEN_LIFETIME = 157_788_000;

/**
 * What a client that never set `refresh_token` gets: Latchkey's behaviour from before the setting existed, so that
 * no stored application changes under its users. Rotating with reuse detection, dying after 30 days unused, with
 * no absolute limit.
 */
export const DEFAULT_REFRESH_TOKEN: RefreshTokenSettings = {
  rotation_type: 'rotating',
  expiration_type: 'expiring',
  leeway: 0,
  token_lifetime: 2_592_000,
  infinite_token_lifetime: true,
  idle_token_lifetime: 2_592_000,
  infinite_idle_token_lifetime: false,
};

/** A create or PATCH names rotation and expiration (the platform requires both); the other fields keep their values. */
export type RefreshTokenInput = Pick<RefreshTokenSettings, 'rotation_type' | 'expiration_type'> & Partial<RefreshTokenSettings>;

export function refreshTokenSettingsOf(client: { refresh_token?: RefreshTokenSettings | undefined }): RefreshTokenSettings {
  return client.refresh_token ?? DEFAULT_REFRESH_TOKEN;
}

/**
 * The settings after a create or PATCH: `undefined` leaves them, `null` returns to the default, an object is laid
 * over the current settings. Refused: rotation without expiry (a rotating chain that never dies keeps every stolen
 * family alive), and an idle lifetime past the absolute one (it could never apply).
 */
export function changedRefreshTokenSettings(current: RefreshTokenSettings | undefined, input: RefreshTokenInput | null | undefined): RefreshTokenSettings | undefined {
  if (input === undefined) return current;
  if (input === null) return undefined;
  const next = { ...(current ?? DEFAULT_REFRESH_TOKEN), ...input };
  if (next.rotation_type === 'rotating' && next.expiration_type === 'non-expiring') {
    throw new ServiceError('invalid', "refresh_token.rotation_type 'rotating' requires refresh_token.expiration_type 'expiring'.", 'invalid_body');
  }
  if (next.expiration_type === 'expiring' && !next.infinite_token_lifetime && !next.infinite_idle_token_lifetime && next.idle_token_lifetime > next.token_lifetime) {
    throw new ServiceError('invalid', 'refresh_token.idle_token_lifetime must not exceed refresh_token.token_lifetime.', 'invalid_body');
  }
  return next;
}

/** What a chain started under these settings keeps for its whole life (a later change applies to new chains only). */
export interface ChainPolicy {
  rotating: boolean;
  /** Seconds of inactivity that end the chain; null: none. */
  idleSeconds: number | null;
  /** Seconds from the first token to the chain's end; null: none. */
  lifetimeSeconds: number | null;
  /** Seconds during which the secret rotated away is still accepted (0: reuse at once). */
  leeway: number;
}

export function chainPolicyOf(settings: RefreshTokenSettings): ChainPolicy {
  const expiring = settings.expiration_type === 'expiring';
  return {
    rotating: settings.rotation_type === 'rotating',
    idleSeconds: expiring && !settings.infinite_idle_token_lifetime ? settings.idle_token_lifetime : null,
    lifetimeSeconds: expiring && !settings.infinite_token_lifetime ? settings.token_lifetime : null,
    leeway: settings.rotation_type === 'rotating' ? settings.leeway : 0,
  };
}
