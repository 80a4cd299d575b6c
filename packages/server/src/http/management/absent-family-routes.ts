import { isDeepStrictEqual } from 'node:util';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { ABSENT_FAMILIES, type AbsentFamily, type AbsentRead } from './absent-families.js';
import { ManagementError } from './errors.js';
import { listHandler } from './resource-handlers.js';
import { CheckpointQuery, ERROR_RESPONSES, listResponseSchema, PaginationQuery } from './schemas.js';

const SCOPE_ACTION = { GET: 'read', POST: 'create', PATCH: 'update', PUT: 'update', DELETE: 'delete' } as const;
const Nothing = Type.Object({}, { additionalProperties: false, description: 'Never answered: the list is always empty.' });
/** The platform's filters of these lists (enabled, fields, hydrate, …) are taken; nothing matches them. */
const ListQuery = Type.Object({ ...PaginationQuery, ...CheckpointQuery }, { additionalProperties: true });
const AnyBody = Type.Unknown({ description: 'Refused whatever it holds.' });

/** The path parameters of `path` (`:id`, `:prompt`, …) as a schema. */
function paramsOf(path: string): TObject | undefined {
  const names = [...path.matchAll(/:([a-z_]+)/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return undefined;
  return Type.Object(Object.fromEntries(names.map((name) => [name, Type.String({ minLength: 1, maxLength: 300 })])));
}

const refusal = (family: AbsentFamily) => new ManagementError(400, `Latchkey has no ${family.family}${family.instead ? `: ${family.instead}` : ''}.`, 'unsupported_feature');

/** What a read answers: its response schema and handler. */
function reader(family: AbsentFamily, read: AbsentRead): { response: TSchema; querystring?: TSchema; handler: (request: { query: never }) => Promise<unknown> } {
  if ('status' in read) {
    const error = new ManagementError(read.status, read.message, read.status === 404 ? 'inexistent_resource' : 'not_available');
    return { response: Nothing, handler: async () => Promise.reject(error) };
  }
  if ('document' in read) return { response: Type.Object({}, { additionalProperties: true, description: `The ${family.family}, always in this state.` }), handler: async () => read.document };
  if ('wrapped' in read) return { response: Type.Object({ [read.wrapped]: Type.Array(Nothing) }), handler: async () => ({ [read.wrapped]: [] }) };
  if (!('paging' in read)) return { response: Type.Array(Nothing), querystring: ListQuery, handler: async () => [] };
  return {
    response: listResponseSchema(read.list, Nothing, { checkpoint: read.paging === 'checkpoint' }),
    querystring: ListQuery,
    handler: listHandler(read.list, async () => ({ items: [], total: 0 })) as (request: { query: never }) => Promise<unknown>,
  };
}

/**
 * The routes of the families Latchkey does not have (absent-families.ts): reads answer "none" as the platform
 * does for a tenant without them; writes are refused naming the family, except a write of a settings document
 * that asks for the state it is always in (an export of this tenant imported back).
 */
export function absentFamilyRoutes(_registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const family of ABSENT_FAMILIES) {
      const tags = ['absent families'];
      const scope = (method: keyof typeof SCOPE_ACTION) => [`${SCOPE_ACTION[method]}:${family.scope}`];
      for (const read of family.reads) {
        const params = paramsOf(read.path);
        const { response, querystring, handler } = reader(family, read);
        app.get(
          read.path,
          {
            config: { scopes: scope('GET') },
            schema: { tags, summary: `Latchkey has no ${family.family}: answers none`, ...(params ? { params } : {}), ...(querystring ? { querystring } : {}), response: { 200: response, ...ERROR_RESPONSES } },
          },
          handler as never,
        );
        if ('document' in read) {
          app.route({
            method: read.write,
            url: read.path,
            config: { scopes: scope(read.write) },
            schema: {
              tags,
              summary: `Latchkey has no ${family.family}: only the state shown is taken`,
              ...(params ? { params } : {}),
              body: Type.Object({}, { additionalProperties: true }),
              response: { 200: Type.Object({}, { additionalProperties: true }), ...ERROR_RESPONSES },
            },
            handler: async (request) => {
              const asked = request.body as Record<string, unknown>;
              const unchanged = Object.entries(asked).every(([name, value]) => isDeepStrictEqual(value, read.document[name]));
              if (!unchanged) throw refusal(family);
              return read.document;
            },
          });
        }
      }
      for (const write of family.writes) {
        const [method = 'POST', url = ''] = write.split(' ') as [keyof typeof SCOPE_ACTION, string];
        const params = paramsOf(url);
        app.route({
          method,
          url,
          config: { scopes: scope(method) },
          schema: { tags, summary: `Latchkey has no ${family.family}: refused`, ...(params ? { params } : {}), ...(method === 'DELETE' ? {} : { body: AnyBody }), response: { ...ERROR_RESPONSES } },
          handler: async () => Promise.reject(refusal(family)),
        });
      }
    }
  };
}
