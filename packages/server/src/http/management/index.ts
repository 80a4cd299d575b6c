import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from '../../registry.js';
import { clientGrantsRoutes } from './client-grants.js';
import { clientCredentialsRoutes } from './client-credentials.js';
import { clientsRoutes } from './clients.js';
import { connectionsRoutes } from './connections.js';
import { jobsRoutes } from './jobs.js';
import { logStreamsRoutes } from './log-streams.js';
import { promptsRoutes } from './prompts.js';
import { promptsRenderingRoutes } from './prompts-rendering.js';
import { resourceServersRoutes } from './resource-servers.js';
import { rolesRoutes } from './roles.js';
import { grantsRoutes } from './grants.js';
import { organizationsRoutes } from './organizations.js';
import { signingKeysRoutes } from './signing-keys.js';
import { tenantSettingsRoutes } from './tenant-settings.js';
import { attackProtectionRoutes } from './attack-protection.js';
import { actionsRoutes } from './actions.js';
import { brandingRoutes } from './branding.js';
import { userBlocksRoutes } from './user-blocks.js';
import { userSessionsRoutes } from './user-sessions.js';
import { ticketsRoutes } from './tickets.js';
import { verificationEmailJobRoutes } from './verification-email-job.js';
import { usersRoutes } from './users.js';
import { logsRoutes } from './logs.js';
import { guardianRoutes } from './guardian.js';
import { absentFamilyRoutes } from './absent-family-routes.js';
import { named } from '../plugin-name.js';

/** Every Management API resource, one module each. */
export function managementRoutes(registry: Registry): FastifyPluginAsync {
  return async (app) => {
    for (const routes of [
      signingKeysRoutes,
      promptsRenderingRoutes,
      promptsRoutes,
      brandingRoutes,
      clientsRoutes,
      clientCredentialsRoutes,
      resourceServersRoutes,
      clientGrantsRoutes,
      connectionsRoutes,
      usersRoutes,
      guardianRoutes,
      rolesRoutes,
      grantsRoutes,
      organizationsRoutes,
      tenantSettingsRoutes,
      attackProtectionRoutes,
      userBlocksRoutes,
      userSessionsRoutes,
      ticketsRoutes,
      verificationEmailJobRoutes,
      actionsRoutes,
      logStreamsRoutes,
      jobsRoutes,
      logsRoutes,
      absentFamilyRoutes,
    ]) {
      await app.register(named(routes(registry)));
    }
  };
}
