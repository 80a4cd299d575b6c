import type { PageWindow } from '../storage/repositories/page.js';
import type { ConsentFilter, ConsentRecord } from '../storage/repositories/consents.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';

/** A user grant as `/api/v2/grants` answers it (the platform spells the application `clientID`). */
export interface UserGrantView {
  id: string;
  clientID: string;
  user_id: string;
  audience: string;
  scope: string[];
}

export interface ConsentsDeps {
  storage: Storage;
  tenantId: string;
}

const view = (grant: ConsentRecord): UserGrantView => ({ id: grant.id, clientID: grant.clientId, user_id: grant.userId, audience: grant.audience, scope: grant.scope });

/** The Management API's view of users' consent: list it, and take it back (the next login asks again). */
export function consentsService(deps: ConsentsDeps) {
  const { storage, tenantId } = deps;
  return {
    async list(window: PageWindow, filter: ConsentFilter): Promise<{ items: UserGrantView[]; total: number }> {
      const page = await storage.consents.list(tenantId, filter, window);
      return { items: page.items.map(view), total: page.total };
    },

    async remove(id: string): Promise<void> {
      if (!(await storage.consents.remove(tenantId, id))) throw new ServiceError('not_found', 'The grant does not exist.', 'inexistent_resource');
    },

    /** Every grant of a user (`DELETE /api/v2/grants?user_id=`); none is not an error. */
    async removeOfUser(userId: string): Promise<void> {
      await storage.consents.removeWhere(tenantId, { userId });
    },
  };
}
