
/**
 * The handlers an action may export, the trigger each serves, and the `api` methods each receives. Two kinds:
 *   - recording methods only record a command ({op, args}); the caller validates and applies the commands after
 *     the handler returns, so tenant code never holds one of our objects;
 *   - answering methods return something at once, as on the platform (`api.cache.get` answers the cached record,
 *     `api.redirect.encodeToken` a signed token). The sandbox's prelude computes their answers from host state
 *     handed in with the execution (`execute`'s options: the action's cache entries, the login's binding, the
 *     clock) and a host callback for HMAC; the changes they make come back as commands (`cache.set` and
 *     `cache.delete`, see action-cache.ts).
 */
export const ACTION_HANDLERS = {
  onExecutePostLogin: 'post-login',
  onContinuePostLogin: 'post-login',
  onExecuteCredentialsExchange: 'credentials-exchange',
  onExecutePreUserRegistration: 'pre-user-registration',
  onExecutePostUserRegistration: 'post-user-registration',
  onExecutePostChangePassword: 'post-change-password',
  onExecuteSendPhoneMessage: 'send-phone-message',
} as const;

export type ActionHandlerName = keyof typeof ACTION_HANDLERS;
export type ActionTrigger = (typeof ACTION_HANDLERS)[ActionHandlerName];

/** The recording methods of each trigger's `api`, as dotted paths (`idToken.setCustomClaim` is `api.idToken.setCustomClaim`). */
export const TRIGGER_API_METHODS: Record<ActionTrigger, readonly string[]> = {
  'post-login': [
    'access.deny',
    'accessToken.setCustomClaim',
    'accessToken.addScope',
    'accessToken.removeScope',
    'idToken.setCustomClaim',
    'user.setAppMetadata',
    'user.setUserMetadata',
    'redirect.sendUserTo',
    'multifactor.enable',
  ],
  'credentials-exchange': ['access.deny', 'accessToken.setCustomClaim'],
  'pre-user-registration': ['access.deny', 'user.setAppMetadata', 'user.setUserMetadata'],
  // These three run after the fact: their `api` has only the cache (TRIGGER_ANSWERING_METHODS).
  'post-user-registration': [],
  'post-change-password': [],
  'send-phone-message': [],
};

const CACHE_METHODS = ['cache.get', 'cache.set', 'cache.delete'] as const;

/**
 * The answering methods of each trigger's `api` (see the header). `redirect.validateToken` answers only in
 * onContinuePostLogin, the handler that runs when the login comes back from the redirect; elsewhere it throws.
 */
export const TRIGGER_ANSWERING_METHODS: Record<ActionTrigger, readonly string[]> = {
  'post-login': [...CACHE_METHODS, 'redirect.encodeToken', 'redirect.validateToken'],
  'credentials-exchange': CACHE_METHODS,
  'pre-user-registration': CACHE_METHODS,
  'post-user-registration': CACHE_METHODS,
  'post-change-password': CACHE_METHODS,
  'send-phone-message': CACHE_METHODS,
};

/** The commands an execution of the trigger may answer with: its recorded calls, and the cache's changes. */
export function triggerCommandOps(trigger: ActionTrigger): readonly string[] {
  return [...TRIGGER_API_METHODS[trigger], ...CACHE_COMMAND_OPS];
}

export function isActionHandlerName(name: string): name is ActionHandlerName {
  return Object.hasOwn(ACTION_HANDLERS, name);
}

/** One recorded `api` call: the method's dotted path and its arguments as JSON values. */
/** The `api.cache` writes an execution records (the host's ActionCacheStore applies them). */
export const CACHE_COMMAND_OPS = ['cache.set', 'cache.delete'] as const;

export interface ApiCommand {
  op: string;
  args: unknown[];
}
