import type { FastifyRequest } from 'fastify';
import type { OAuthError } from '../../oauth/errors.js';
import type { SignInPath } from '../../oauth/sign-in-pipeline.js';
import { FederatedUserRefused } from '../../oauth/upstream/login.js';
import type { Registry } from '../../registry.js';
import { originFields } from '../../services/events/event.js';
import { UNKNOWN_CONNECTION } from '../../services/sign-in-metrics.js';
import { requestOrigin } from '../request-origin.js';

export interface FederatedRefusal {
  path: Extract<SignInPath, 'upstream-oauth' | 'upstream-saml' | 'idp-initiated-saml'>;
  error: OAuthError;
  /**
   * A configured connection's name: the one the login transaction went to, or one looked up. Never the request's
   * own text, which would let a caller log names at will and create metric series without end.
   */
  connection?: string | undefined;
  clientId?: string | undefined;
}

/**
 * A federated sign-in that `/login/callback` refused (the provider's error, an answer or SAML response that fails
 * its checks, a blocked user): a failed login `f` in the tenant log, and a refused sign-in in the metrics, as a
 * database login's refusals are. The event's strategy is filled in from the connection when it is written. The
 * description is the one the application gets; the provider's answer itself (a code, a token, a SAML response)
 * is never in it.
 */
export function recordFederatedRefusal(registry: Pick<Registry, 'events' | 'metrics'>, request: FastifyRequest, refusal: FederatedRefusal): void {
  const { error, connection, clientId } = refusal;
  const failure = error instanceof FederatedUserRefused ? error.reason : undefined;
  registry.events.record({
    type: 'f',
    description: error.description,
    ...(clientId !== undefined ? { client_id: clientId } : {}),
    ...(connection !== undefined ? { connection } : {}),
    ...originFields(requestOrigin(request)),
    details: { error: error.error, path: refusal.path, ...(failure !== undefined ? { failure } : {}) },
  });
  registry.metrics.signIns.inc({ result: failure === 'blocked' ? 'blocked' : 'federated_refused', connection: connection ?? UNKNOWN_CONNECTION });
}
