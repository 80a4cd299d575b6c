import type { FastifyRequest } from 'fastify';
import { originFields, type NewLogEvent } from '../../services/events/event.js';
import type { SessionData } from '../../services/sessions.js';
import { requestOrigin } from '../request-origin.js';

/**
 * `slo`: a logout that ended a session; whose it was when the browser's own session ended, and the application
 * that asked (`client_id` of the request) when it named one.
 */
export function logoutEvent(request: FastifyRequest, ended: SessionData | undefined): NewLogEvent {
  const params = { ...(request.query as Record<string, unknown> | undefined), ...(request.body as Record<string, unknown> | undefined) };
  const clientId = typeof params.client_id === 'string' && params.client_id !== '' ? params.client_id : undefined;
  return {
    type: 'slo',
    ...(ended ? { user_id: ended.user_id, connection: ended.connection } : {}),
    ...(clientId !== undefined ? { client_id: clientId } : {}),
    ...originFields(requestOrigin(request)),
  };
}
