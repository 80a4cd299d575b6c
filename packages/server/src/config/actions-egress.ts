/**
 * LATCHKEY_ACTIONS_EGRESS: which addresses tenant Actions may reach with `fetch`. The check runs on the addresses
 * a host name resolves to, at connection time, so a public name that resolves to a private address is refused.
 *
 *   - `public` (the default): public unicast addresses only; loopback, private (RFC 1918, unique-local),
 *     link-local, carrier-grade NAT, multicast, documentation and other special-purpose ranges are refused;
 *   - `public,loopback`: loopback too (tests, local development; never in production, where loopback reaches
 *     Latchkey's own ports and whatever else listens on the host).
 */
export interface ActionsEgress {
  allowLoopback: boolean;
}

export const DEFAULT_ACTIONS_EGRESS: ActionsEgress = { allowLoopback: false };

/**
 * Parses the trimmed, non-empty value (the settings convention of setting-parsers.ts: the message does not name
 * the variable, the reader does).
 */
export function parseActionsEgress(raw: string): ActionsEgress {
  const entries = new Set(raw.split(',').map((entry) => entry.trim().toLowerCase()));
  const unknown = [...entries].filter((entry) => entry !== 'public' && entry !== 'loopback');
  if (unknown.length > 0 || !entries.has('public')) {
    throw new Error(`expected "public" or "public,loopback", got "${raw}"`);
  }
  return { allowLoopback: entries.has('loopback') };
}
