import type { RequestOrigin } from '../services/events/event.js';
import type { EventRecorder } from '../services/events/recorder.js';
import { originFields } from '../services/events/event.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { mergeUserMetadata } from '../services/metadata.js';
import { userView } from '../services/users.js';
import type { ApiCommand } from '../services/actions/handlers.js';
import { actionLogDetails, failureDescription, type TriggerRun, type TriggerRunner } from '../services/actions/trigger-runner.js';
import type { Metadata } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { MAX_CUSTOM_CLAIMS_BYTES, type TokenChanges } from './action-claims.js';
import type { AuthorizeRequest } from './authorize/request.js';
import { actionRequestDetails } from '../services/actions/event-request.js';
import { recordMetadataCall } from '../services/actions/metadata-calls.js';

/** Who signed in and how, as the post-login trigger's `event` describes it. */
export interface PostLoginInput {
  clientId: string;
  userId: string;
  /** The connection that verified the credentials (undefined on a refresh: the event then names the user's own). */
  connection: string | undefined;
  amr: readonly string[];
  origin: RequestOrigin;
  /** The platform's protocol name of the transaction (`oidc-basic-profile`, `oauth2-password`, `oauth2-refresh-token`, …). */
  protocol: string;
  audience?: string | undefined;
  scopes: readonly string[];
  /** A browser sign-in's authorization request. */
  request?: AuthorizeRequest | undefined;
  organizationId?: string | undefined;
  sessionId?: string | undefined;
  /** Whether the user's browser can be sent elsewhere and come back (`api.redirect`); false at the token endpoint. */
  interactive: boolean;
  /** The `state` a redirect from an action will carry to `/continue` (interactive sign-ins). */
  continueState?: string | undefined;
}

/** Where a login that went elsewhere resumes: the redirecting action, and what the actions before it changed. */
export interface PostLoginResume {
  resumeAt: number;
  actionId: string;
  tokens?: TokenChanges | undefined;
  /** The state the user came back with (`validateToken` requires it in the other site's token). */
  state?: string | undefined;
}

export type PostLoginResult =
  /** `multifactor`: an action called `api.multifactor.enable` (the sign-in must have a second factor). */
  | { kind: 'continue'; changes?: TokenChanges | undefined; multifactor?: boolean }
  | { kind: 'denied'; description: string }
  | { kind: 'failed'; description: string }
  /** An action sends the user to `url` (its query and `state` added); `/continue` resumes at `resume`. */
  | { kind: 'redirect'; url: string; resume: PostLoginResume };

export interface PostLoginActionsDeps {
  storage: Storage;
  tenantId: string;
  config: OAuthConfig;
  runner: TriggerRunner;
  events: Pick<EventRecorder, 'record'>;
  now: () => Date;
  /** The tenant's domain: `iss` of the tokens `api.redirect.encodeToken` makes. */
  domain: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The platform's name of an authentication method in `event.authentication.methods`, from our `amr` value: a
 * one-time code is named after its passwordless connection (`email`, `sms`), an upstream login is `federated`.
 */
function methodName(amr: string, strategy: string | undefined): string {
  if (amr === 'otp') return strategy === 'sms' ? 'sms' : 'email';
  if (amr === 'fed') return 'federated';
  return amr;
}

/** `sendUserTo(url, {query})` as an absolute http(s) address with its query parameters added, or what is wrong. */
function redirectTarget(url: unknown, options: unknown): string | { problem: string } {
  if (typeof url !== 'string') return { problem: 'the address is not a string' };
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { problem: 'the address is not an absolute URL' };
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return { problem: 'only http and https addresses are allowed' };
  const query = isRecord(options) ? options.query : undefined;
  if (isRecord(query)) {
    for (const [name, value] of Object.entries(query)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') target.searchParams.set(name, String(value));
    }
  }
  return target.href;
}

/** The protocol name the platform gives a browser transaction, by its response type. */
export function browserProtocol(request: Pick<AuthorizeRequest, 'responseTypes'>): string {
  const types = request.responseTypes;
  if (types.length === 1 && types[0] === 'code') return 'oidc-basic-profile';
  if (!types.includes('code')) return 'oidc-implicit-profile';
  return 'oidc-hybrid-profile';
}

/** What the actions of one sign-in asked for, gathered command by command. */
class PostLoginChanges {
  readonly tokens: TokenChanges;
  appMetadata: Record<string, unknown> | undefined;
  userMetadata: Record<string, unknown> | undefined;
  denial: string | undefined;
  redirect: { url: string } | undefined;
  /** `api.multifactor.enable(provider)` was called. */
  multifactor = false;

  constructor(earlier?: TokenChanges) {
    this.tokens = earlier ? structuredClone(earlier) : {};
  }

