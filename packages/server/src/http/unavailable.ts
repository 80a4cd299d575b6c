import type { FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrorBody } from '../oauth/error-codes.js';
import { ManagementError } from './management/errors.js';

/**
 * Answers to a request that failed because the database or Redis is unavailable for now
 * (storage/unavailable.ts): 503 with a Retry-After, in the shape of the surface that was called. The pool
 * reconnects by itself, so the same request succeeds once the outage is over.
 */

/** What Retry-After advises: long enough for a restart or a failover, short enough to notice its end. */
export const RETRY_AFTER_SECONDS = 5;

export const UNAVAILABLE_DESCRIPTION = 'The service is temporarily unavailable. Try again in a few seconds.';

/** Logged once per refused request: no stack (the cause is outside this process), but its message. */
function logOutage(request: FastifyRequest, error: unknown) {
  request.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'database or redis unavailable; answered 503');
}

/**
 * A browser's navigation (a hosted page, or any page request: it accepts HTML) gets a page, not JSON. The page is
 * fixed text: the tenant's branding and rendering configuration live in the database that just failed.
 */
function wantsPage(request: FastifyRequest): boolean {
  const tags = (request.routeOptions.schema as { tags?: readonly string[] } | undefined)?.tags;
  return tags?.includes('hosted pages') === true || (request.headers.accept ?? '').includes('text/html');
}

const PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>Temporarily unavailable</title></head><body><main><h1>Temporarily unavailable</h1><p role="alert">${UNAVAILABLE_DESCRIPTION}</p></main></body></html>`;

/** The Authentication API and the hosted pages: `{error: 'temporarily_unavailable', error_description}` or a page. */
export function sendAuthenticationUnavailable(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  logOutage(request, error);
  reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('cache-control', 'no-store');
  if (!wantsPage(request)) return reply.type('application/json; charset=utf-8').send(oauthErrorBody('temporarily_unavailable', UNAVAILABLE_DESCRIPTION));
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
    .header('x-frame-options', 'DENY')
    .send(PAGE);
}

/** The Management API: `{statusCode: 503, error: 'Service Unavailable', message, errorCode}`. */
export function managementUnavailable(request: FastifyRequest, error: unknown): ManagementError {
  logOutage(request, error);
  return new ManagementError(503, UNAVAILABLE_DESCRIPTION, 'temporarily_unavailable', { 'retry-after': String(RETRY_AFTER_SECONDS) });
}
