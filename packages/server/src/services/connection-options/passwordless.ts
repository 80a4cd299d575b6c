import type { ConnectionData } from '../../storage/records.js';

/** A passwordless connection's one-time codes: how many digits, and how long one (or a link carrying it) works. */
export interface OtpSettings {
  length: number;
  seconds: number;
}

/** Without `options.totp`: six digits, five minutes. */
export const DEFAULT_OTP: Readonly<OtpSettings> = { length: 6, seconds: 300 };

/**
 * Latchkey's bounds: fewer than 4 digits is guessed too easily even with three tries, more than 10 is no longer
 * typed; under a minute a mail may arrive too late, over a day a code stops being one-time in practice.
 */
const LENGTH = { min: 4, max: 10 };
const SECONDS = { min: 60, max: 86_400 };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const within = (value: unknown, bounds: { min: number; max: number }) => Number.isInteger(value) && (value as number) >= bounds.min && (value as number) <= bounds.max;

/** What is wrong with an `email` or `sms` connection's `totp` (the platform's name: `{length, time_step}`). */
export function passwordlessOptionProblems(options: Record<string, unknown>): string[] {
  const totp = options.totp;
  if (totp === undefined || totp === null) return [];
  if (!isObject(totp)) return ['totp must be an object'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(totp)) {
    if (key === 'length') {
      if (!within(value, LENGTH)) problems.push(`totp.length must be a whole number of digits from ${LENGTH.min} to ${LENGTH.max}`);
    } else if (key === 'time_step') {
      if (!within(value, SECONDS)) problems.push(`totp.time_step must be a whole number of seconds from ${SECONDS.min} to ${SECONDS.max}`);
    } else problems.push(`totp.${key} is not a known property`);
  }
  return problems;
}

/** The code settings of a passwordless connection; anything absent (or stored before it was checked) is the default. */
export function otpSettingsOf(connection: Pick<ConnectionData, 'options'>): OtpSettings {
  const totp = isObject(connection.options.totp) ? connection.options.totp : {};
  return {
    length: within(totp.length, LENGTH) ? (totp.length as number) : DEFAULT_OTP.length,
    seconds: within(totp.time_step, SECONDS) ? (totp.time_step as number) : DEFAULT_OTP.seconds,
  };
}

/** A lifetime as the messages word it, in whole minutes, never more than it really is (and at least one). */
export const otpMinutes = (settings: OtpSettings): number => Math.max(1, Math.floor(settings.seconds / 60));
