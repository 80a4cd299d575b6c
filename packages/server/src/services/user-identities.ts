import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { noUser, ownIdentity, type LinkedIdentity } from './users.js';

export interface UserIdentitiesDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

/**
 * Account linking. The secondary account's row stays (its credentials keep logging in, as the primary user)
 * and is marked in its `linked_to` column; the primary lists it among its identities with the profile it had. Both rows
 * change in one transaction, so a link is never half made.
 */
export function userIdentitiesService(deps: UserIdentitiesDeps) {
  const { storage, tenantId } = deps;

  return {
    /** Links `secondaryId` into `primaryId`; answers the primary's identities. */
    async link(primaryId: string, secondaryId: string): Promise<LinkedIdentity[]> {
      if (primaryId === secondaryId) throw new ServiceError('invalid', 'Main identity and the new one are the same.', 'invalid_body');
      return storage.transaction(async (repos) => {
        const primary = await repos.users.get(tenantId, primaryId);
        if (!primary || primary.columns.linked_to !== null) throw noUser();
        const secondary = await repos.users.get(tenantId, secondaryId);
        if (!secondary) throw new ServiceError('invalid', 'The secondary user does not exist.', 'inexistent_user');
        if (secondary.columns.linked_to !== null) {
          throw new ServiceError('conflict', 'The identity is already linked to a user.', 'identity_already_linked');
        }
        if ((secondary.data.linked_identities ?? []).length > 0) {
          throw new ServiceError('invalid', 'The secondary user has linked identities of its own; unlink them first.', 'invalid_body');
        }
        const { linked_identities: _none, user_metadata: _um, app_metadata: _am, logins_count: _lc, last_login: _ll, last_ip: _li, ...profileData } = secondary.data;
        const identity: LinkedIdentity = { ...ownIdentity(secondary.id, secondary.columns.connection), profileData };
        const linked = [...(primary.data.linked_identities ?? []), identity];
        const at = deps.now().toISOString();
        await repos.users.update(tenantId, primaryId, { data: { ...primary.data, linked_identities: linked }, columns: { updated_at: at } });
        await repos.users.update(tenantId, secondary.id, { columns: { updated_at: at, linked_to: primaryId } });
        return [ownIdentity(primary.id, primary.columns.connection), ...linked];
      });
    },

    /** Unlinks the identity `<provider>|<userId>` from the primary; it becomes a user of its own again. */
    async unlink(primaryId: string, provider: string, userId: string): Promise<LinkedIdentity[]> {
      const secondaryId = `${provider}|${userId}`;
      if (secondaryId === primaryId) throw new ServiceError('invalid', 'Main identity cannot be removed.', 'invalid_uri');
      return storage.transaction(async (repos) => {
        const primary = await repos.users.get(tenantId, primaryId);
        if (!primary || primary.columns.linked_to !== null) throw noUser();
        const before = primary.data.linked_identities ?? [];
        const remaining = before.filter((identity) => `${identity.provider}|${identity.user_id}` !== secondaryId);
        if (remaining.length === before.length) throw new ServiceError('not_found', 'The identity is not linked to this user.', 'inexistent_identity');
        const at = deps.now().toISOString();
        await repos.users.update(tenantId, primaryId, { data: { ...primary.data, linked_identities: remaining }, columns: { updated_at: at } });
        const secondary = await repos.users.get(tenantId, secondaryId);
        if (secondary) {
          // Documents from before migration 0003 also carry the link; it goes with the column.
          const { linked_to: _primary, ...data } = secondary.data;
          await repos.users.update(tenantId, secondaryId, { data, columns: { updated_at: at, linked_to: null } });
        }
        return [ownIdentity(primary.id, primary.columns.connection), ...remaining];
      });
    },
  };
}
