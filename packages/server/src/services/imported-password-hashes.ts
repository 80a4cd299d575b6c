import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Password hashes made by other systems, as the platform's bulk-import schema carries them
 * (`custom_password_hash`: `algorithm`, `hash.value`/`encoding`/`digest`/`key`, `salt.value`/`encoding`/`position`,
 * `password.encoding`). They are kept as they came until the user's first successful login, which replaces them
 * with our argon2id (see database-login.ts).
 *
 * Stored forms: argon2 keeps its PHC string (`$argon2…`), pbkdf2 its PHC string (`$pbkdf2-<digest>$i=…,l=…$salt$hash`),
 * and the salted digests and HMAC a `$latchkey-import$` prefix before the normalised parameters as base64url JSON,
 * so the verifier can tell each kind by its prefix.
 */

type Encoding = 'base64' | 'hex' | 'utf8';
type PasswordEncoding = 'ascii' | 'utf8' | 'utf16le' | 'ucs2' | 'latin1' | 'binary';

const DIGESTS = { md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha512: 'sha512' } as const;
const HMAC_DIGESTS = new Set(['md5', 'sha1', 'sha256', 'sha512']);
const ENCODINGS = new Set<string>(['base64', 'hex', 'utf8']);
const PASSWORD_ENCODINGS = new Set<string>(['ascii', 'utf8', 'utf16le', 'ucs2', 'latin1', 'binary']);
const IMPORT_PREFIX = '$latchkey-import$';
const PBKDF2_PHC = /^\$pbkdf2-(sha1|sha256|sha512)\$i=(\d{1,7}),l=(\d{1,3})\$([A-Za-z0-9+/.]+={0,2})\$([A-Za-z0-9+/.]+={0,2})$/;

/** Normalised parameters of a salted digest or an HMAC, as stored after `$latchkey-import$`. */
interface DigestParameters {
  algorithm: 'md5' | 'sha1' | 'sha256' | 'sha512' | 'hmac';
  /** Hex of the expected digest. */
  hash: string;
  digest?: string;
  /** Hex of the HMAC key. */
  key?: string;
  /** Hex of the salt. */
  salt?: string;
  position?: 'prefix' | 'suffix';
  passwordEncoding: PasswordEncoding;
}

/** Why a record's password hash cannot be imported, listed in the job's errors. */
export class ImportedHashError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function decoded(value: unknown, encoding: unknown, what: string): Buffer {
  if (typeof value !== 'string' || value === '') throw new ImportedHashError(`${what}.value must be a non-empty string`);
  const chosen = encoding ?? 'utf8';
  if (typeof chosen !== 'string' || !ENCODINGS.has(chosen)) throw new ImportedHashError(`${what}.encoding must be one of base64, hex, utf8`);
  if (chosen === 'hex' && !/^(?:[0-9a-fA-F]{2})+$/.test(value)) throw new ImportedHashError(`${what}.value is not hex`);
  return Buffer.from(value, chosen as Encoding);
}

/**
 * The stored form of a record's `password_hash` (bcrypt) or `custom_password_hash`; `undefined` when the record
 * carries neither. Throws ImportedHashError for a hash we cannot verify later.
 */
