import { listResponse, pageWindow, type ListWindow } from './schemas.js';

/**
 * The route handlers every Management API resource repeats. Only the handlers are shared: each route still
 * declares its own method, URL, scopes and TypeBox schema, because those declarations are what the OpenAPI
 * document (http/openapi.ts) describes.
 */

/** The paging parameters a list's querystring may declare; the checkpoint ones only where the list offers them. */
interface ListPaging {
  page?: number;
  per_page?: number;
  include_totals?: boolean;
  from?: string;
  take?: number;
}

/** One page of a list, as the services answer it: the rows of the window and the count of all matching rows. */
export interface ListPage<T> {
  items: T[];
  total: number;
}

/**
 * A paginated list: the window from `page`/`per_page` (or `from`/`take`), the rows `load` finds in it, answered
 * as a bare array, as `{<key>, start, limit, total}` with `include_totals`, or as `{<key>, next?}` with
 * checkpoint pagination. `load` also gets the validated query, for the list's own filters.
 */
export function listHandler<Query extends ListPaging, T>(key: string, load: (window: ListWindow, query: Query) => Promise<ListPage<T>>) {
  return async (request: { query: Query }) => {
    const window = pageWindow(request.query);
    const { items, total } = await load(window, request.query);
    return listResponse(key, items, window, total, request.query.include_totals);
  };
}

/**
 * The part of a route's typed reply a delete uses. A reply is thenable, settling once the answer is written:
 * awaiting it is Fastify's way, like returning it, to say an async handler has sent its answer itself.
 */
interface NoContentReply {
  code(statusCode: 204): { send(payload: null): { then(fulfilled: () => void, rejected: (err: Error) => void): void } };
}

/**
 * A delete: 204 with no body once `remove` is done. A resource that does not exist is `remove`'s to report
 * (a not-found service error, which the surface answers as 404).
 */
export function deleteHandler<Params>(remove: (params: Params) => Promise<unknown>) {
  return async (request: { params: Params }, reply: NoContentReply): Promise<void> => {
    await remove(request.params);
    await reply.code(204).send(null);
  };
}
