import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../../registry.js';
import { ServiceError, type ServiceErrorKind } from '../../services/errors.js';
import type { ManagementErrorCode } from '../../services/management-error-codes.js';
import { ManagementError } from './errors.js';
import { fieldProjection } from './field-projection.js';
import { managementEvents } from './log-events.js';
import { enforceScopesAndLimits } from './scopes-and-limits.js';
import { managementUnavailable } from '../unavailable.js';
import { isStorageUnavailable } from '../../storage/unavailable.js';
import { JSON_TOO_DEEP } from '../plugins/server-options.js';
import { pickError, validationMessage, type AjvErrorLike } from './validation-message.js';

/** The status of a service failure's kind (exported for the error catalogue test, which checks the docs' statuses). */
export const STATUS_BY_KIND: Record<ServiceErrorKind, number> = { invalid: 400, not_found: 404, conflict: 409, payment_required: 402, forbidden: 403 };
const CODE_BY_KIND: Record<ServiceErrorKind, ManagementErrorCode> = {
  invalid: 'invalid_body',
  not_found: 'inexistent_resource',
  conflict: 'conflict',
  payment_required: 'payment_required',
  forbidden: 'forbidden',
};

const KIND_BY_CONTEXT: Record<string, 'Query' | 'Payload' | 'Path'> = { querystring: 'Query', body: 'Payload', params: 'Path' };
const CODE_BY_CONTEXT: Record<string, ManagementErrorCode> = { querystring: 'invalid_query_string', body: 'invalid_body', params: 'invalid_uri' };

/** Finds the description of a (top-level) property in the route's schema for the failing part. */
function describer(request: FastifyRequest, context: string) {
  const schema = request.routeOptions.schema as Record<string, { properties?: Record<string, { description?: string }> }> | undefined;
  const part = schema?.[context];
  return (property: string) => part?.properties?.[property]?.description;
}

function sendError(reply: FastifyReply, error: ManagementError) {
  return reply.code(error.statusCode).headers(error.headers).send(error.toBody());
}

/**
 * The Management API surface: rate limit (429) -> bearer token (401) -> scopes (403) (all three in
 * scopes-and-limits.ts) -> schema (400) -> route. One error handler shapes every failure as
 * `{statusCode, error, message, errorCode}`; one hook logs the outcomes (log-events.ts).
 */
export function managementSurface(app: FastifyInstance, registry: Registry) {
  enforceScopesAndLimits(app, registry);
  fieldProjection(app);
  managementEvents(app, registry.events);

  app.setErrorHandler(async (error: FastifyError & { validation?: AjvErrorLike[] }, request, reply) => {
    if (error instanceof ManagementError) return sendError(reply, error);
    if (error instanceof ServiceError) {
      return sendError(reply, new ManagementError(STATUS_BY_KIND[error.kind], error.message, error.errorCode ?? CODE_BY_KIND[error.kind]));
    }
    if (error.validation && error.validationContext) {
      const context = error.validationContext;
      const picked = pickError(error.validation);
      const message = picked
        ? validationMessage(KIND_BY_CONTEXT[context] ?? 'Payload', picked, describer(request, context))
        : error.message;
      return sendError(reply, new ManagementError(400, message, CODE_BY_CONTEXT[context] ?? 'invalid_body'));
    }
    if (error.code === JSON_TOO_DEEP) return sendError(reply, new ManagementError(400, error.message, 'invalid_body'));
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.statusCode === 400) {
      return sendError(reply, new ManagementError(400, 'Invalid request payload JSON format', 'invalid_body'));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, new ManagementError(415, 'Unsupported Media Type: send application/json', 'unsupported_media_type'));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, new ManagementError(413, 'Request payload is too large', 'payload_too_large'));
    }
    if (isStorageUnavailable(error)) return sendError(reply, managementUnavailable(request, error));
    request.log.error({ err: error }, 'management request failed');
    return sendError(reply, new ManagementError(500, 'Internal Server Error', 'internal_error'));
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendError(reply, new ManagementError(404, `Not Found: ${request.method} ${request.url.split('?')[0] ?? ''}`, 'not_found')),
  );
}
