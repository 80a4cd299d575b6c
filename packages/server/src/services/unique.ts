import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';

/** Runs a write, turning a unique-constraint violation into a 409 with the caller's message. */
export async function uniquely<T>(storage: Storage, message: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (storage.isUniqueViolation(error)) throw new ServiceError('conflict', message);
    throw error;
  }
}

/** Returns the record, or raises a 404 naming what was looked for. */
export function found<T>(record: T | undefined, message: string): T {
  if (record === undefined) throw new ServiceError('not_found', message);
  return record;
}
