import type { FastifyRequest } from 'fastify';
import type { ClientCredentialsInput } from '../../oauth/client-auth.js';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The client authentication a request carries outside its body: Basic credentials and an edge-forwarded certificate. */
export function clientTransport(request: FastifyRequest): Pick<ClientCredentialsInput, 'authorization' | 'edge'>;
export function clientTransport(request: FastifyRequest, ip: string): Pick<ClientCredentialsInput, 'authorization' | 'edge'> & { ip: string };
export function clientTransport(request: FastifyRequest, ip?: string): Pick<ClientCredentialsInput, 'authorization' | 'edge'> & { ip?: string } {
  const certificate = header(request, 'client-certificate');
  const transport: Pick<ClientCredentialsInput, 'authorization' | 'edge'> & { ip?: string } = { authorization: request.headers.authorization };
  if (certificate !== undefined) {
    transport.edge = { certificate, apiKey: header(request, 'cname-api-key'), caVerified: header(request, 'client-certificate-ca-verified') };
  }
  if (ip !== undefined) transport.ip = ip;
  return transport;
}
