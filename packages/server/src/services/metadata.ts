import { nestedDeeperThan } from '../text/json-depth.js';
import type { Metadata } from '../storage/records.js';
import { ServiceError } from './errors.js';

export type { Metadata } from '../storage/records.js';

/**
 * The platform's PATCH semantics for metadata: keys merge one level deep (nested objects are replaced whole),
 * a `null` value removes its key, and an empty object (or `null`) clears everything.
 */
export function mergeMetadata<T>(current: Record<string, T>, patch: Record<string, T | null> | null | undefined): Record<string, T> {
  if (patch === undefined) return current;
  if (patch === null || Object.keys(patch).length === 0) return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** The platform's limit on a client's client_metadata (its values are strings of at most 255 characters). */
export const CLIENT_METADATA_MAX_KEYS = 10;

/**
 * Limits of one user's user_metadata or app_metadata, as stored after a create or a merge. The platform stores up
 * to 16 MB but calls 16 KB the practical upper limit (each user document is read on every login and in every
 * page of a user list); the depth keeps every value far from what JSON.stringify and recursive walks can handle.
 */
export const USER_METADATA_LIMITS = { maxBytes: 16 * 1024, maxDepth: 10 };

/** `value` when it keeps within USER_METADATA_LIMITS; a ServiceError ('invalid', 400) naming `field` otherwise. */
export function withinMetadataLimits(field: string, value: Metadata): Metadata {
  const { maxBytes, maxDepth } = USER_METADATA_LIMITS;
  if (nestedDeeperThan(value, maxDepth)) throw new ServiceError('invalid', `${field} is nested more than ${maxDepth} levels deep.`);
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > maxBytes) throw new ServiceError('invalid', `${field} is ${bytes} bytes of JSON; at most ${maxBytes} are allowed.`);
  return value;
}

/** mergeMetadata for a user's metadata: a changed object must keep within USER_METADATA_LIMITS. */
export function mergeUserMetadata(field: string, current: Metadata, patch: Record<string, unknown> | null | undefined): Metadata {
  return patch === undefined ? current : withinMetadataLimits(field, mergeMetadata(current, patch));
}
