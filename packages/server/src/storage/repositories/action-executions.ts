import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson, toJson } from './json.js';

/** One run of a trigger's actions (`/api/v2/actions/executions/{id}`); `results` is the service's shape, as JSON. */
export interface ActionExecutionRecord<R> {
  id: string;
  triggerId: string;
  status: string;
  results: R;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
}

/**
 * Executions, kept until `expiresAt` (the platform keeps them 10 days): a read past it finds nothing, and the
 * sweeper deletes them (services/artifact-sweeper.ts). Not announced: nothing caches them.
 */
export function actionExecutionsRepository(db: Kysely<Database>) {
  return {
    async insert<R>(tenantId: string, execution: ActionExecutionRecord<R>): Promise<void> {
      await db
        .insertInto('action_executions')
        .values({
          tenant_id: tenantId,
          id: execution.id,
          trigger_id: execution.triggerId,
          status: execution.status,
          results: toJson(execution.results),
          created_at: execution.createdAt,
          updated_at: execution.updatedAt,
          expires_at: execution.expiresAt,
        })
        .execute();
    },

    /** The execution, unless it does not exist or expired at or before `now`. */
    async get<R>(tenantId: string, id: string, now: string): Promise<ActionExecutionRecord<R> | undefined> {
      const row = await db
        .selectFrom('action_executions')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          triggerId: row.trigger_id,
          status: row.status,
          results: fromJson<R>(row.results),
          createdAt: row.created_at,
          updatedAt: row.updated_at,
          expiresAt: row.expires_at,
        }
      );
    },

    /** Deletes up to `limit` executions (any tenant) that expired at or before `before`; returns how many went. */
    async deleteExpired(before: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('action_executions')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('tenant_id', 'id'),
            'in',
            selectFrom('action_executions').select(['tenant_id', 'id']).where('expires_at', '<=', before).limit(limit).$asTuple('tenant_id', 'id'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type ActionExecutionsRepository = ReturnType<typeof actionExecutionsRepository>;
