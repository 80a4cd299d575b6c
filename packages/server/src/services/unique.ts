import type { Storage } from '../storage/storage.js';
import type { ServiceError } from './errors.js';

/**
 * Runs a write, turning a unique-constraint violation into the caller's 409. Errors are passed as factories so
 * each call site spells out the platform's message and errorCode (a catalogued one: management-error-codes.ts).
 */
export async function uniquely<T>(storage: Storage, conflict: () => ServiceError, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (storage.isUniqueViolation(error)) throw conflict();
    throw error;
  }
}

/** Returns the record, or raises the caller's 404. */
export function found<T>(record: T | undefined, missing: () => ServiceError): T {
  if (record === undefined) throw missing();
  return record;
}
