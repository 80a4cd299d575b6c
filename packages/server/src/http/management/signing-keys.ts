import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SigningKeyError } from '../../keys/signing-keys.js';
import type { Registry } from '../../registry.js';
import { ManagementError, notFound } from './errors.js';
import { ERROR_RESPONSES } from './schemas.js';

const SigningKey = Type.Object({
  kid: Type.String(),
  thumbprint: Type.String(),
  current: Type.Boolean(),
  next: Type.Boolean(),
  previous: Type.Boolean(),
  revoked: Type.Boolean(),
  current_since: Type.Optional(Type.String()),
  current_until: Type.Optional(Type.String()),
  revoked_at: Type.Optional(Type.String()),
});

const KidParams = Type.Object({ kid: Type.String({ minLength: 1, maxLength: 200, description: 'Key id.' }) });

function mapKeyError(error: unknown): never {
  if (error instanceof SigningKeyError) {
    throw error.reason === 'not_found' ? notFound(error.message) : new ManagementError(400, error.message, 'invalid_operation');
  }
  throw error;
}

export function signingKeysRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['keys'];
    app.get(
      '/keys/signing',
      { config: { scopes: ['read:signing_keys'] }, schema: { tags, summary: 'List signing keys', response: { 200: Type.Array(SigningKey), ...ERROR_RESPONSES } } },
      async () => registry.keys.list(),
    );
    app.get(
      '/keys/signing/:kid',
      { config: { scopes: ['read:signing_keys'] }, schema: { tags, summary: 'Get a signing key', params: KidParams, response: { 200: SigningKey, ...ERROR_RESPONSES } } },
      async (request) => registry.keys.get(request.params.kid).catch(mapKeyError),
    );
    app.post(
      '/keys/signing/rotate',
      {
        config: { scopes: ['create:signing_keys', 'update:signing_keys'] },
        schema: { tags, summary: 'Rotate the signing key', response: { 201: SigningKey, ...ERROR_RESPONSES } },
      },
      async (_request, reply) => reply.code(201).send(await registry.keys.rotate()),
    );
    app.put(
      '/keys/signing/:kid/revoke',
      {
        config: { scopes: ['update:signing_keys'] },
        schema: { tags, summary: 'Revoke a previous signing key', params: KidParams, response: { 200: SigningKey, ...ERROR_RESPONSES } },
      },
      async (request) => registry.keys.revoke(request.params.kid).catch(mapKeyError),
    );
  };
}
