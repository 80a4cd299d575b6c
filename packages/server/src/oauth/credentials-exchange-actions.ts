import type { OAuthConfig } from '../services/config-cache.js';
import { originFields, type RequestOrigin } from '../services/events/event.js';
import type { EventRecorder } from '../services/events/recorder.js';
import { actionLogDetails, failureDescription, type TriggerRunner } from '../services/actions/trigger-runner.js';
import type { Storage } from '../storage/storage.js';
import { MAX_CUSTOM_CLAIMS_BYTES } from './action-claims.js';
import { actionRequestDetails } from '../services/actions/event-request.js';
import type { OAuthError } from './errors.js';
import { ActionFailed, InvalidRequest, InvalidScope } from './errors.js';
import { recordedAlready } from './grants/recorded-refusals.js';

export interface CredentialsExchangeInput {
  clientId: string;
  audience: string;
  /** The scopes the token is about to carry. */
  scopes: readonly string[];
  /** The scopes the request asked for (none: the client's whole grant). */
  requestedScopes: readonly string[];
  origin: RequestOrigin;
}

export interface CredentialsExchangeDeps {
  storage: Storage;
  tenantId: string;
  config: OAuthConfig;
  runner: TriggerRunner;
  events: Pick<EventRecorder, 'record'>;
}

/** The codes `api.access.deny(code, reason)` may answer with, as the platform allows them. */
const DENIAL_CODES = new Set(['invalid_scope', 'invalid_request', 'server_error']);

function denial(code: unknown, reason: unknown): OAuthError {
  const description = typeof reason === 'string' && reason !== '' ? reason : 'Access denied by an action.';
  if (code === 'invalid_scope') return new InvalidScope(description);
  if (code === 'invalid_request' || !DENIAL_CODES.has(String(code))) return new InvalidRequest(description);
  return new ActionFailed(description);
}

/**
 * The credentials-exchange trigger (the platform's `onExecuteCredentialsExchange`): runs for the client-credentials
 * grant before its access token is signed. Answers the custom claims to add, or throws the grant's OAuth error
 * (a denial with the code the action chose, `server_error` for a failed action), logged as a failed exchange
 * (`feccft`) with the execution and the action's console output.
 */
export function credentialsExchangeActions(deps: CredentialsExchangeDeps) {
  return {
    async run(input: CredentialsExchangeInput): Promise<Record<string, unknown> | undefined> {
      if (!(await deps.runner.any('credentials-exchange'))) return undefined;
      const [client, api] = await Promise.all([deps.config.client(input.clientId), deps.config.resourceServer(input.audience)]);
      const claims: Record<string, unknown> = {};
      const event = {
        accessToken: { customClaims: claims, scope: [...input.scopes] },
        client: { client_id: input.clientId, name: client?.data.name ?? '', metadata: client?.data.client_metadata ?? {} },
        request: actionRequestDetails(input.origin),
        resource_server: { identifier: input.audience, ...(api ? { name: api.name } : {}) },
        tenant: { id: deps.tenantId },
        transaction: { requested_scopes: [...input.requestedScopes] },
      };
      let refusal: OAuthError | undefined;
      const run = await deps.runner.run('credentials-exchange', 'onExecuteCredentialsExchange', event, (turn) => {
        for (const { op, args } of turn.commands) {
          if (op === 'access.deny') {
            refusal = denial(args[0], args[1]);
            return 'stop';
          }
          if (op === 'accessToken.setCustomClaim' && typeof args[0] === 'string' && args[0] !== '') {
            if (args[1] === undefined) delete claims[args[0]];
            else claims[args[0]] = args[1];
          }
        }
        return 'next';
      });
      if (run.failure) refusal = new ActionFailed(failureDescription(run.failure));
      else if (!refusal && Buffer.byteLength(JSON.stringify(claims)) > MAX_CUSTOM_CLAIMS_BYTES) {
        refusal = new ActionFailed(`The custom claims the actions set are larger than ${MAX_CUSTOM_CLAIMS_BYTES} bytes.`);
      }
      if (refusal) {
        deps.events.record({
          type: 'feccft',
          description: refusal.description,
          client_id: input.clientId,
          audience: input.audience,
          ...originFields(input.origin),
          details: { error: refusal.error, grant_type: 'client_credentials', ...actionLogDetails(run) },
        });
        throw recordedAlready(refusal);
      }
      return Object.keys(claims).length > 0 ? claims : undefined;
    },
  };
}

export type CredentialsExchangeActions = ReturnType<typeof credentialsExchangeActions>;
