import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from '../../registry.js';
import { promptsRenderingRoutes } from './prompts-rendering.js';
import { signingKeysRoutes } from './signing-keys.js';

/** Every Management API resource, one module each. */
export function managementRoutes(registry: Registry): FastifyPluginAsync {
  return async (app) => {
    await app.register(signingKeysRoutes(registry));
    await app.register(promptsRenderingRoutes(registry));
  };
}
