import type { FastifyError, FastifyInstance } from 'fastify';
import { OAuthError } from '../../oauth/errors.js';

/** The Authentication API's one error family: `{error, error_description}`; unexpected errors become server_error. */
export function oauthSurface(app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) {
      return reply.code(error.status).headers(error.headers).send({ error: error.error, error_description: error.description });
    }
    if (error.validation) {
      return reply.code(400).send({ error: 'invalid_request', error_description: error.message });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: 'invalid_request', error_description: error.message });
    }
    request.log.error({ err: error }, 'authentication API request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'The server could not complete the request.' });
  });
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'not_found', error_description: 'Not Found' }));
}
