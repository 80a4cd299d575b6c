import type { FastifyRequest } from 'fastify';
import type { ClientCredentialsInput } from '../../oauth/client-auth.js';
import type { RequestDetails } from '../../services/events/event.js';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export type ClientTransport = Pick<ClientCredentialsInput, 'authorization' | 'edge'> & { ip: string; userAgent: string | undefined; details?: RequestDetails };

/**
 * What a request carries about its client outside its body: Basic credentials, an edge-forwarded certificate, the
 * address and the User-Agent (the tenant log records the last two). Built field by field: a literal with a conditional spread cost measurable time per token request.
 */
export function clientTransport(request: FastifyRequest): ClientTransport {
  const certificate = header(request, 'client-certificate');
  const transport: ClientTransport = { authorization: request.headers.authorization, ip: request.ip, userAgent: request.headers['user-agent'] };
  // For Actions' event.request: references only, copied when an action runs.
  transport.details = { hostname: request.hostname, method: request.method, acceptLanguage: request.headers['accept-language'], query: request.query, body: request.body };
  if (certificate !== undefined) {
    transport.edge = { certificate, apiKey: header(request, 'cname-api-key'), caVerified: header(request, 'client-certificate-ca-verified') };
  }
  return transport;
}
