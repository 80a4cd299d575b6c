import { createHash } from 'node:crypto';
import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { hashPassword } from './passwords.js';
import { found, uniquely } from './unique.js';

/** Profile fields stored in the user's document (the password hash and lookup keys live in columns). */
export interface UserData {
  email?: string;
  email_verified: boolean;
  username?: string;
  phone_number?: string;
  name: string;
  nickname: string;
  picture: string;
  given_name?: string;
  family_name?: string;
  blocked: boolean;
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
  logins_count: number;
  last_login?: string;
}

export interface UserIdentity {
  connection: string;
  provider: string;
  user_id: string;
  isSocial: boolean;
}

export interface UserView extends UserData {
  user_id: string;
  identities: UserIdentity[];
  created_at: string;
  updated_at: string;
}

type Metadata = Record<string, unknown>;

export interface UserInput {
  connection: string;
  email?: string;
  password?: string;
  username?: string;
  phone_number?: string;
  email_verified?: boolean;
  blocked?: boolean;
  name?: string;
  nickname?: string;
  picture?: string;
  given_name?: string;
  family_name?: string;
  user_metadata?: Metadata;
  app_metadata?: Metadata;
}

export type UserPatch = Partial<Omit<UserInput, 'user_metadata' | 'app_metadata'>> & {
  user_metadata?: Record<string, unknown> | null;
  app_metadata?: Record<string, unknown> | null;
};

/** Provider prefix of user ids by connection strategy. */
const PROVIDER: Record<string, string> = { auth0: 'auth0', email: 'email', sms: 'sms', samlp: 'samlp', oidc: 'oidc' };

/** One level deep: keys in `patch` replace those in `current`; a `null` value removes the key. */
export function mergeMetadata(current: Metadata, patch: Metadata | null | undefined): Metadata {
  if (patch === undefined) return current;
  if (patch === null) return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** A stable default avatar: the platform's convention of a Gravatar URL keyed by the e-mail's MD5. */
function defaultPicture(email: string | undefined): string {
  const digest = createHash('md5').update((email ?? '').trim().toLowerCase()).digest('hex');
  return `https://s.gravatar.com/avatar/${digest}?s=480&r=pg&d=mp`;
}

export interface UsersDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

export function usersService(deps: UsersDeps) {
  const { storage, tenantId } = deps;
  const load = async (userId: string) => found(await storage.users.get(tenantId, userId), 'The user does not exist.');
  const view = (record: { id: string; columns: { connection: string; updated_at: string }; data: UserData; createdAt: string }): UserView => {
    const [provider = 'auth0', id = record.id] = record.id.split('|');
    return {
      ...record.data,
      user_id: record.id,
      identities: [{ connection: record.columns.connection, provider, user_id: id, isSocial: false }],
      created_at: record.createdAt,
      updated_at: record.columns.updated_at,
    };
  };

  async function databaseConnection(name: string) {
    const connection = await storage.connections.findOne(tenantId, { name });
    if (!connection) throw new ServiceError('invalid', `The connection does not exist: ${name}.`);
    return connection.data;
  }

  return {
    async list(window: PageWindow, where: { connection?: string }) {
      const page = await storage.users.list(tenantId, window, where);
      return { items: page.items.map(view), total: page.total };
    },

    async get(userId: string): Promise<UserView> {
      return view(await load(userId));
    },

    async byEmail(email: string): Promise<UserView[]> {
      const page = await storage.users.list(tenantId, { offset: 0, limit: 100 }, { email: email.trim().toLowerCase() });
      return page.items.map(view);
    },

    async create(input: UserInput): Promise<UserView> {
      const connection = await databaseConnection(input.connection);
      if (connection.strategy === 'auth0') {
        if (!input.email) throw new ServiceError('invalid', 'Payload validation error: Missing required property: email.');
        if (!input.password) throw new ServiceError('invalid', 'Payload validation error: Missing required property: password.');
        if (connection.options.requires_username === true && !input.username) {
          throw new ServiceError('invalid', 'Payload validation error: Missing required property: username.');
        }
      } else if (input.password !== undefined) {
        throw new ServiceError('invalid', `Connection ${input.connection} does not use passwords.`);
      }
      const at = deps.now().toISOString();
      const email = input.email?.trim().toLowerCase();
      const userId = `${PROVIDER[connection.strategy] ?? connection.strategy}|${randomHexId()}`;
      const data: UserData = {
        ...(email !== undefined ? { email } : {}),
        email_verified: input.email_verified ?? false,
        ...(input.username !== undefined ? { username: input.username } : {}),
        ...(input.phone_number !== undefined ? { phone_number: input.phone_number } : {}),
        name: input.name ?? email ?? input.phone_number ?? input.username ?? userId,
        nickname: input.nickname ?? (email ? (email.split('@')[0] ?? email) : (input.username ?? userId)),
        picture: input.picture ?? defaultPicture(email),
        ...(input.given_name !== undefined ? { given_name: input.given_name } : {}),
        ...(input.family_name !== undefined ? { family_name: input.family_name } : {}),
        blocked: input.blocked ?? false,
        user_metadata: input.user_metadata ?? {},
        app_metadata: input.app_metadata ?? {},
        logins_count: 0,
      };
      const passwordHash = input.password ? await hashPassword(input.password) : null;
      await uniquely(storage, 'The user already exists.', () =>
        storage.users.insert(tenantId, {
          id: userId,
          columns: { connection: input.connection, email: email ?? null, username: input.username ?? null, password_hash: passwordHash, updated_at: at },
          data,
          createdAt: at,
        }),
      );
      return view({ id: userId, columns: { connection: input.connection, updated_at: at }, data, createdAt: at });
    },

    /** Partial update; metadata merges one level deep (null removes a key); a new password is re-hashed. */
    async update(userId: string, patch: UserPatch): Promise<UserView> {
      const record = await load(userId);
      if (patch.connection !== undefined && patch.connection !== record.columns.connection) {
        throw new ServiceError('invalid', 'A user cannot be moved to another connection.');
      }
      const { password, user_metadata, app_metadata, connection: _connection, email: rawEmail, ...profile } = patch;
      const email = rawEmail?.trim().toLowerCase();
      const data: UserData = {
        ...record.data,
        ...profile,
        ...(email !== undefined ? { email } : {}),
        user_metadata: mergeMetadata(record.data.user_metadata, user_metadata),
        app_metadata: mergeMetadata(record.data.app_metadata, app_metadata),
      };
      const at = deps.now().toISOString();
      const columns = {
        updated_at: at,
        ...(email !== undefined ? { email } : {}),
        ...(patch.username !== undefined ? { username: patch.username } : {}),
        ...(password !== undefined ? { password_hash: await hashPassword(password) } : {}),
      };
      await uniquely(storage, 'The user already exists.', () => storage.users.update(tenantId, userId, { data, columns }));
      return view({ id: userId, columns: { connection: record.columns.connection, updated_at: at }, data, createdAt: record.createdAt });
    },

    async remove(userId: string) {
      await load(userId);
      await storage.users.remove(tenantId, userId);
    },
  };
}
