import type { DatabaseLogin } from './database-login.js';
import type { LoginProtection } from './login-protection.js';
import type { Metrics } from './metrics.js';
import type { Passwordless } from './passwordless.js';

/**
 * Refused sign-ins and attack-protection refusals, counted where every surface's attempts pass: the credential
 * checks that the hosted pages, the token endpoint's grants and cross-origin login all call. Each wrapper keeps
 * the service's own behaviour and answers; successes are counted once the sign-in completes, by the sign-in
 * pipeline's `event-recorded` stage (registry.ts).
 *
 * The connection label is a configured connection's name: a connection the request names that does not exist is
 * counted as `(unknown)`, so that a client cannot create series at will.
 */

type SignInCounters = Pick<Metrics, 'signIns' | 'attackProtectionRefusals'>;

export const UNKNOWN_CONNECTION = '(unknown)';

/** Database (username and password) logins: each refusal by its reason; breached passwords are attack protection too. */
export function countedDatabaseLogin(login: DatabaseLogin, metrics: SignInCounters): DatabaseLogin {
  return {
    ...login,
    async login(input) {
      const result = await login.login(input);
      if (!result.ok) {
        metrics.signIns.inc({ result: result.reason, connection: result.reason === 'unknown_connection' ? UNKNOWN_CONNECTION : input.connection });
        if (result.reason === 'password_leaked') metrics.attackProtectionRefusals.inc({ shield: 'breached_password' });
      }
      return result;
    },
  };
}

/** One-time codes (passwordless connections): each refused code by its reason. */
export function countedPasswordless(passwordless: Passwordless, metrics: Pick<Metrics, 'signIns'>): Passwordless {
  return {
    ...passwordless,
    async check(input) {
      const result = await passwordless.check(input);
      if (!result.ok) metrics.signIns.inc({ result: result.failure, connection: result.failure === 'unknown_connection' ? UNKNOWN_CONNECTION : input.connection });
      return result;
    },
  };
}

/** Brute-force blocks and suspicious-IP throttling of logins and signups. */
export function countedLoginProtection(protection: LoginProtection, metrics: Pick<Metrics, 'attackProtectionRefusals'>): LoginProtection {
  return {
    ...protection,
    async gate(input) {
      const gate = await protection.gate(input);
      if (gate === 'blocked') metrics.attackProtectionRefusals.inc({ shield: 'brute_force' });
      if (gate === 'ip_throttled') metrics.attackProtectionRefusals.inc({ shield: 'suspicious_ip_throttling' });
      return gate;
    },
    async signupAllowed(ip) {
      const allowed = await protection.signupAllowed(ip);
      if (!allowed) metrics.attackProtectionRefusals.inc({ shield: 'signup_throttling' });
      return allowed;
    },
  };
}
