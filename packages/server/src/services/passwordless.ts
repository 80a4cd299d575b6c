import { digitCode } from '../crypto/random.js';
import { hmacSha256 } from '../crypto/deployment-secret.js';
import { safeEqual } from '../crypto/handles.js';
import type { OAuthConfig } from './config-cache.js';
import type { Storage } from '../storage/storage.js';
import type { ConnectionData } from './connections.js';
import { ServiceError } from './errors.js';
import { EMAIL_SHAPE } from './password-policy.js';
import { otpMinutes, otpSettingsOf } from './connection-options/passwordless.js';
import { loginAccount, usersService, withLogin, type UserData } from './users.js';

/** A one-time code survives three wrong guesses (the platform's rule); its length and lifetime are the connection's. */
export const OTP_MAX_TRIES = 3;
const E164 = /^\+[1-9][0-9]{6,14}$/;

export type PasswordlessKind = 'email' | 'sms';

interface OtpData {
  client_id: string;
  connection: string;
  identifier: string;
  code_hash: string;
  wrong_tries: number;
}

export type PasswordlessStartFailure =
  | 'unknown_client'
  | 'unknown_connection'
  | 'bad_email'
  | 'bad_phone_number'
  | 'signup_disabled'
  /** An e-mail connection given a phone_number field, or the other way round. */
  | 'wrong_address_field'
  /** Magic links go by e-mail only. */
  | 'link_by_sms';

export type OtpFailure = 'unknown_connection' | 'wrong_code' | 'too_many_tries' | 'blocked' | 'signup_disabled';

export interface PasswordlessDeps {
  storage: Storage;
  config: OAuthConfig;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
}

/**
 * Passwordless connections (strategies `email` and `sms`): a code of digits (or a link carrying it) per connection
 * and address, expiring after the connection's lifetime (`options.totp`: six digits, five minutes unless it says
 * otherwise), single-use, void after three wrong guesses. Only the code's keyed
 * hash is stored; a new start replaces the previous code. Guesses at one code are serialised across nodes, so the
 * limit holds under concurrency. A successful first login creates the user unless the connection disables signup.
 */
