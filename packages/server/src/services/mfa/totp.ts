import { generateSecret, generateURI, verify } from 'otplib';

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps) through otplib. A code is accepted one step either side of
 * now (clocks of phones drift), and only for a step later than the last one accepted (`afterStep`), so a code is
 * good once within its window.
 */
export const TOTP_PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  // 20 random bytes (160 bits, RFC 4226's recommendation) as Base32, what authenticator apps take.
  return generateSecret({ length: 20 });
}

/** The `otpauth://` URI an authenticator app scans (`barcode_uri`). */
export function totpUri(secret: string, issuer: string, label: string): string {
  return generateURI({ issuer, label, secret, period: TOTP_PERIOD_SECONDS, digits: 6 });
}

/** The time step the code belongs to, or undefined when it is wrong (or its step was used already). */
export async function verifyTotp(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  try {
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(now.getTime() / 1000),
      period: TOTP_PERIOD_SECONDS,
      epochTolerance: TOTP_PERIOD_SECONDS,
      ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
    });
    // The TOTP strategy answers the step it matched (the HOTP shape of the union has none).
    return result.valid && 'timeStep' in result && typeof result.timeStep === 'number' ? result.timeStep : undefined;
  } catch {
    // A malformed secret (a Management API caller's own) is no reason to fail the request: the code is wrong.
    return undefined;
  }
}

/** A secret given through the Management API (`totp_secret`): Base32, at least 16 characters. */
export function isTotpSecret(value: string): boolean {
  return /^[A-Z2-7]{16,128}=*$/.test(value.toUpperCase());
}
