import { randomHexId } from '../../crypto/random.js';
import type { ConnectionData } from '../connections.js';
import { ImportedHashError, storedImportedHash } from '../imported-password-hashes.js';
import { withinMetadataLimits } from '../metadata.js';
import type { Metadata, UserData } from '../../storage/records.js';
import type { Storage } from '../../storage/storage.js';
import { profileDefaults } from '../users.js';

/** One failed record as `GET /api/v2/jobs/{id}/errors` lists it (the platform's shape). */
export interface ImportRecordError {
  user: unknown;
  errors: { code: string; message: string; path: string }[];
}

export type ImportOutcome = 'inserted' | 'updated';

/** A record that cannot be imported; `code` is the platform's (INVALID_FORMAT, DUPLICATED_USER, …). */
export class ImportRecordRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path = '',
  ) {
    super(message);
  }
}

const PROFILE_STRINGS = ['name', 'nickname', 'picture', 'given_name', 'family_name', 'username'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of one record we store, checked; throws ImportRecordRefused. */
function checkedRecord(record: unknown) {
  if (!isObject(record)) throw new ImportRecordRefused('INVALID_FORMAT', 'A record must be a JSON object.');
  const { email } = record;
  if (typeof email !== 'string' || !EMAIL.test(email)) throw new ImportRecordRefused('INVALID_FORMAT', 'email must be an e-mail address.', 'email');
  const profile: Partial<Record<(typeof PROFILE_STRINGS)[number], string>> = {};
  for (const field of PROFILE_STRINGS) {
    const value = record[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '' || value.length > 300) throw new ImportRecordRefused('INVALID_FORMAT', `${field} must be a string of 1 to 300 characters.`, field);
    profile[field] = value;
  }
  for (const field of ['blocked', 'email_verified'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'boolean') throw new ImportRecordRefused('INVALID_FORMAT', `${field} must be a boolean.`, field);
  }
  const metadata = (field: 'user_metadata' | 'app_metadata'): Metadata | undefined => {
    const value = record[field];
    if (value === undefined) return undefined;
    if (!isObject(value)) throw new ImportRecordRefused('INVALID_FORMAT', `${field} must be an object.`, field);
    try {
      return withinMetadataLimits(field, value as Metadata);
    } catch (error) {
      throw new ImportRecordRefused('INVALID_FORMAT', (error as Error).message, field);
    }
  };
  const userId = record.user_id;
  if (userId !== undefined && (typeof userId !== 'string' || !/^[A-Za-z0-9_.@-]{1,100}$/.test(userId))) {
    throw new ImportRecordRefused('INVALID_FORMAT', 'user_id must be 1 to 100 letters, digits, or _.@-', 'user_id');
  }
  let passwordHash: string | undefined;
  try {
    passwordHash = storedImportedHash(record);
  } catch (error) {
    if (error instanceof ImportedHashError) throw new ImportRecordRefused('INVALID_FORMAT', error.message, record.custom_password_hash !== undefined ? 'custom_password_hash' : 'password_hash');
    throw error;
  }
  return {
    email: email.trim().toLowerCase(),
    profile,
    blocked: record.blocked as boolean | undefined,
    emailVerified: record.email_verified as boolean | undefined,
    userMetadata: metadata('user_metadata'),
    appMetadata: metadata('app_metadata'),
    userId: userId as string | undefined,
    passwordHash,
  };
}

type CheckedRecord = ReturnType<typeof checkedRecord>;

/** The stored shape of a new user from a checked record. */
function newUser(connection: { name: string; data: ConnectionData }, checked: CheckedRecord, at: string) {
  // The platform prefixes a given id with the connection's strategy; otherwise a new random one.
  const id = `${connection.data.strategy}|${checked.userId ?? randomHexId()}`;
  const data: UserData = {
    ...checked.profile,
    email: checked.email,
    email_verified: checked.emailVerified ?? false,
    ...profileDefaults(checked.profile, checked.email, { name: checked.email, nickname: checked.email }),
    blocked: checked.blocked ?? false,
    user_metadata: checked.userMetadata ?? {},
    app_metadata: checked.appMetadata ?? {},
    logins_count: 0,
  };
  const columns = {
    connection: connection.name,
    email: checked.email,
    username: checked.profile.username ?? null,
    password_hash: checked.passwordHash ?? null,
    updated_at: at,
    linked_to: null,
  };
  return { id, columns, data };
}

function checkedFor(connection: { data: ConnectionData }, record: unknown): CheckedRecord {
  const checked = checkedRecord(record);
  if (checked.profile.username !== undefined && connection.data.options.requires_username !== true) {
    throw new ImportRecordRefused('INVALID_FORMAT', 'Cannot set username for connection without requires_username', 'username');
  }
  return checked;
}

/**
 * Imports a batch of records (parsed JSON, or a SyntaxError for a record that was not JSON), answering each one's
 * outcome in order. New users go in with one statement for the batch, so that an import costs a few statements
 * per hundred users rather than two per user; existing e-mails (upserts and refusals), and a batch whose statement
 * met a duplicate (twice the same e-mail or id in a file, or a user created meanwhile), go one record at a time.
 */
export async function importUserBatch(
  deps: { storage: Storage; tenantId: string; at: string },
  connection: { name: string; data: ConnectionData },
  records: unknown[],
  upsert: boolean,
): Promise<(ImportOutcome | ImportRecordRefused)[]> {
  const { storage, tenantId, at } = deps;
  const outcomes: (ImportOutcome | ImportRecordRefused)[] = [];
  const checked: { index: number; record: CheckedRecord }[] = [];
  for (const [index, record] of records.entries()) {
    if (record instanceof SyntaxError) {
      outcomes[index] = new ImportRecordRefused('INVALID_FORMAT', `The record is not JSON: ${record.message}`);
      continue;
    }
    try {
      checked.push({ index, record: checkedFor(connection, record) });
    } catch (error) {
      if (!(error instanceof ImportRecordRefused)) throw error;
      outcomes[index] = error;
    }
  }
  const emails = [...new Set(checked.map((item) => item.record.email))];
  const existing = emails.length === 0 ? [] : await storage.users.listAfter(tenantId, undefined, emails.length, { connection: connection.name, email: emails });
  const known = new Set(existing.map((user) => user.columns.email));
  const one = async (index: number) => {
    try {
      outcomes[index] = await importUserRecord(deps, connection, records[index], upsert);
    } catch (error) {
      if (!(error instanceof ImportRecordRefused)) throw error;
      outcomes[index] = error;
    }
  };
  const fresh = checked.filter((item) => !known.has(item.record.email));
  try {
    await storage.users.insertMany(
      tenantId,
      fresh.map((item) => ({ ...newUser(connection, item.record, at), createdAt: at })),
    );
    for (const item of fresh) outcomes[item.index] = 'inserted';
  } catch (error) {
    if (!storage.isUniqueViolation(error)) throw error;
    for (const item of fresh) await one(item.index);
  }
  for (const item of checked) if (known.has(item.record.email)) await one(item.index);
  return outcomes;
}

/**
 * Imports one record into a database connection: a new user, or with `upsert` the existing user of the same
 * e-mail updated (given fields replace, metadata objects replace, a given hash replaces the password).
 */
export async function importUserRecord(
  deps: { storage: Storage; tenantId: string; at: string },
  connection: { name: string; data: ConnectionData },
  record: unknown,
  upsert: boolean,
): Promise<ImportOutcome> {
  const { storage, tenantId, at } = deps;
  const checked = checkedFor(connection, record);
  const existing = await storage.users.findOne(tenantId, { connection: connection.name, email: checked.email });
  if (existing) {
    if (!upsert) throw new ImportRecordRefused('DUPLICATED_USER', 'The user already exist and upsert parameter is false');
    const written = await storage.users.modify(tenantId, existing.id, (current) => ({
      data: {
        ...current.data,
        ...checked.profile,
        ...(checked.blocked !== undefined ? { blocked: checked.blocked } : {}),
        ...(checked.emailVerified !== undefined ? { email_verified: checked.emailVerified } : {}),
        ...(checked.userMetadata !== undefined ? { user_metadata: checked.userMetadata } : {}),
        ...(checked.appMetadata !== undefined ? { app_metadata: checked.appMetadata } : {}),
      },
      columns: {
        updated_at: at,
        ...(checked.profile.username !== undefined ? { username: checked.profile.username } : {}),
        ...(checked.passwordHash !== undefined ? { password_hash: checked.passwordHash } : {}),
      },
    }));
    if (!written) throw new ImportRecordRefused('DUPLICATED_USER', 'The user was deleted while it was being updated.');
    return 'updated';
  }
  const { id: userId, columns, data } = newUser(connection, checked, at);
  try {
    await storage.users.insert(tenantId, { id: userId, columns, data, createdAt: at });
  } catch (error) {
    if (storage.isUniqueViolation(error)) throw new ImportRecordRefused('DUPLICATED_USER', 'A user with this user_id, e-mail or username already exists.');
    throw error;
  }
  return 'inserted';
}
