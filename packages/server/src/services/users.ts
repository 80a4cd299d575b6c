import { createHash } from 'node:crypto';
import { randomHexId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import type { ConnectionData } from './connections.js';
import { ServiceError } from './errors.js';
import type { LinkedIdentity, Metadata, UserData, UserIdentity } from '../storage/records.js';
import { mergeUserMetadata, withinMetadataLimits } from './metadata.js';
import { hashPassword } from './passwords.js';
import { personalInfoAfter, requirePasswordPolicy } from './password-policy.js';
import { found, uniquely } from './unique.js';
import { parseUserQuery, parseUserSort } from './users-query.js';

export type { LinkedIdentity, UserData, UserIdentity } from '../storage/records.js';

export interface UserView extends Omit<UserData, 'linked_to' | 'linked_identities'> {
  user_id: string;
  identities: LinkedIdentity[];
  created_at: string;
  updated_at: string;
}

/** Profile fields a PATCH may clear with `null`. */
type ClearableField = 'name' | 'nickname' | 'picture' | 'given_name' | 'family_name';

export interface UserInput {
  connection: string;
  email?: string;
  password?: string;
  username?: string;
  phone_number?: string;
  phone_verified?: boolean;
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

export type UserPatch = Partial<Omit<UserInput, 'user_metadata' | 'app_metadata' | ClearableField>> & {
  [K in ClearableField]?: string | null;
} & {
  user_metadata?: Record<string, unknown> | null;
  app_metadata?: Record<string, unknown> | null;
};

/**
 * A successful login as the platform records it on the user who signs in: one more login, when and from where.
 * Every way of logging in goes through this (password, signup's own login, one-time code, federated).
 */
export function withLogin(data: UserData, at: string, ip: string | undefined): UserData {
  return { ...data, logins_count: data.logins_count + 1, last_login: at, ...(ip ? { last_ip: ip } : {}) };
}

/**
 * A new user's name, nickname and picture as the platform fills them: the given ones, else from the e-mail
 * address, else the fallbacks.
 */
export function profileDefaults(
  given: { name?: string | undefined; nickname?: string | undefined; picture?: string | undefined },
  email: string | undefined,
  fallback: { name: string; nickname: string },
): { name: string; nickname: string; picture: string } {
  return {
    name: given.name ?? email ?? fallback.name,
    nickname: given.nickname ?? (email ? (email.split('@')[0] ?? email) : fallback.nickname),
    picture: given.picture ?? defaultPicture(email),
  };
}

/** A stable default avatar: the platform's convention of a Gravatar URL keyed by the e-mail's MD5. */
function defaultPicture(email: string | undefined): string {
  const digest = createHash('md5').update((email ?? '').trim().toLowerCase()).digest('hex');
  return `https://s.gravatar.com/avatar/${digest}?s=480&r=pg&d=mp`;
}

const invalid = (message: string) => new ServiceError('invalid', message, 'invalid_body');
/** How deep a search's results can be paged, as on the platform. */
const SEARCH_DEPTH = 1000;
const missing = (property: string) => invalid(`Payload validation error: 'Missing required property: ${property}'.`);

/** The id of a new database user: the platform's `auth0|` and 24 random hex digits. */
export const newDatabaseUserId = () => `auth0|${randomHexId()}`;

/** What each strategy asks of a user created through the Management API (a passkey signup has no password). */
function checkCreate(connection: ConnectionData, input: UserInput, passkeySignup: boolean) {
  switch (connection.strategy) {
    case 'auth0':
      if (!input.email) throw missing('email');
      if (!input.password && !passkeySignup) throw missing('password');
      if (connection.options.requires_username === true && !input.username) throw missing('username');
      break;
    case 'email':
      if (!input.email) throw missing('email');
      break;
    case 'sms':
      if (!input.phone_number) throw missing('phone_number');
      break;
    default:
      throw invalid(`Users of a ${connection.strategy} connection are created when they log in, not through this endpoint.`);
  }
  checkCredentials(connection, input);
  if (input.password !== undefined) requirePasswordPolicy(connection.options, input.password, input);
}

/** Passwords belong to database connections; usernames to those that require them. */
function checkCredentials(connection: ConnectionData, change: { password?: string | undefined; username?: string | undefined }) {
  if (change.password !== undefined && connection.strategy !== 'auth0') throw invalid(`Connection ${connection.name} does not use passwords.`);
  if (change.username !== undefined && connection.options.requires_username !== true) {
    throw invalid('Cannot set username for connection without requires_username');
  }
}

/** Applies a PATCH's profile fields: a value replaces, `null` removes. */
function applyProfile(data: UserData, profile: { [K in keyof UserData]?: UserData[K] | null }): UserData {
  const next: Record<string, unknown> = { ...data };
  for (const [key, value] of Object.entries(profile)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as unknown as UserData;
}

export interface UsersDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

/** The identity a user record is: provider and id from the user id (`<provider>|<id>`), and its connection. */
export function ownIdentity(userId: string, connection: string): UserIdentity {
  const separator = userId.indexOf('|');
  return { connection, provider: userId.slice(0, separator), user_id: userId.slice(separator + 1), isSocial: false };
}

export function userView(record: { id: string; columns: { connection: string; updated_at: string }; data: UserData; createdAt: string }): UserView {
  const { linked_to: _linkedTo, linked_identities: linked = [], ...data } = record.data;
  return {
    ...data,
    user_id: record.id,
    identities: [ownIdentity(record.id, record.columns.connection), ...linked],
    created_at: record.createdAt,
    updated_at: record.columns.updated_at,
  };
}

/** Who logging in as `record` signs in: the record's user, or its primary once it has been linked into one. */
export async function loginAccount(
  storage: Storage,
  tenantId: string,
  record: { id: string; data: UserData; columns: { linked_to: string | null } },
): Promise<{ id: string; data: UserData }> {
  if (record.columns.linked_to === null) return record;
  return (await storage.users.get(tenantId, record.columns.linked_to)) ?? record;
}

export const noUser = () => new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
const userExists = () => new ServiceError('conflict', 'The user already exists.', 'auth0_idp_error');

export function usersService(deps: UsersDeps) {
  const { storage, tenantId } = deps;
  const load = async (userId: string) => {
    const record = found(await storage.users.get(tenantId, userId), noUser);
    // A linked secondary account is no longer a user of its own: it lives on as an identity of its primary.
    if (record.columns.linked_to !== null) throw noUser();
    return record;
  };

  async function connectionNamed(name: string): Promise<ConnectionData> {
    const connection = await storage.connections.findOne(tenantId, { name });
    if (!connection) throw new ServiceError('invalid', 'The connection does not exist.', 'inexistent_connection');
    return connection.data;
  }

  return {
    async list(window: PageWindow, where: { connection?: string; q?: string; sort?: string }) {
      const condition = where.q === undefined ? undefined : parseUserQuery(where.q);
      const sort = where.sort === undefined ? undefined : parseUserSort(where.sort);
      if (condition || sort) {
        // The platform pages through the first 1000 results of a search at most.
        if (window.offset + window.limit > SEARCH_DEPTH) {
          throw new ServiceError('invalid', `Query validation error: only the first ${SEARCH_DEPTH} results of a search can be paged through; narrow the query.`, 'invalid_query_string');
        }
        const matched = await storage.userSearch.search(tenantId, { ...(condition ? { condition } : {}), ...(sort ? { sort } : {}), ...(where.connection === undefined ? {} : { connection: where.connection }) }, window, SEARCH_DEPTH);
        const records = await Promise.all(matched.items.map((id) => storage.users.get(tenantId, id)));
        return { items: records.flatMap((record) => (record ? [userView(record)] : [])), total: matched.total };
      }
      // Linked secondary accounts are identities of their primary, not users: left out of pages and totals.
      const page = await storage.users.list(tenantId, window, { ...(where.connection === undefined ? {} : { connection: where.connection }), linked_to: null });
      return { items: page.items.map(userView), total: page.total };
    },

    async get(userId: string): Promise<UserView> {
      return userView(await load(userId));
    },

    /** E-mails are stored lower-cased, so the lookup is case-insensitive; one user per connection at most. */
    async byEmail(email: string): Promise<UserView[]> {
      const page = await storage.users.list(tenantId, { offset: 0, limit: 100 }, { email: email.trim().toLowerCase(), linked_to: null });
      return page.items.map(userView);
    },

    /**
     * `login`: the user is created by logging in (hosted signup, a first one-time code), which counts as their first.
     * `login.passkeyUserId`: a signup with a passkey: a database user without a password, whose id was chosen
     * (newDatabaseUserId) before the passkey was created, as the credential is bound to it.
     */
    async create(input: UserInput, login?: { ip: string | undefined; passkeyUserId?: string }): Promise<UserView> {
      const connection = await connectionNamed(input.connection);
      const passkeySignup = login?.passkeyUserId !== undefined;
      if (passkeySignup && (connection.strategy !== 'auth0' || input.password !== undefined || !/^auth0\|[0-9a-f]{24}$/.test(login.passkeyUserId ?? ''))) {
        throw invalid('A passkey signup creates a database user without a password, with an id of newDatabaseUserId.');
      }
      checkCreate(connection, input, passkeySignup);
      const { connection: _connection, password, email: rawEmail, ...profile } = input;
      const at = deps.now().toISOString();
      const email = rawEmail?.trim().toLowerCase();
      // The platform's ids for database users: `auth0|` and 24 random hex digits.
      const userId = login?.passkeyUserId ?? `${connection.strategy}|${randomHexId()}`;
      const created: UserData = {
        ...profile,
        ...(email !== undefined ? { email } : {}),
        email_verified: input.email_verified ?? false,
        ...profileDefaults(input, email, { name: input.phone_number ?? input.username ?? userId, nickname: input.username ?? userId }),
        blocked: input.blocked ?? false,
        user_metadata: withinMetadataLimits('user_metadata', input.user_metadata ?? {}),
        app_metadata: withinMetadataLimits('app_metadata', input.app_metadata ?? {}),
        logins_count: 0,
      };
      const data = login ? withLogin(created, at, login.ip) : created;
      const passwordHash = password !== undefined ? await hashPassword(password) : null;
      // SMS users log in by phone number: it is their lookup key (the username column), unique per connection.
      const loginName = connection.strategy === 'sms' ? (input.phone_number ?? null) : (input.username ?? null);
      const columns = { connection: connection.name, email: email ?? null, username: loginName, password_hash: passwordHash, updated_at: at, linked_to: null };
      await uniquely(storage, userExists, () => storage.users.insert(tenantId, { id: userId, columns, data, createdAt: at }));
      return userView({ id: userId, columns, data, createdAt: at });
    },

    /**
     * Partial update: profile fields replace (null removes), metadata merges one level deep (null removes a
     * key), a new password is hashed again, and a changed e-mail is unverified unless the patch says otherwise.
     */
    async update(userId: string, patch: UserPatch): Promise<UserView> {
      const record = await load(userId);
      if (patch.connection !== undefined && patch.connection !== record.columns.connection) {
        throw invalid('A user cannot be moved to another connection.');
      }
      const { password, user_metadata: userMetadata, app_metadata: appMetadata, connection: _connection, email: rawEmail, ...profile } = patch;
      if (password !== undefined || profile.username !== undefined) {
        const connection = await connectionNamed(record.columns.connection);
        checkCredentials(connection, { password, username: profile.username });
        // Judged against the profile as it will be after this patch (a new e-mail or name counts too).
        if (password !== undefined) requirePasswordPolicy(connection.options, password, personalInfoAfter(record.data, { ...profile, email: rawEmail }));
      }
      const email = rawEmail?.trim().toLowerCase();
      const passwordHash = password !== undefined ? await hashPassword(password) : undefined;
      const at = deps.now().toISOString();
      // Applied to the document as stored when it is written: a login counted or another update made meanwhile
      // (the password hash above takes a while) is kept, not overwritten with what was read at the start.
      const written = await uniquely(storage, userExists, () =>
        storage.users.modify(tenantId, userId, (current) => {
          if (current.columns.linked_to !== null) return undefined;
          const emailChanged = email !== undefined && email !== current.data.email;
          const data: UserData = {
            ...applyProfile(current.data, { ...profile, ...(emailChanged ? { email, email_verified: patch.email_verified ?? false } : {}) }),
            user_metadata: mergeUserMetadata('user_metadata', current.data.user_metadata, userMetadata),
            app_metadata: mergeUserMetadata('app_metadata', current.data.app_metadata, appMetadata),
          };
          const columns = {
            updated_at: at,
            ...(emailChanged ? { email } : {}),
            ...(profile.username !== undefined ? { username: profile.username } : {}),
            ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
          };
          return { data, columns };
        }),
      );
      // Gone, or linked into another user, while the update was on its way.
      if (!written || written.columns.linked_to !== null) throw noUser();
      return userView({ id: userId, columns: { connection: record.columns.connection, updated_at: at }, data: written.data, createdAt: record.createdAt });
    },

    /** Removing a missing user is a no-op, as on the platform. Answers who was removed (the log names them), if anyone. */
    async remove(userId: string): Promise<{ connection: string; email?: string; username?: string } | undefined> {
      const record = await storage.users.get(tenantId, userId);
      if (!record) return undefined;
      // The user's roles, direct permissions and consent go with the user.
      const removed = await storage.transaction(async (repos) => {
        if (!(await repos.users.remove(tenantId, userId))) return false;
        await repos.roles.removeUser(tenantId, userId);
        await repos.consents.removeWhere(tenantId, { userId });
        await repos.organizations.removeUser(tenantId, userId);
        await repos.authenticators.removeUser(tenantId, userId);
        return true;
      });
      if (!removed) return undefined;
      const { email, username } = record.data;
      return { connection: record.columns.connection, ...(email !== undefined ? { email } : {}), ...(username !== undefined ? { username } : {}) };
    },
  };
}
