/**
 * The handlers an action may export, the trigger each serves, and the `api` methods each receives. Every method
 * listed here only records a command ({op, args}); the caller validates and applies the commands after the
 * handler returns, so tenant code never holds one of our objects.
 *
 * Methods that return something computed by the host (`api.cache.get`, `api.redirect.encodeToken` /
 * `validateToken`) are not here yet: they need host state handed in with the event, which the triggers' issue
 * steps add.
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
  // These three run after the fact: their `api` has only the cache, which comes with the host-state step.
  'post-user-registration': [],
  'post-change-password': [],
  'send-phone-message': [],
};

export function isActionHandlerName(name: string): name is ActionHandlerName {
  return Object.hasOwn(ACTION_HANDLERS, name);
}

/** One recorded `api` call: the method's dotted path and its arguments as JSON values. */
export interface ApiCommand {
  op: string;
  args: unknown[];
}
