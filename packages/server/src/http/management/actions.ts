import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ERROR_RESPONSES } from './schemas.js';

const ListQuery = Type.Object(
  {
    trigger_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only actions bound to this trigger.' })),
    action_name: Type.Optional(Type.String({ maxLength: 255, description: 'Only the action of this name.' })),
    deployed: Type.Optional(Type.Boolean({ description: 'Only deployed actions.' })),
    installed: Type.Optional(Type.Boolean({ description: 'Only installed integrations.' })),
    page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page index of the results to return. First page is 0.' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Number of results per page. Defaults to 50.' })),
  },
  { additionalProperties: false },
);

const ActionsPage = Type.Object(
  { actions: Type.Array(Type.Object({}, { additionalProperties: true })), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer() },
  { additionalProperties: false },
);

/**
 * Latchkey runs no custom code, so it has no actions. The list answers that truthfully (empty), in the platform's
 * shape: the platform's tools read it before managing other things (the deploy CLI's database connections map
 * `custom_password_hash.action_id` through it) and stop at a 404.
 */
export function actionsRoutes(): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/actions/actions',
      {
        config: { scopes: ['read:actions'] },
        schema: { tags: ['actions'], summary: 'List actions (always empty: Latchkey runs no custom code)', querystring: ListQuery, response: { 200: ActionsPage, ...ERROR_RESPONSES } },
      },
      async (request) => ({ actions: [], total: 0, page: request.query.page ?? 0, per_page: request.query.per_page ?? 50 }),
    );
  };
}
