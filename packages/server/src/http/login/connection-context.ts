import type { ConnectionData } from '../../services/connections.js';
import { passwordRulesOf } from '../../services/password-policy.js';
import { passkeySettingsOf } from '../../services/connection-options/passkeys.js';
import type { Tree } from './render/model.js';

/**
 * `transaction.connection` of the screen context, in the platform's shape: what a tenant bundle needs to draw the
 * form (whether signup and password reset are offered, whether user names exist, the password policy). Only
 * these options are shown; a connection's other options (its settings, any secret) never reach a page.
 */
export function connectionContext(connection: Pick<ConnectionData, 'name' | 'strategy' | 'options'>): Tree {
  if (connection.strategy !== 'auth0') {
    return { name: connection.name, strategy: connection.strategy, options: { signup_enabled: connection.options.disable_signup !== true } };
  }
  const rules = passwordRulesOf(connection.options);
  const passkeys = passkeySettingsOf(connection);
  return {
    name: connection.name,
    strategy: 'auth0',
    options: {
      signup_enabled: connection.options.disable_signup !== true,
      forgot_password_enabled: true,
      username_required: connection.options.requires_username === true,
      authentication_methods: {
        password: { enabled: passkeys.passwordEnabled, policy: rules.policy, min_length: rules.minLength },
        // The SDK's login-id reads `showPasskeyAutofill` to start the browser's conditional UI.
        passkey: { enabled: passkeys.enabled, ...(passkeys.enabled ? { showPasskeyAutofill: passkeys.challengeUi !== 'button' } : {}) },
      },
    },
  };
}
