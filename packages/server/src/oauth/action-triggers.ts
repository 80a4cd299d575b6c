import type { Logger } from 'pino';
import type { BoundActions } from '../services/actions/bound-actions.js';
import type { ActionsRuntime } from '../services/actions/runtime.js';
import type { ActionCacheStore } from '../services/actions/action-cache.js';
import { triggerRunner, type TriggerRunner } from '../services/actions/trigger-runner.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { userLifecycleActions, type UserLifecycleActions } from '../services/actions/user-lifecycle-actions.js';
import type { EventRecorder } from '../services/events/recorder.js';
import type { Storage } from '../storage/storage.js';
import { credentialsExchangeActions, type CredentialsExchangeActions } from './credentials-exchange-actions.js';
import { postLoginActions, type PostLoginActions } from './post-login-actions.js';
import { splitScope } from './scopes.js';
import type { SignInPath, StageCheck } from './sign-in-pipeline.js';

export interface ActionTriggersDeps {
  storage: Storage;
  tenantId: string;
  config: OAuthConfig;
  events: Pick<EventRecorder, 'record'>;
  now: () => Date;
  bound: BoundActions;
  runtime: ActionsRuntime;
  cache: ActionCacheStore;
  /** The tenant's domain (the host of its issuer). */
  domain: string;
  /** Total wall time of one trigger's actions (LATCHKEY_ACTIONS_TIMEOUT_MS; the platform's is 20 s). */
  timeoutMs: number;
  log: Logger;
}

export interface ActionTriggers {
  runner: TriggerRunner;
  postLogin: PostLoginActions;
  credentialsExchange: CredentialsExchangeActions;
  /** Pre- and post-user-registration and post-change-password. */
  lifecycle: UserLifecycleActions;
  /** The sign-in pipeline's `post-login-actions` stage. */
  signInStage: StageCheck;
}

/** The token endpoint's sign-ins, by the platform's protocol names of their transactions. */
const TOKEN_ENDPOINT_PROTOCOLS: Partial<Record<SignInPath, string>> = {
  'password-grant': 'oauth2-password',
  'password-realm-grant': 'oauth2-password',
  'passwordless-otp-grant': 'oauth2-password',
  'refresh-token-grant': 'oauth2-refresh-token',
};

/** The triggers of the tenant's Actions that the protocol core runs: post-login and credentials-exchange. */
export function actionTriggers(deps: ActionTriggersDeps): ActionTriggers {
  const runner = triggerRunner({
    bound: deps.bound,
    runtime: deps.runtime,
    timeoutMs: deps.timeoutMs,
    cache: deps.cache,
    onRecordError: (error) => deps.log.warn({ err: error }, 'an Actions execution could not be recorded'),
  });
  const postLogin = postLoginActions({ storage: deps.storage, tenantId: deps.tenantId, config: deps.config, runner, events: deps.events, now: deps.now, domain: deps.domain });

  const signInStage: StageCheck = async (attempt) => {
    const protocol = TOKEN_ENDPOINT_PROTOCOLS[attempt.path];
    if (protocol === undefined) {
      // A browser sign-in answering an authorization request runs them where it is answered (authorize/flow.ts).
      if (attempt.authorization) {
        if (attempt.decisions && (await runner.any('post-login'))) attempt.decisions.postLoginPending = true;
        return;
      }
    }
    const outcome = await postLogin.run({
      clientId: attempt.clientId,
      userId: attempt.userId,
      connection: attempt.connection,
      amr: attempt.amr,
      origin: attempt.origin,
      protocol: protocol ?? 'samlp',
      audience: attempt.audience,
      scopes: splitScope(attempt.scope),
      interactive: false,
    });
    // post-login-actions.ts logged the refusal (`f`, with the action's error and output): not again as a failed exchange.
    if (outcome.kind === 'denied') return { reason: 'denied', description: outcome.description, recorded: true };
    if (outcome.kind === 'failed') return { reason: 'action-failed', description: outcome.description, recorded: true };
    // Without a browser nothing can redirect (post-login-actions.ts denies it first); the type needs the case.
    if (outcome.kind === 'redirect') return { reason: 'denied', description: 'An action redirects the user, which a login without a browser cannot follow.' };
    if (outcome.changes && attempt.decisions) attempt.decisions.tokenChanges = outcome.changes;
    // api.multifactor.enable: a sign-in without a second factor yet stops for one (the MFA grants run the stages
    // again with `mfa` in amr). A refresh continues a sign-in that had its factors: it is not asked again.
    if (outcome.multifactor && !attempt.amr.includes('mfa') && attempt.path !== 'refresh-token-grant') {
      if (attempt.decisions) attempt.decisions.multiFactor = { reasons: [...(attempt.decisions.multiFactor?.reasons ?? []), 'action'] };
      return { reason: 'mfa-required' };
    }
  };

  return {
    runner,
    postLogin,
    credentialsExchange: credentialsExchangeActions({ storage: deps.storage, tenantId: deps.tenantId, config: deps.config, runner, events: deps.events }),
    signInStage,
    lifecycle: userLifecycleActions({ runner, tenantId: deps.tenantId, events: deps.events, log: deps.log }),
  };
}