  /** Applies one action's commands; answers whether the actions stop here (a denial, a redirect). */
  apply(commands: readonly ApiCommand[], user: Record<string, unknown>, interactive: boolean, continueState: string | undefined): 'next' | 'stop' {
    for (const { op, args } of commands) {
      const [first, second] = args;
      switch (op) {
        case 'access.deny':
          this.denial = typeof first === 'string' && first !== '' ? first : 'Access denied by an action.';
          return 'stop';
        case 'idToken.setCustomClaim':
        case 'accessToken.setCustomClaim':
          if (typeof first === 'string' && first !== '') {
            const target = op === 'idToken.setCustomClaim' ? (this.tokens.idToken ??= {}) : (this.tokens.accessToken ??= {});
            if (second === undefined) delete target[first];
            else target[first] = second;
          }
          break;
        case 'accessToken.addScope':
          if (typeof first === 'string' && first !== '') {
            this.tokens.removeScopes = this.tokens.removeScopes?.filter((scope) => scope !== first);
            (this.tokens.addScopes ??= []).push(first);
          }
          break;
        case 'accessToken.removeScope':
          if (typeof first === 'string' && first !== '') {
            this.tokens.addScopes = this.tokens.addScopes?.filter((scope) => scope !== first);
            (this.tokens.removeScopes ??= []).push(first);
          }
          break;
        case 'user.setAppMetadata':
        case 'user.setUserMetadata':
          if (typeof first === 'string' && first !== '') {
            const field = op === 'user.setAppMetadata' ? 'app_metadata' : 'user_metadata';
            const patch = field === 'app_metadata' ? (this.appMetadata ??= {}) : (this.userMetadata ??= {});
            // A later action sees the change in its event, as on the platform.
            const shown = isRecord(user[field]) ? { ...(user[field] as Record<string, unknown>) } : {};
            recordMetadataCall(patch, shown, first, second);
            user[field] = shown;
          }
          break;
        case 'redirect.sendUserTo': {
          if (!interactive) {
            this.denial = 'An action redirects the user, which a login without a browser cannot follow.';
            return 'stop';
          }
          const target = redirectTarget(first, second);
          if (typeof target !== 'string' || !continueState) {
            this.denial = `An action redirects the user to an address that is not valid: ${typeof target === 'object' ? target.problem : 'no state'}.`;
            return 'stop';
          }
          const url = new URL(target);
          url.searchParams.set('state', continueState);
          // The platform lets the redirect happen once the action's handler has returned; the next ones wait.
          this.redirect = { url: url.href };
          break;
        }
        case 'multifactor.enable':
          // The sign-in must have a second factor: the token endpoint answers mfa_required (action-triggers.ts), a
          // browser goes to the MFA screens before its answer (authorize/flow.ts completeAuthorization).
          this.multifactor = true;
          break;
        default:
          // Other commands are not post-login's.
          break;
      }
    }
    return this.redirect ? 'stop' : 'next';
  }

