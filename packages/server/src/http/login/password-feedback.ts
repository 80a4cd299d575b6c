import type { Registry } from '../../registry.js';
import { checkPassword, passwordRulesOf, type PersonalInfo } from '../../services/password-policy.js';

/**
 * A new password on a hosted page, checked against its connection's policy. Undefined when it passes;
 * otherwise the page's error code and, for a weak password, the policy's rules to show under the message.
 */
export async function passwordProblem(
  registry: Registry,
  connectionName: string,
  password: string,
  info: PersonalInfo,
): Promise<{ errorCode: string; errorDescription?: string } | undefined> {
  const connection = (await registry.oauthConfig.databaseConnections()).find((candidate) => candidate.name === connectionName);
  const verdict = checkPassword(password, passwordRulesOf(connection?.options ?? {}), info);
  if (verdict.ok) {
    const detection = await registry.attackProtection.get('breached-password-detection');
    if (detection.enabled && detection.shields.includes('block') && (await registry.breached.isBreached(password))) return { errorCode: 'password-breached' };
    return undefined;
  }
  if (verdict.failure === 'strength') return { errorCode: 'password-too-weak', errorDescription: verdict.policy };
  return { errorCode: verdict.failure === 'dictionary' ? 'password-too-common' : 'password-personal-info' };
}