export function passwordless(deps: PasswordlessDeps) {
  const { storage, tenantId } = deps;
  const users = usersService({ storage, tenantId, now: deps.now });
  const codeKey = hmacSha256(deps.handleKey, 'passwordless-code');
  const codeHash = (code: string) => hmacSha256(codeKey, code).toString('base64url');
  /** One live code per connection and address: its row id is derived from them. */
  const otpId = (connection: string, identifier: string) => hmacSha256(deps.handleKey, `otp\n${connection}\n${identifier}`).toString('base64url');

  async function connectionFor(clientId: string, name: string): Promise<ConnectionData | undefined> {
    const record = await storage.connections.findOne(tenantId, { name });
    const connection = record?.data;
    if (!connection || (connection.strategy !== 'email' && connection.strategy !== 'sms') || !connection.enabled_clients.includes(clientId)) return undefined;
    return connection;
  }

  /** The address as the connection keys it: e-mails lower-cased, phone numbers in E.164. */
  function identifierOf(connection: ConnectionData, raw: string): string | undefined {
    const value = raw.trim();
    if (connection.strategy === 'email') return EMAIL_SHAPE.test(value) ? value.toLowerCase() : undefined;
    return E164.test(value) ? value : undefined;
  }

  async function findUser(connection: ConnectionData, identifier: string) {
    const where = connection.strategy === 'email' ? { connection: connection.name, email: identifier } : { connection: connection.name, username: identifier };
    return storage.users.findOne(tenantId, where);
  }

  return {
    identifierOf,

    /** A passwordless connection (strategy `email` or `sms`) of this name enabled for the client. */
    connectionFor,

    /** The client's first passwordless connection: e-mail before SMS, then in creation order. */
    async firstConnectionFor(clientId: string): Promise<ConnectionData | undefined> {
      for (const strategy of ['email', 'sms'] as const) {
        for (let offset = 0; ; offset += 100) {
          const page = await storage.connections.list(tenantId, { offset, limit: 100 }, { strategy });
          const found = page.items.find((record) => record.data.enabled_clients.includes(clientId));
          if (found) return found.data;
          if (offset + 100 >= page.total) break;
        }
      }
      return undefined;
    },

    /** Issues a code for the address; the caller delivers it (as a code or inside a link). */
    async start(input: { clientId: string; connection: string; address: string; field: 'email' | 'phone_number'; send: 'code' | 'link' | undefined }): Promise<
      { ok: true; code: string; connection: ConnectionData; identifier: string; id: string; clientName: string; minutes: number } | { ok: false; failure: PasswordlessStartFailure }
    > {
      const client = await deps.config.client(input.clientId);
      if (!client) return { ok: false, failure: 'unknown_client' };
      const connection = await connectionFor(input.clientId, input.connection);
      if (!connection) return { ok: false, failure: 'unknown_connection' };
      const identifier = identifierOf(connection, input.address);
      if (!identifier) return { ok: false, failure: connection.strategy === 'email' ? 'bad_email' : 'bad_phone_number' };
      // Every refusal comes before a code exists: a refused start leaves nothing behind.
      if ((connection.strategy === 'email') !== (input.field === 'email')) return { ok: false, failure: 'wrong_address_field' };
      if (input.send === 'link' && connection.strategy === 'sms') return { ok: false, failure: 'link_by_sms' };
      if (connection.options.disable_signup === true && !(await findUser(connection, identifier))) return { ok: false, failure: 'signup_disabled' };
      const otp = otpSettingsOf(connection);
      const code = digitCode(otp.length);
      const id = otpId(connection.name, identifier);
      const now = deps.now();
      const data: OtpData = { client_id: input.clientId, connection: connection.name, identifier, code_hash: codeHash(code), wrong_tries: 0 };
      await storage.transaction((repos) =>
        repos.artifacts.replace(tenantId, 'otp', { id, data, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + otp.seconds * 1000).toISOString() }),
      );
      return { ok: true, code, connection, identifier, id: id.slice(0, 24), clientName: client.data.name, minutes: otpMinutes(otp) };
    },

    /**
     * Checks a code. `spend: false` (`/passwordless/verify`) only checks it, for the redirect that follows to
     * spend it; `spend: true` spends it and returns the user, created on first login.
     */
    async check(input: { clientId: string; connection: string; address: string; code: string; spend: boolean; ip?: string }): Promise<
      { ok: true; userId?: string; connection: ConnectionData } | { ok: false; failure: OtpFailure }
    > {
      const connection = await connectionFor(input.clientId, input.connection);
      if (!connection) return { ok: false, failure: 'unknown_connection' };
      const identifier = identifierOf(connection, input.address);
      if (!identifier) return { ok: false, failure: 'wrong_code' };
      const id = otpId(connection.name, identifier);
      const now = deps.now().toISOString();
      const verdict = await storage.exclusive(`otp:${id}`, async (repos) => {
        const otp = await repos.artifacts.get<OtpData>(tenantId, 'otp', id);
        if (!otp || otp.consumedAt !== null || otp.expiresAt <= now || otp.data.client_id !== input.clientId) return 'wrong_code' as const;
        if (!safeEqual(codeHash(input.code.trim()), otp.data.code_hash)) {
          const wrongTries = otp.data.wrong_tries + 1;
          if (wrongTries >= OTP_MAX_TRIES) {
            await repos.artifacts.consume(tenantId, 'otp', id, now);
            return 'too_many_tries' as const;
          }
          await repos.artifacts.update(tenantId, 'otp', id, { ...otp.data, wrong_tries: wrongTries }, now);
          return 'wrong_code' as const;
        }
        if (input.spend && !(await repos.artifacts.consume(tenantId, 'otp', id, now))) return 'wrong_code' as const;
        return 'ok' as const;
      });
      if (verdict !== 'ok') return { ok: false, failure: verdict };
      if (!input.spend) return { ok: true, connection };
      const existing = await findUser(connection, identifier);
      if (existing) {
        const account = await loginAccount(storage, tenantId, existing);
        if (existing.data.blocked || account.data.blocked) return { ok: false, failure: 'blocked' };
        const verified = connection.strategy === 'email' ? { email_verified: true } : { phone_verified: true };
        // The address is verified on the account it belongs to; the login counts for the user who signs in.
        const counted = (data: UserData) => withLogin(data, now, input.ip);
        // Each written as stored now, so that a concurrent change to either document is not undone.
        await storage.users.modify(tenantId, existing.id, (current) => ({
          data: account.id === existing.id ? counted({ ...current.data, ...verified }) : { ...current.data, ...verified },
        }));
        if (account.id !== existing.id) await storage.users.modify(tenantId, account.id, (current) => ({ data: counted(current.data) }));
        return { ok: true, userId: account.id, connection };
      }
      if (connection.options.disable_signup === true) return { ok: false, failure: 'signup_disabled' };
      try {
        const created = await users.create(
          connection.strategy === 'email'
            ? { connection: connection.name, email: identifier, email_verified: true }
            : { connection: connection.name, phone_number: identifier, phone_verified: true },
          { ip: input.ip },
        );
        return { ok: true, userId: created.user_id, connection };
      } catch (error) {
        // Two first logins at once: the other one created the user.
        if (error instanceof ServiceError && error.kind === 'conflict') {
          const raced = await findUser(connection, identifier);
          if (raced) return { ok: true, userId: raced.id, connection };
        }
        throw error;
      }
    },
  };
}

export type Passwordless = ReturnType<typeof passwordless>;
