/**
 * Password policies of database connections, with the reference platform's names and meanings:
 *   none       at least 1 character
 *   low        at least 6 characters
 *   fair       at least 8 characters, with lower case, upper case and digits
 *   good       at least 8 characters, with three of: lower case, upper case, digits, special characters
 *   excellent  at least 10 characters, three of the four kinds, no character more than twice in a row
 * `password_complexity_options.min_length` raises or lowers the length (1-128). `password_dictionary` refuses
 * common passwords and the connection's own words; `password_no_personal_info` refuses passwords built on the
 * user's e-mail, user name or names. A failure is reported rule by rule in the platform's format, which the
 * browser library passes on to applications (`description.rules`, `policy`).
 */
import { isCommonPassword } from './common-passwords.js';
import { ServiceError } from './errors.js';

export const POLICY_NAMES = ['none', 'low', 'fair', 'good', 'excellent'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** Upper bound whatever the policy: argon2id of a megabyte is a denial of service, not a password. */
export const MAX_PASSWORD_LENGTH = 128;

export interface PasswordRules {
  policy: PolicyName;
  minLength: number;
  dictionary: { enabled: boolean; words: readonly string[] };
  noPersonalInfo: boolean;
}

/** A rule as the platform reports it; `%d`/`%s` in `message` are filled from `format`. */
export interface RuleReport {
  message: string;
  code: string;
  verified: boolean;
  format?: (number | string)[];
  items?: RuleReport[];
}

export type PasswordVerdict =
  | { ok: true }
  | { ok: false; failure: 'strength'; rules: RuleReport[]; policy: string }
  | { ok: false; failure: 'dictionary' | 'personal_info' };

const DEFAULT_LENGTH: Record<PolicyName, number> = { none: 1, low: 6, fair: 8, good: 8, excellent: 10 };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rules a connection's `options` set; anything missing or malformed falls back to the platform's default (`good`). */
export function passwordRulesOf(options: Record<string, unknown>): PasswordRules {
  const named = options.passwordPolicy;
  const policy: PolicyName = typeof named === 'string' && (POLICY_NAMES as readonly string[]).includes(named) ? (named as PolicyName) : 'good';
  const complexity = isRecord(options.password_complexity_options) ? options.password_complexity_options : {};
  const minLength = Number.isInteger(complexity.min_length) ? Math.min(MAX_PASSWORD_LENGTH, Math.max(1, Number(complexity.min_length))) : DEFAULT_LENGTH[policy];
  const dictionary = isRecord(options.password_dictionary) ? options.password_dictionary : {};
  const personal = isRecord(options.password_no_personal_info) ? options.password_no_personal_info : {};
  return {
    policy,
    minLength,
    dictionary: {
      enabled: dictionary.enable === true,
      words: Array.isArray(dictionary.dictionary) ? dictionary.dictionary.filter((word): word is string => typeof word === 'string') : [],
    },
    noPersonalInfo: personal.enable === true,
  };
}

const KINDS = [
  { code: 'lowerCase', message: 'lower case letters (a-z)', test: /[a-z]/ },
  { code: 'upperCase', message: 'upper case letters (A-Z)', test: /[A-Z]/ },
  { code: 'numbers', message: 'numbers (i.e. 0-9)', test: /[0-9]/ },
  { code: 'specialCharacters', message: 'special characters (e.g. !@#$%^&*)', test: /[^a-zA-Z0-9]/ },
] as const;

function kindReports(password: string, codes: readonly string[]): RuleReport[] {
  return KINDS.filter((kind) => codes.includes(kind.code)).map((kind) => ({ message: kind.message, code: kind.code, verified: kind.test.test(password) }));
}

/** The longest run of one repeated character. */
function longestRun(password: string): number {
  let longest = 0;
  let run = 0;
  let previous = '';
  for (const character of password) {
    run = character === previous ? run + 1 : 1;
    previous = character;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The strength rules of a policy, each checked against the password. */
export function strengthReport(password: string, rules: Pick<PasswordRules, 'policy' | 'minLength'>): RuleReport[] {
  const length = [...password].length;
  const reports: RuleReport[] = [
    { message: 'At least %d characters in length', format: [rules.minLength], code: 'lengthAtLeast', verified: length >= rules.minLength && length <= MAX_PASSWORD_LENGTH },
  ];
  if (rules.policy === 'fair') {
    const items = kindReports(password, ['lowerCase', 'upperCase', 'numbers']);
    reports.push({ message: 'Should contain:', code: 'shouldContain', items, verified: items.every((item) => item.verified) });
  }
  if (rules.policy === 'good' || rules.policy === 'excellent') {
    const items = kindReports(password, KINDS.map((kind) => kind.code));
    reports.push({
      message: 'Contain at least %d of the following %d types of characters:',
      format: [3, 4],
      code: 'containsAtLeast',
      items,
      verified: items.filter((item) => item.verified).length >= 3,
    });
  }
  if (rules.policy === 'excellent') {
    reports.push({ message: 'No more than %d identical characters in a row (e.g., "%s" not allowed)', format: [2, 'aaa'], code: 'identicalChars', verified: longestRun(password) <= 2 });
  }
  return reports;
}

function fill(report: RuleReport): string {
  let index = 0;
  return report.message.replace(/%[ds]/g, () => String(report.format?.[index++] ?? ''));
}

/** The policy as the platform words it for people: one `* ` line per rule, ` * ` per item. */
export function policyText(reports: readonly RuleReport[]): string {
  return reports.flatMap((report) => [`* ${fill(report)}`, ...(report.items ?? []).map((item) => ` * ${fill(item)}`)]).join('\n');
}

/** A strength rule by its code, with the values its wording names, for a page to word in its own language. */
export interface PolicyRule {
  code: string;
  /** The rule's numbers by name: `count` (and `total` of `containsAtLeast`, `example` of `identicalChars`). */
  values: Record<string, string>;
  items: PolicyRule[];
}

/** The names of each rule's `format` values, in order (the hosted pages' texts use them as placeholders). */
const VALUE_NAMES: Readonly<Record<string, readonly string[]>> = {
  lengthAtLeast: ['count'],
  containsAtLeast: ['count', 'total'],
  identicalChars: ['count', 'example'],
};

function policyRule(report: RuleReport): PolicyRule {
  const names = VALUE_NAMES[report.code] ?? [];
  return {
    code: report.code,
    values: Object.fromEntries(names.map((name, index) => [name, String(report.format?.[index] ?? '')])),
    items: (report.items ?? []).map(policyRule),
  };
}

/**
 * The strength rules of a policy by code, not in words: a hosted page lists them before the first attempt in the
 * page's language, while the Authentication API keeps the platform's English (`policyText`).
 */
export function policyRules(rules: Pick<PasswordRules, 'policy' | 'minLength'>): PolicyRule[] {
  return strengthReport('', rules).map(policyRule);
}

export interface PersonalInfo {
  email?: string | undefined;
  username?: string | undefined;
  name?: string | undefined;
  given_name?: string | undefined;
  family_name?: string | undefined;
  nickname?: string | undefined;
}

/** Parts of the user's identity long enough to matter (3+ characters), lower-cased. */
function personalWords(info: PersonalInfo): string[] {
  const local = info.email?.split('@')[0];
  const words = [info.email, local, info.username, info.nickname, info.given_name, info.family_name, info.name, ...(info.name?.split(/\s+/) ?? [])];
  return words.filter((word): word is string => typeof word === 'string' && word.length >= 3).map((word) => word.toLowerCase());
}

/** Checks a new password against a connection's rules (signup, reset, Management API). */
export function checkPassword(password: string, rules: PasswordRules, info: PersonalInfo = {}): PasswordVerdict {
  const reports = strengthReport(password, rules);
  if (!reports.every((report) => report.verified)) return { ok: false, failure: 'strength', rules: reports, policy: policyText(reports) };
  const lowered = password.toLowerCase();
  if (rules.dictionary.enabled && (isCommonPassword(password) || rules.dictionary.words.some((word) => word.toLowerCase() === lowered))) {
    return { ok: false, failure: 'dictionary' };
  }
  if (rules.noPersonalInfo && personalWords(info).some((word) => lowered.includes(word))) return { ok: false, failure: 'personal_info' };
  return { ok: true };
}

/**
 * A password set through the Management API meets its connection's policy, as at signup. The platform answers
 * 400 with the failure's name in the message and no rule detail (unlike `/dbconnections/signup`).
 */
export function requirePasswordPolicy(options: Record<string, unknown>, password: string, info: PersonalInfo): void {
  const verdict = checkPassword(password, passwordRulesOf(options), info);
  if (verdict.ok) return;
  const message =
    verdict.failure === 'strength'
      ? 'PasswordStrengthError: Password is too weak'
      : verdict.failure === 'dictionary'
        ? 'PasswordDictionaryError: Password is too common'
        : 'PasswordNoUserInfoError: Password contains user information';
  throw new ServiceError('invalid', message, 'invalid_body');
}

/** A user's identifying fields once `patch` is applied to `current` (null clears a field). */
export function personalInfoAfter(current: PersonalInfo, patch: { [K in keyof PersonalInfo]?: string | null }): PersonalInfo {
  const fields = ['email', 'username', 'name', 'given_name', 'family_name', 'nickname'] as const;
  return Object.fromEntries(fields.map((field) => [field, patch[field] === null ? undefined : (patch[field] ?? current[field])]));
}

/** A plausible e-mail address (one @, something on each side, a dot in the domain); deliverability is not checked. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
