import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { MANAGEMENT_SCOPES } from '../services/management-scopes.js';

/**
 * Release lifecycle labels of the Management API (spec, Versioning 1: early access, generally available,
 * deprecated, planned, beta), written as the platform's own OpenAPI document does in `x-release-lifecycle`.
 */
export type ReleaseLifecycle = 'EA' | 'GA' | 'deprecated' | 'planned' | 'beta';

const LIFECYCLE_NAMES: Record<ReleaseLifecycle, string> = {
  EA: 'early access',
  GA: 'generally available',
  deprecated: 'deprecated',
  planned: 'planned',
  beta: 'beta',
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Management routes: the operation's release lifecycle in the OpenAPI document; generally available by default. */
    lifecycle?: ReleaseLifecycle;
  }
}

const BEARER = 'bearerAuth';
const CLIENT_CREDENTIALS = 'oAuth2ClientCredentials';

/** `read:client_grants` → `Read client grants`. */
function describeScope(scope: string): string {
  const [action = '', resource = ''] = scope.split(':');
  return `${action.charAt(0).toUpperCase()}${action.slice(1)} ${resource.replaceAll('_', ' ')}`;
}

/**
 * The OpenAPI 3.1 document (`GET /api/v2/openapi.json`). Management operations are described from their route
 * options: the scopes a token needs (any one of them; spec, Authentication) become the operation's security
 * requirements under both ways of getting such a token, and each carries its release lifecycle.
 */
export function openapiOptions(issuer: string): FastifyDynamicSwaggerOptions {
  const lifecycles = Object.entries(LIFECYCLE_NAMES).map(([label, name]) => `\`${label}\` (${name})`).join(', ');
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Latchkey',
        version: '2.0',
        description: `Management API (/api/v2) and Authentication API. Each Management API operation names its release lifecycle in \`x-release-lifecycle\`: ${lifecycles}.`,
      },
      servers: [{ url: issuer }],
      components: {
        securitySchemes: {
          [BEARER]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A Management API access token (audience `<issuer>/api/v2/`).' },
          [CLIENT_CREDENTIALS]: {
            type: 'oauth2',
            description: 'The client credentials grant at /oauth/token with `audience` set to the Management API.',
            flows: { clientCredentials: { tokenUrl: `${issuer}/oauth/token`, scopes: Object.fromEntries(MANAGEMENT_SCOPES.map((scope) => [scope, describeScope(scope)])) } },
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const scopes = route.config?.scopes;
      if (!url.startsWith('/api/v2/') || scopes === undefined || schema === undefined) return { schema, url };
      const lifecycle = route.config?.lifecycle ?? 'GA';
      return {
        url,
        schema: {
          ...schema,
          security: scopes.flatMap((scope): Record<string, string[]>[] => [{ [BEARER]: [scope] }, { [CLIENT_CREDENTIALS]: [scope] }]),
          'x-release-lifecycle': lifecycle,
          ...(lifecycle === 'deprecated' ? { deprecated: true } : {}),
        },
      };
    },
  };
}
