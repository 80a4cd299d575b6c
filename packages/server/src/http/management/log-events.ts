import type { FastifyInstance, FastifyRequest } from 'fastify';
import { originFields, type NewLogEvent } from '../../services/events/event.js';
import type { EventRecorder } from '../../services/events/recorder.js';
import { requestOrigin } from '../request-origin.js';

/** Methods that change something: their every outcome is logged; a read is logged only when it fails. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A flood of refusals over the rate limit logs one `api_limit` per this long, as the platform does. */
const LIMIT_EVENT_WINDOW_MS = 60_000;

/** Who called: the application (`azp`, or the `sub` of a client-credentials token) and the user of a user's token. */
export function caller(request: FastifyRequest): Pick<NewLogEvent, 'client_id' | 'user_id'> {
  const auth = request.auth;
  if (!auth) return {};
  const application = auth.sub.endsWith('@clients') ? auth.sub.slice(0, -'@clients'.length) : undefined;
  const clientId = auth.azp ?? application;
  return { ...(clientId !== undefined ? { client_id: clientId } : {}), ...(application === undefined ? { user_id: auth.sub } : {}) };
}

/**
 * The tenant log of the Management API, from one hook after each answer is sent: `sapi` for a change that
 * succeeded, `fapi` for any request that failed (a failed read too: probing shows there), `api_limit` for the rate
 * limit's refusals. `details` names the route's pattern (never the URL's values), the method and the status;
 * bodies, queries and headers are never logged, so neither are the secrets some of them carry.
 */
export function managementEvents(app: FastifyInstance, events: Pick<EventRecorder, 'record' | 'recordOncePer'>) {
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const path = request.routeOptions.url ?? '(no route)';
    const summary = (request.routeOptions.schema as { summary?: string } | undefined)?.summary;
    const event = {
      ...caller(request),
      ...originFields(requestOrigin(request)),
      details: { request: { method: request.method, path }, response: { statusCode: status } },
    };
    if (status === 429) return events.recordOncePer('management-api', LIMIT_EVENT_WINDOW_MS, { type: 'api_limit', description: 'Management API rate limit reached', ...event });
    if (status < 400 && !WRITES.has(request.method)) return;
    events.record({ type: status < 400 ? 'sapi' : 'fapi', description: summary ?? `${request.method} ${path}`, ...event });
  });
}

/** `du`: a user deleted through the Management API (logged beside the request's own `sapi`). */
export function userDeleted(request: FastifyRequest, userId: string, user: { connection: string; email?: string; username?: string }): NewLogEvent {
  const { client_id: clientId } = caller(request);
  const name = user.email ?? user.username;
  return {
    type: 'du',
    user_id: userId,
    connection: user.connection,
    ...(name !== undefined ? { user_name: name } : {}),
    ...(clientId !== undefined ? { client_id: clientId } : {}),
    ...originFields(requestOrigin(request)),
  };
}
