import type { Registry } from '../../registry.js';
import { checkPassword, passwordRulesOf, policyRules, type PersonalInfo } from '../../services/password-policy.js';
import type { PageErrorCode } from './page-errors.js';
import type { PasswordPolicyView } from './render/model.js';

/** The options of a database connection by name (no options: the platform's default policy applies). */
export async function connectionOptions(registry: Registry, connectionName: string): Promise<Record<string, unknown>> {
  const connection = (await registry.oauthConfig.databaseConnections()).find((candidate) => candidate.name === connectionName);
  return connection?.options ?? {};
}

/** The rules of a connection's password policy, for a page that asks for a new password. */
export function passwordPolicyView(options: Record<string, unknown>): PasswordPolicyView {
  const rules = passwordRulesOf(options);
  return { rules: policyRules(rules), dictionary: rules.dictionary.enabled, personalInfo: rules.noPersonalInfo };
}

/**
 * A new password on a hosted page, checked against its connection's policy. Undefined when it passes; otherwise
 * the page's error code (for a weak password the page words the policy's rules under the message itself, in its
 * language, from its `passwordPolicy`).
 */
export async function passwordProblem(
  registry: Registry,
  connectionName: string,
  password: string,
  info: PersonalInfo,
): Promise<{ errorCode: PageErrorCode } | undefined> {
  const verdict = checkPassword(password, passwordRulesOf(await connectionOptions(registry, connectionName)), info);
  if (verdict.ok) {
    const detection = await registry.attackProtection.get('breached-password-detection');
    if (detection.enabled && detection.shields.includes('block') && (await registry.breached.isBreached(password))) return { errorCode: 'password-breached' };
    return undefined;
  }
  if (verdict.failure === 'strength') return { errorCode: 'password-too-weak' };
  return { errorCode: verdict.failure === 'dictionary' ? 'password-too-common' : 'password-contains-user-information' };
}
