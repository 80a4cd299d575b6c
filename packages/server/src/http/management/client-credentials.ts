import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { clientCredentialsService, type CredentialAlg, type CredentialType } from '../../services/client-credentials.js';
import { ERROR_RESPONSES, NO_CONTENT_RESPONSES } from './schemas.js';
import { deleteHandler } from './resource-handlers.js';

const CREDENTIAL_TYPES = ['public_key', 'x509_cert', 'cert_subject_dn'];
const ALGS = ['RS256', 'RS384', 'PS256'];

const CreateCredential = Type.Object(
  {
    credential_type: Type.Unsafe<CredentialType>({ type: 'string', enum: CREDENTIAL_TYPES, description: 'public_key (private_key_jwt), x509_cert (self-signed mTLS) or cert_subject_dn (CA-signed mTLS).' }),
    name: Type.Optional(Type.String({ maxLength: 128, description: 'Friendly name.' })),
    pem: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384, description: 'PEM public key (SPKI or PKCS#1) or X.509 certificate.' })),
    subject_dn: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Subject DN of a CA-signed certificate (cert_subject_dn, instead of pem).' })),
    alg: Type.Optional(Type.Unsafe<CredentialAlg>({ type: 'string', enum: ALGS, description: 'Client assertion algorithm: RS256 (default), RS384 or PS256.' })),
    kid: Type.Optional(Type.String({ pattern: '^[0-9a-zA-Z_-]{10,64}$', description: 'Key id the client puts in its assertions (generated if absent).' })),
    parse_expiry_from_cert: Type.Optional(Type.Boolean({ description: 'Take expires_at from the certificate in pem.' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the credential stops working.' })),
  },
  { additionalProperties: false },
);

const Credential = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    credential_type: Type.String(),
    kid: Type.Optional(Type.String()),
    alg: Type.Optional(Type.String()),
    subject_dn: Type.Optional(Type.String()),
    thumbprint_sha256: Type.Optional(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
    expires_at: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const ClientParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Client id.' }) }, { additionalProperties: false });
const CredentialParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 100, description: 'Client id.' }), credential_id: Type.String({ minLength: 1, maxLength: 100, description: 'Credential id.' }) },
  { additionalProperties: false },
);

/** `/api/v2/clients/{id}/credentials`: public keys and certificates for private_key_jwt and mTLS. */
export function clientCredentialsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = clientCredentialsService(registry);
    const tags = ['clients'];
    app.get(
      '/clients/:id/credentials',
      { config: { scopes: ['read:client_credentials'] }, schema: { tags, summary: "List a client's credentials", params: ClientParams, response: { 200: Type.Array(Credential), ...ERROR_RESPONSES } } },
      async (request) => service.list(request.params.id),
    );
    app.post(
      '/clients/:id/credentials',
      {
        config: { scopes: ['create:client_credentials'] },
        schema: { tags, summary: 'Register a public key or certificate', params: ClientParams, body: CreateCredential, response: { 201: Credential, ...ERROR_RESPONSES } },
      },
      async (request, reply) => reply.code(201).send(await service.create(request.params.id, request.body)),
    );
    app.get(
      '/clients/:id/credentials/:credential_id',
      { config: { scopes: ['read:client_credentials'] }, schema: { tags, summary: 'Get a credential', params: CredentialParams, response: { 200: Credential, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id, request.params.credential_id),
    );
    app.delete(
      '/clients/:id/credentials/:credential_id',
      { config: { scopes: ['delete:client_credentials'] }, schema: { tags, summary: 'Delete a credential no method uses', params: CredentialParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id, credential_id: credentialId }) => service.remove(id, credentialId)),
    );
  };
}
