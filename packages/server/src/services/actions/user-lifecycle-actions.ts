import type { Logger } from 'pino';
import type { ConnectionData } from '../connections.js';
import type { CachedClient } from '../config-cache.js';
import type { EventRecorder } from '../events/recorder.js';
import { originFields, type RequestOrigin } from '../events/event.js';
import type { UserView } from '../users.js';
import { actionRequestDetails } from './event-request.js';
import { recordMetadataCall } from './metadata-calls.js';
import { actionLogDetails, failureDescription, type TriggerRunner } from './trigger-runner.js';

/** The new user as the signup describes them, before they exist (the pre-user-registration `event.user`). */
export interface RegisteringUser {
  email?: string | undefined;
  username?: string | undefined;
  phone_number?: string | undefined;
  name?: string | undefined;
  given_name?: string | undefined;
  family_name?: string | undefined;
  nickname?: string | undefined;
  picture?: string | undefined;
  user_metadata?: Record<string, unknown> | undefined;
  app_metadata?: Record<string, unknown> | undefined;
}

export interface LifecycleContext {
  connection: Pick<ConnectionData, 'name' | 'strategy'> & { id?: string | undefined };
  client?: CachedClient | undefined;
  origin?: RequestOrigin | undefined;
}

export type PreRegistrationVerdict =
  | { ok: true; appMetadata?: Record<string, unknown>; userMetadata?: Record<string, unknown> }
  /**
   * Denied by an action (`reason` for the log, `userMessage` for the user) or failed (then the message is ours);
   * `details` is what the tenant log's `fs` keeps of the run (its execution, a failure's error and console output).
   */
  | { ok: false; reason: string; userMessage: string | undefined; details: Record<string, unknown> };

export interface UserLifecycleDeps {
  runner: TriggerRunner;
  tenantId: string;
  events: Pick<EventRecorder, 'record'>;
  log: Logger;
}

/** What the post-* triggers' events say of a user: their profile as the Management API shows it. */
function eventUser(user: UserView): Record<string, unknown> {
  return { ...user };
}

/**
 * The triggers around a user's life outside a login: `pre-user-registration` (may deny a database signup or set the
 * new user's metadata), `post-user-registration` and `post-change-password` (run after the fact: their failures are
 * logged, never fail the user's request, and the request does not wait for them).
 */
export function userLifecycleActions(deps: UserLifecycleDeps) {
  function base(context: LifecycleContext): Record<string, unknown> {
    return {
      connection: { id: context.connection.id ?? '', name: context.connection.name, strategy: context.connection.strategy, metadata: {} },
      ...(context.client ? { client: { client_id: context.client.clientId, name: context.client.data.name, metadata: context.client.data.client_metadata ?? {} } } : {}),
      request: context.origin ? actionRequestDetails(context.origin, { withParameters: false }) : {},
      tenant: { id: deps.tenantId },
    };
  }

  /** A post-* trigger in the background: its outcome is only logged. */
  function afterTheFact(trigger: 'post-user-registration' | 'post-change-password', handler: 'onExecutePostUserRegistration' | 'onExecutePostChangePassword', user: UserView, context: LifecycleContext) {
    void (async () => {
      if (!(await deps.runner.any(trigger))) return;
      const run = await deps.runner.run(trigger, handler, { ...base(context), user: eventUser(user) }, () => 'next');
      if (run.failure) {
        deps.events.record({
          type: trigger === 'post-user-registration' ? 'fs' : 'fcp',
          description: failureDescription(run.failure),
          user_id: user.user_id,
          connection: context.connection.name,
          ...(context.client ? { client_id: context.client.clientId } : {}),
          ...originFields(context.origin),
          details: actionLogDetails(run),
        });
      }
    })().catch((error: unknown) => deps.log.warn({ err: error, trigger }, 'an Actions trigger that runs after the fact failed'));
  }

  return {
    async preUserRegistration(user: RegisteringUser, context: LifecycleContext): Promise<PreRegistrationVerdict> {
      if (!(await deps.runner.any('pre-user-registration'))) return { ok: true };
      const appMetadata: Record<string, unknown> = {};
      const userMetadata: Record<string, unknown> = {};
      let denial: { reason: string; userMessage: string | undefined } | undefined;
      const shown = { ...user, user_metadata: { ...(user.user_metadata ?? {}) }, app_metadata: { ...(user.app_metadata ?? {}) } };
      const run = await deps.runner.run('pre-user-registration', 'onExecutePreUserRegistration', { ...base(context), user: shown }, (turn) => {
        for (const { op, args } of turn.commands) {
          const [first, second] = args;
          if (op === 'access.deny') {
            denial = { reason: typeof first === 'string' && first ? first : 'denied by an action', userMessage: typeof second === 'string' && second ? second : undefined };
            return 'stop';
          }
          if ((op === 'user.setAppMetadata' || op === 'user.setUserMetadata') && typeof first === 'string' && first !== '') {
            const [patch, view] = op === 'user.setAppMetadata' ? [appMetadata, shown.app_metadata] : [userMetadata, shown.user_metadata];
            recordMetadataCall(patch, view, first, second);
          }
        }
        return 'next';
      });
      if (run.failure) return { ok: false, reason: failureDescription(run.failure), userMessage: undefined, details: actionLogDetails(run) };
      if (denial) return { ok: false, ...denial, details: actionLogDetails(run) };
      return {
        ok: true,
        ...(Object.keys(appMetadata).length > 0 ? { appMetadata } : {}),
        ...(Object.keys(userMetadata).length > 0 ? { userMetadata } : {}),
      };
    },

    postUserRegistration(user: UserView, context: LifecycleContext): void {
      afterTheFact('post-user-registration', 'onExecutePostUserRegistration', user, context);
    },

    postChangePassword(user: UserView, context: LifecycleContext): void {
      afterTheFact('post-change-password', 'onExecutePostChangePassword', user, context);
    },
  };
}

export type UserLifecycleActions = ReturnType<typeof userLifecycleActions>;
