import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's own request logging, on only at LOG_LEVEL=debug or trace (at info it would dominate the cost of a token
 * request). A request its route answers with a 4xx through Fastify's default error handler is the client's
 * mistake, not the operator's: it is logged at debug with its code and message, never with a stack trace.
 */
class RequestLogController extends LogController {
  override defaultErrorLog(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) return super.defaultErrorLog(error, request, reply);
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, code: error.code }, error.message);
  }
}

export function requestLogController(logLevel: string): LogController {
  return new RequestLogController({ disableRequestLogging: logLevel !== 'debug' && logLevel !== 'trace' });
}
