import { Type, type TSchema } from '@sinclair/typebox';

/** Error body of every Management API failure. */
export const ManagementErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  errorCode: Type.String(),
});

/** Declared error responses (documentation and serialisation). */
export const ERROR_RESPONSES = { '4xx': ManagementErrorBody, '5xx': ManagementErrorBody } as const;

/** The list parameters every paginated list accepts. */
export const PaginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page index of the results to return. First page is 0.' })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Number of results per page. Defaults to 50.' }),
  ),
  include_totals: Type.Optional(
    Type.Boolean({ description: 'Return results inside an object that contains the total result count (true) or as a direct array (false, default).' }),
  ),
};

export function pageWindow(query: { page?: number; per_page?: number }) {
  const limit = query.per_page ?? 50;
  return { offset: (query.page ?? 0) * limit, limit };
}

/** A list response: a bare array, or with `include_totals` the wrapper `{<key>, start, limit, total}`. */
export function listResponse<T>(key: string, items: T[], window: { offset: number; limit: number }, total: number, includeTotals: boolean | undefined) {
  return includeTotals ? { [key]: items, start: window.offset, limit: window.limit, total } : items;
}

export function listResponseSchema(key: string, item: TSchema) {
  return Type.Union([
    Type.Array(item),
    Type.Object({ [key]: Type.Array(item), start: Type.Number(), limit: Type.Number(), total: Type.Number() }, { additionalProperties: false }),
  ]);
}
