import { MAX_PASSWORD_LENGTH, POLICY_NAMES } from '../password-policy.js';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The platform's bound on a connection's own dictionary, and on each of its words. */
const MAX_DICTIONARY_WORDS = 200;
const MAX_WORD_LENGTH = 50;

/** `{enable: boolean}` and nothing else but the keys named. */
function toggleProblems(name: string, value: unknown, extra: Record<string, (value: unknown) => string | undefined>): string[] {
  if (value === undefined || value === null) return [];
  if (!isObject(value)) return [`${name} must be an object`];
  const problems: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (key === 'enable') {
      if (typeof field !== 'boolean') problems.push(`${name}.enable must be a boolean`);
      continue;
    }
    const check = extra[key];
    const problem = check ? check(field) : `${name}.${key} is not a known property`;
    if (problem) problems.push(problem);
  }
  return problems;
}

/**
 * What is wrong with a database connection's password options (`passwordPolicy`, `password_complexity_options`,
 * `password_dictionary`, `password_no_personal_info`). Unchecked, a typo such as `passwordPolicy: "strong"` was
 * stored and silently read as the default policy, so the administrator believed in rules nobody enforced.
 * `null` counts as absent, as in the platform's exports.
 */
export function passwordOptionProblems(options: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const policy = options.passwordPolicy;
  if (policy !== undefined && policy !== null && !(POLICY_NAMES as readonly unknown[]).includes(policy)) problems.push(`passwordPolicy must be one of ${POLICY_NAMES.join(', ')}`);
  const complexity = options.password_complexity_options;
  if (complexity !== undefined && complexity !== null) {
    if (!isObject(complexity)) problems.push('password_complexity_options must be an object');
    else {
      for (const [key, value] of Object.entries(complexity)) {
        if (key !== 'min_length') problems.push(`password_complexity_options.${key} is not a known property`);
        else if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_PASSWORD_LENGTH) {
          problems.push(`password_complexity_options.min_length must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}`);
        }
      }
    }
  }
  problems.push(
    ...toggleProblems('password_dictionary', options.password_dictionary, {
      dictionary: (words) =>
        !Array.isArray(words) || words.length > MAX_DICTIONARY_WORDS || words.some((word) => typeof word !== 'string' || word.length > MAX_WORD_LENGTH)
          ? `password_dictionary.dictionary must be a list of at most ${MAX_DICTIONARY_WORDS} words of at most ${MAX_WORD_LENGTH} characters`
          : undefined,
    }),
    ...toggleProblems('password_no_personal_info', options.password_no_personal_info, {}),
  );
  return problems;
}
