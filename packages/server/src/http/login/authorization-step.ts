import type { FastifyReply } from 'fastify';
import type { AuthorizationStep } from '../../oauth/authorize/flow.js';
import type { Registry } from '../../registry.js';
import { sendAnswer } from '../oauth/answer-pages.js';
import { setTransactionCookie } from './cookies.js';
import { MFA_ENTRY_PATH, screenUrl } from './screens.js';

/**
 * Sends where an authorization goes next: the answer to the application, or, when the user must choose their
 * organization or consent first, that screen (with the cookie that binds its transaction to this browser).
 */
export function sendAuthorizationStep(registry: Registry, reply: FastifyReply, step: AuthorizationStep): FastifyReply {
  if (step.kind === 'elsewhere') {
    // The user comes back from another site: over HTTPS the cookie is SameSite=None so that a form posted back to
    // /continue carries it too.
    setTransactionCookie(registry, reply, step.transaction.publicId, step.handle, true);
    return reply.header('cache-control', 'no-store').redirect(step.url, 302);
  }
  if (step.kind !== 'screen') return sendAnswer(reply, step);
  setTransactionCookie(registry, reply, step.transaction.publicId, step.handle);
  const url = step.screen === 'mfa' ? `${MFA_ENTRY_PATH}?state=${encodeURIComponent(step.transaction.publicId)}` : screenUrl(step.screen, step.transaction);
  return reply.header('cache-control', 'no-store').redirect(url, 302);
}
