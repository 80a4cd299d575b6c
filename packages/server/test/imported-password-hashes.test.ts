import { createHash, createHmac } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { ImportedHashError, storedImportedHash } from '../src/services/imported-password-hashes.js';
import { hashPassword, isCurrentPasswordHash, verifyPassword } from '../src/services/passwords.js';

const PASSWORD = 'pässword from elsewhere';

/** Imports `custom_password_hash`, then checks the right and a wrong password against what is stored. */
async function accepts(custom: unknown): Promise<[boolean, boolean]> {
  const stored = storedImportedHash({ custom_password_hash: custom }) ?? '';
  expect(isCurrentPasswordHash(stored)).toBe(false);
  return [await verifyPassword(PASSWORD, stored), await verifyPassword(`${PASSWORD}!`, stored)];
}

/** The bulk-import hash formats (`password_hash`, `custom_password_hash`) verified by the password check. */
describe('imported password hashes', () => {
  it('verifies bcrypt, argon2, and salted digests with their encodings and salt positions', async () => {
    const bcryptHash = await bcrypt.hash(PASSWORD, 4);
    const stored = storedImportedHash({ password_hash: bcryptHash }) ?? '';
    expect([await verifyPassword(PASSWORD, stored), await verifyPassword('nope', stored)]).toEqual([true, false]);
    expect(await accepts({ algorithm: 'bcrypt', hash: { value: bcryptHash } })).toEqual([true, false]);
    expect(await accepts({ algorithm: 'argon2', hash: { value: await argon2Hash(PASSWORD, { algorithm: 1, memoryCost: 1024, timeCost: 1 }), encoding: 'utf8' } })).toEqual([true, false]);

    const salt = Buffer.from('some salt');
    const md5Suffix = createHash('md5').update(Buffer.concat([Buffer.from(PASSWORD), salt])).digest('base64');
    expect(await accepts({ algorithm: 'md5', hash: { value: md5Suffix, encoding: 'base64' }, salt: { value: salt.toString('hex'), encoding: 'hex', position: 'suffix' } })).toEqual([true, false]);
    const sha512 = createHash('sha512').update(PASSWORD).digest('hex');
    expect(await accepts({ algorithm: 'sha512', hash: { value: sha512, encoding: 'hex' } })).toEqual([true, false]);
    const latin1 = createHash('sha1').update(Buffer.from(PASSWORD, 'latin1')).digest('hex');
    expect(await accepts({ algorithm: 'sha1', hash: { value: latin1, encoding: 'hex' }, password: { encoding: 'latin1' } })).toEqual([true, false]);
    const hmac = createHmac('sha256', 'the key').update(Buffer.concat([salt, Buffer.from(PASSWORD)])).digest('base64');
    expect(await accepts({ algorithm: 'hmac', hash: { value: hmac, encoding: 'base64', digest: 'sha256', key: { value: 'the key', encoding: 'utf8' } }, salt: { value: 'some salt' } })).toEqual([true, false]);
  });

  it('refuses what it could not verify later', () => {
    const refused = (record: Record<string, unknown>) => () => storedImportedHash(record);
    expect(refused({ password_hash: 'plain' })).toThrow(ImportedHashError);
    expect(refused({ password_hash: '$2b$10$x', custom_password_hash: {} })).toThrow(/mutually exclusive/);
    expect(refused({ custom_password_hash: { algorithm: 'scrypt', hash: { value: 'x' } } })).toThrow(/not supported/);
    expect(refused({ custom_password_hash: { algorithm: 'pbkdf2', hash: { value: 'deadbeef' } } })).toThrow(/PHC/);
    expect(refused({ custom_password_hash: { algorithm: 'sha256', hash: { value: 'zz', encoding: 'hex' } } })).toThrow(/not hex/);
    expect(refused({ custom_password_hash: { algorithm: 'hmac', hash: { value: 'aa', encoding: 'hex', digest: 'sha256' } } })).toThrow(/hash.key/);
    expect(refused({ custom_password_hash: { algorithm: 'md5', hash: { value: 'aa', encoding: 'hex' }, salt: { value: 's', position: 'middle' } } })).toThrow(/prefix or suffix/);
    expect(storedImportedHash({})).toBeUndefined();
  });

  it('counts only our own argon2id parameters as current', async () => {
    expect(isCurrentPasswordHash(await hashPassword(PASSWORD))).toBe(true);
    expect(isCurrentPasswordHash(await argon2Hash(PASSWORD, { algorithm: 2, memoryCost: 1024, timeCost: 1 }))).toBe(false);
  });
});
