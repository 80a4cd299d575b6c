import { Type, type TSchema } from '@sinclair/typebox';
import { ServiceError } from '../../services/errors.js';

/** Error body of every Management API failure. */
export const ManagementErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  errorCode: Type.String(),
});

/** Declared error responses (documentation and serialisation). */
export const ERROR_RESPONSES = { '4xx': ManagementErrorBody, '5xx': ManagementErrorBody } as const;

/** One documented error status: the error body, with what the status means here. */
export const errorResponse = (description: string) => Type.Object(ManagementErrorBody.properties, { description });

/** 429 of the Management API's rate limit, with the headers that say when to come back (spec, Errors 3). */
export const TOO_MANY_REQUESTS_RESPONSE = {
  ...errorResponse('Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.'),
  headers: {
    'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed in the window.' },
    'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the window.' },
    'x-ratelimit-reset': { type: 'integer', description: 'When the window resets, in seconds since the epoch.' },
  },
};

/** Responses of a delete: 204 with no body. */
export const NO_CONTENT_RESPONSES = { 204: Type.Null(), ...ERROR_RESPONSES } as const;

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

/**
 * Checkpoint pagination, which the platform offers beside page/per_page on some lists (client grants,
 * connections) and which its SDK uses there by default. Either parameter selects it; `include_totals` is
 * then ignored and the answer is `{<key>, next?}`.
 */
export const CheckpointQuery = {
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Cursor: the `next` value of the previous page (checkpoint pagination).' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Number of results per page with checkpoint pagination. Defaults to 50.' })),
};

/** `fields`/`include_fields`: a projection of the answer's top-level fields (field-projection.ts applies it). */
export const FieldsQuery = {
  fields: Type.Optional(Type.String({ maxLength: 2048, description: 'Comma-separated list of fields to include or exclude (per include_fields). Leave empty to retrieve all fields.' })),
  include_fields: Type.Optional(Type.Boolean({ description: 'Whether the fields are included (true, default) or excluded (false).' })),
};

/** A comma-separated list parameter (`app_type=spa,native`) as its items; undefined when absent or empty. */
export function commaList(value: string | undefined): string[] | undefined {
  const items = value?.split(',').map((item) => item.trim()).filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

/**
 * `schema` or null, written as a JSON-Schema type list (not a union) so a bad value gets one plain error rather
 * than one per branch.
 */
export function nullable<T extends TSchema>(schema: T, description?: string) {
  const type = (schema as { type?: string }).type;
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [type, 'null'], ...(description ? { description } : {}) });
}

/** Path parameters of a resource addressed by id. */
export function IdParams(description: string, maxLength = 100) {
  return Type.Object({ id: Type.String({ minLength: 1, maxLength, description }) });
}

export interface ListWindow {
  offset: number;
  limit: number;
  /** Answer with `{<key>, next?}` (checkpoint pagination) rather than the offset shapes. */
  checkpoint?: true;
}

/*
 * The cursor is opaque to callers. It encodes the offset of the next page: simple and stable for the small,
 * creation-ordered lists it serves; a row deleted between two pages shifts the window by one.
 */
const CURSOR = /^o:(\d{1,9})$/;
const encodeCursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');

function decodeCursor(from: string): number {
  const match = CURSOR.exec(Buffer.from(from, 'base64url').toString('utf8'));
  if (!match?.[1]) {
    throw new ServiceError('invalid', `Query validation error: 'Invalid cursor' on property from (the next value of a previous page).`, 'invalid_query_string');
  }
  return Number(match[1]);
}

export function pageWindow(query: { page?: number; per_page?: number; from?: string; take?: number }): ListWindow {
  if (query.from !== undefined || query.take !== undefined) {
    return { offset: query.from === undefined ? 0 : decodeCursor(query.from), limit: query.take ?? 50, checkpoint: true };
  }
  const limit = query.per_page ?? 50;
  return { offset: (query.page ?? 0) * limit, limit };
}

/**
 * A list response: a bare array, with `include_totals` the wrapper `{<key>, start, limit, total}`, or with
 * checkpoint pagination `{<key>, next?}` (`next` only while more rows follow).
 */
export function listResponse<T>(key: string, items: T[], window: ListWindow, total: number, includeTotals: boolean | undefined) {
  if (window.checkpoint) return checkpointResponse(key, items, window.offset + items.length, total);
  return includeTotals ? { [key]: items, start: window.offset, limit: window.limit, total } : items;
}

/** A checkpoint page `{<key>, next?}` whose rows were read up to `end` of `total`: `next` only while rows follow. */
export function checkpointResponse<T>(key: string, items: T[], end: number, total: number) {
  return end < total ? { [key]: items, next: encodeCursor(end) } : { [key]: items };
}

export function listResponseSchema(key: string, item: TSchema, options: { checkpoint?: boolean } = {}) {
  return Type.Union([
    Type.Array(item),
    Type.Object({ [key]: Type.Array(item), start: Type.Number(), limit: Type.Number(), total: Type.Number() }, { additionalProperties: false }),
    ...(options.checkpoint ? [Type.Object({ [key]: Type.Array(item), next: Type.Optional(Type.String()) }, { additionalProperties: false })] : []),
  ]);
}
