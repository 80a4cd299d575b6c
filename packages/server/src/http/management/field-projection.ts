import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Keys a list wrapper has besides its items (`{<key>: [...], start, limit, total}`, `{<key>: [...], next}`, and the
 * logs' `{logs: [...], start, limit, length, total}`).
 */
const WRAPPER_KEYS = new Set(['start', 'limit', 'length', 'total', 'next']);

type Item = Record<string, unknown>;

const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);

function projectItem(item: unknown, fields: ReadonlySet<string>, include: boolean): unknown {
  if (!isItem(item)) return item;
  return Object.fromEntries(Object.entries(item).filter(([name]) => fields.has(name) === include));
}

/** The body with only (or without) the named top-level fields of each item; a list wrapper keeps its own keys. */
export function projectFields(body: unknown, fields: ReadonlySet<string>, include: boolean): unknown {
  if (Array.isArray(body)) return body.map((item) => projectItem(item, fields, include));
  if (!isItem(body)) return body;
  const lists = Object.entries(body).filter(([, value]) => Array.isArray(value));
  const [listed] = lists;
  if (lists.length === 1 && listed && Object.keys(body).every((key) => key === listed[0] || WRAPPER_KEYS.has(key))) {
    return { ...body, [listed[0]]: (listed[1] as unknown[]).map((item) => projectItem(item, fields, include)) };
  }
  return projectItem(body, fields, include);
}

function requestedFields(request: FastifyRequest): { fields: Set<string>; include: boolean } | undefined {
  const query = request.query as { fields?: unknown; include_fields?: unknown } | undefined;
  if (typeof query?.fields !== 'string') return undefined;
  const fields = new Set(query.fields.split(',').map((field) => field.trim()).filter((field) => field !== ''));
  if (fields.size === 0) return undefined;
  return { fields, include: query.include_fields !== false };
}

/**
 * `fields`/`include_fields` on every Management read, as the platform applies them: the answer keeps only the
 * named top-level fields (or all but them). Applied to the serialised answer, after the response schema (whose
 * required fields a projection would otherwise break); only successful answers are projected.
 */
export function fieldProjection(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const wanted = requestedFields(request);
    if (!wanted) return payload;
    return JSON.stringify(projectFields(JSON.parse(payload) as unknown, wanted.fields, wanted.include));
  });
}