  /** The token changes, or undefined when the actions changed nothing in the tokens. */
  tokenChanges(): TokenChanges | undefined {
    const { idToken, accessToken, addScopes, removeScopes } = this.tokens;
    if (!idToken && !accessToken && !addScopes?.length && !removeScopes?.length) return undefined;
    return this.tokens;
  }
}

/**
 * The post-login trigger (the platform's `onExecutePostLogin`): runs on every sign-in path, after the account checks
 * and before the session or tokens. It builds the platform's `event`, runs the bound actions in order, and turns
 * their `api` calls into a verdict: a denial, or the changes to the tokens; metadata changes are written once,
 * after the last action. A denial or a failure is logged with the execution's id and the action's console output.
 */
export function postLoginActions(deps: PostLoginActionsDeps) {
  async function buildEvent(input: PostLoginInput): Promise<Record<string, unknown> | undefined> {
    const [record, client, roles, organization] = await Promise.all([
      deps.storage.users.get(deps.tenantId, input.userId),
      deps.config.client(input.clientId),
      deps.storage.roles.roleNamesOfUser(deps.tenantId, input.userId),
      input.organizationId !== undefined ? deps.storage.organizations.get(deps.tenantId, input.organizationId) : undefined,
    ]);
    if (!record) return undefined;
    const connectionName = input.connection ?? record.columns.connection;
    const connection = await deps.config.connectionNamed(connectionName);
    const now = deps.now().toISOString();
    const user = { ...userView(record) } as Record<string, unknown>;
    const request = input.request;
    return {
      authentication: { methods: input.amr.map((name) => ({ name: methodName(name, connection?.data.strategy), timestamp: now })) },
      authorization: { roles },
      client: client ? { client_id: client.clientId, name: client.data.name, metadata: client.data.client_metadata ?? {} } : { client_id: input.clientId, name: '', metadata: {} },
      connection: connection
        ? { id: connection.id, name: connection.data.name, strategy: connection.data.strategy, metadata: connection.data.metadata ?? {} }
        : { name: connectionName },
      ...(organization ? { organization: { id: organization.id, name: organization.name, display_name: organization.displayName ?? organization.name, metadata: organization.metadata ?? {} } } : {}),
      request: actionRequestDetails(input.origin, { uiLocales: request?.uiLocales }),
      ...(input.audience !== undefined ? { resource_server: { identifier: input.audience } } : {}),
      ...(input.sessionId !== undefined ? { session: { id: input.sessionId } } : {}),
      stats: { logins_count: record.data.logins_count },
      tenant: { id: deps.tenantId },
      transaction: {
        protocol: input.protocol,
        requested_scopes: [...input.scopes],
        acr_values: [],
        locale: request?.uiLocales?.split(' ')[0] ?? 'en',
        ui_locales: request?.uiLocales?.split(' ').filter(Boolean) ?? [],
        ...(request
          ? {
              redirect_uri: request.redirectUri,
              response_type: request.responseTypes,
              response_mode: request.responseMode,
              ...(request.state !== undefined ? { state: request.state } : {}),
              prompt: request.prompt,
            }
          : {}),
      },
      user,
    };
  }

  async function saveMetadata(userId: string, changes: PostLoginChanges) {
    if (!changes.appMetadata && !changes.userMetadata) return;
    const at = deps.now().toISOString();
    await deps.storage.users.modify(deps.tenantId, userId, (current) => ({
      data: {
        ...current.data,
        app_metadata: mergeUserMetadata('app_metadata', current.data.app_metadata, changes.appMetadata as Record<string, Metadata[string] | null> | undefined),
        user_metadata: mergeUserMetadata('user_metadata', current.data.user_metadata, changes.userMetadata as Record<string, Metadata[string] | null> | undefined),
      },
      columns: { updated_at: at },
    }));
  }

  function logRefusal(input: PostLoginInput, description: string, run: TriggerRun) {
    deps.events.record({
      type: 'f',
      description,
      client_id: input.clientId,
      user_id: input.userId,
      ...(input.connection !== undefined ? { connection: input.connection } : {}),
      ...originFields(input.origin),
      details: actionLogDetails(run),
    });
  }

  return {
    /**
     * Runs the bound actions from the first, or, for a login coming back through `/continue`, from the action that
     * sent the user away (its `onContinuePostLogin`, then the next ones' `onExecutePostLogin`).
     */
    async run(input: PostLoginInput, resume?: PostLoginResume): Promise<PostLoginResult> {
      if (!resume && !(await deps.runner.any('post-login'))) return { kind: 'continue' };
      if (resume && (await deps.runner.boundAt('post-login', resume.resumeAt))?.actionId !== resume.actionId) {
        return { kind: 'failed', description: 'The post-login actions changed while the user was away: log in again.' };
      }
      const event = await buildEvent(input);
      if (!event) return { kind: 'continue' };
      const changes = new PostLoginChanges(resume?.tokens);
      const user = event.user as Record<string, unknown>;
      let redirectedAt: { index: number; actionId: string } | undefined;
      const run = await deps.runner.run(
        'post-login',
        'onExecutePostLogin',
        event,
        (turn) => {
          const verdict = changes.apply(turn.commands, user, input.interactive, input.continueState);
          if (changes.redirect && !redirectedAt) redirectedAt = { index: turn.index, actionId: turn.action.actionId };
          return verdict;
        },
        {
          ...(resume ? { startAt: resume.resumeAt, firstHandler: 'onContinuePostLogin' as const } : {}),
          login: { domain: deps.domain, userId: input.userId, ...(input.continueState !== undefined ? { state: input.continueState } : {}) },
        },
      );
      if (run.failure) {
        const description = failureDescription(run.failure);
        logRefusal(input, description, run);
        return { kind: 'failed', description };
      }
      if (changes.denial !== undefined) {
        // The platform's api.access.deny does not cancel the metadata changes the actions asked for: they are saved.
        const unsaved = await saveMetadata(input.userId, changes).then(
          () => '',
          (error: unknown) => ` (the metadata the actions set could not be saved: ${error instanceof Error ? error.message : String(error)})`,
        );
        logRefusal(input, `${changes.denial}${unsaved}`, run);
        return { kind: 'denied', description: changes.denial };
      }
      try {
        await saveMetadata(input.userId, changes);
      } catch (error) {
        const description = `The metadata the actions set could not be saved: ${error instanceof Error ? error.message : String(error)}`;
        logRefusal(input, description, run);
        return { kind: 'failed', description };
      }
      const tokens = changes.tokenChanges();
      if (changes.redirect && redirectedAt) {
        return { kind: 'redirect', url: changes.redirect.url, resume: { resumeAt: redirectedAt.index, actionId: redirectedAt.actionId, tokens } };
      }
      if (tokens && Buffer.byteLength(JSON.stringify({ ...tokens.idToken, ...tokens.accessToken })) > MAX_CUSTOM_CLAIMS_BYTES) {
        const description = `The custom claims the actions set are larger than ${MAX_CUSTOM_CLAIMS_BYTES} bytes.`;
        logRefusal(input, description, run);
        return { kind: 'failed', description };
      }
      return changes.multifactor ? { kind: 'continue', changes: tokens, multifactor: true } : { kind: 'continue', changes: tokens };
    },
  };
}

export type PostLoginActions = ReturnType<typeof postLoginActions>;