export function storedImportedHash(record: { password_hash?: unknown; custom_password_hash?: unknown }): string | undefined {
  if (record.password_hash !== undefined && record.custom_password_hash !== undefined) {
    throw new ImportedHashError('password_hash and custom_password_hash are mutually exclusive');
  }
  if (record.password_hash !== undefined) {
    if (typeof record.password_hash !== 'string' || !/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(record.password_hash)) {
      throw new ImportedHashError('password_hash must be a bcrypt hash ($2a$ or $2b$)');
    }
    return record.password_hash;
  }
  const custom = record.custom_password_hash;
  if (custom === undefined) return undefined;
  if (!isObject(custom) || !isObject(custom.hash)) throw new ImportedHashError('custom_password_hash must have algorithm and hash');
  const { algorithm, hash } = custom;
  const passwordEncoding = isObject(custom.password) ? (custom.password.encoding ?? 'utf8') : 'utf8';
  if (typeof passwordEncoding !== 'string' || !PASSWORD_ENCODINGS.has(passwordEncoding)) {
    throw new ImportedHashError('custom_password_hash.password.encoding is not supported');
  }
  switch (algorithm) {
    case 'bcrypt':
      return storedImportedHash({ password_hash: hash.value });
    case 'argon2':
      if (typeof hash.value !== 'string' || !/^\$argon2(id|i|d)\$/.test(hash.value)) throw new ImportedHashError('an argon2 hash.value must be a PHC string');
      return hash.value;
    case 'pbkdf2':
      if (typeof hash.value !== 'string' || !PBKDF2_PHC.test(hash.value)) {
        throw new ImportedHashError('a pbkdf2 hash.value must be a PHC string $pbkdf2-<sha1|sha256|sha512>$i=<iterations>,l=<length>$<salt>$<hash>');
      }
      return hash.value;
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
    case 'hmac': {
      const parameters: DigestParameters = {
        algorithm,
        hash: decoded(hash.value, hash.encoding, 'custom_password_hash.hash').toString('hex'),
        passwordEncoding: passwordEncoding as PasswordEncoding,
      };
      if (algorithm === 'hmac') {
        if (typeof hash.digest !== 'string' || !HMAC_DIGESTS.has(hash.digest)) throw new ImportedHashError('an hmac hash.digest must be one of md5, sha1, sha256, sha512');
        if (!isObject(hash.key)) throw new ImportedHashError('an hmac hash needs hash.key');
        parameters.digest = hash.digest;
        parameters.key = decoded(hash.key.value, hash.key.encoding, 'custom_password_hash.hash.key').toString('hex');
      }
      if (custom.salt !== undefined) {
        if (!isObject(custom.salt)) throw new ImportedHashError('custom_password_hash.salt must be an object');
        const position = custom.salt.position ?? 'prefix';
        if (position !== 'prefix' && position !== 'suffix') throw new ImportedHashError('custom_password_hash.salt.position must be prefix or suffix');
        parameters.salt = decoded(custom.salt.value, custom.salt.encoding, 'custom_password_hash.salt').toString('hex');
        parameters.position = position;
      }
      return IMPORT_PREFIX + Buffer.from(JSON.stringify(parameters)).toString('base64url');
    }
    default:
      throw new ImportedHashError(`custom_password_hash.algorithm ${JSON.stringify(algorithm)} is not supported`);
  }
}

const pbkdf2Async = promisify(pbkdf2);

/** PHC strings use unpadded base64, some writers with `.` for `+`. */
const phcBytes = (value: string) => Buffer.from(value.replace(/\./g, '+'), 'base64');

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when `stored` is a pbkdf2 PHC string or a `$latchkey-import$` digest that `verifyImportedPassword` checks. */
export function isImportedDigest(stored: string): boolean {
  return stored.startsWith(IMPORT_PREFIX) || stored.startsWith('$pbkdf2-');
}

/** Checks a password against a pbkdf2 or salted-digest/HMAC hash kept from an import. */
export async function verifyImportedPassword(password: string, stored: string): Promise<boolean> {
  const pbkdf2Match = PBKDF2_PHC.exec(stored);
  if (pbkdf2Match) {
    const [, digest = '', iterations = '0', length = '0', salt = '', expected = ''] = pbkdf2Match;
    const derived = await pbkdf2Async(password, phcBytes(salt), Number(iterations), Number(length), digest);
    return equal(derived, phcBytes(expected));
  }
  if (!stored.startsWith(IMPORT_PREFIX)) return false;
  const parameters = JSON.parse(Buffer.from(stored.slice(IMPORT_PREFIX.length), 'base64url').toString()) as DigestParameters;
  const secret = Buffer.from(password, parameters.passwordEncoding);
  const salt = parameters.salt !== undefined ? Buffer.from(parameters.salt, 'hex') : Buffer.alloc(0);
  const input = parameters.position === 'suffix' ? Buffer.concat([secret, salt]) : Buffer.concat([salt, secret]);
  const computed =
    parameters.algorithm === 'hmac'
      ? createHmac(parameters.digest ?? 'sha256', Buffer.from(parameters.key ?? '', 'hex')).update(input).digest()
      : createHash(DIGESTS[parameters.algorithm]).update(input).digest();
  return equal(computed, Buffer.from(parameters.hash, 'hex'));
}
