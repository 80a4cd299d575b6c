export interface RateLimitSpec {
  /** Requests allowed per window, sustained. */
  points: number;
  /** Window length in seconds. */
  durationSeconds: number;
  /** Requests allowed in one window while the burst pool lasts (>= points). */
  burst: number;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** Parses `/path=spec; /other=spec` into a map by path. */
export function parseRateLimitOverrides(raw: string): Map<string, RateLimitSpec> {
  const overrides = new Map<string, RateLimitSpec>();
  for (const part of raw.split(';').map((item) => item.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const path = part.slice(0, eq).trim();
    if (eq < 0 || !/^\/[\w./-]*$/.test(path)) throw new Error(`expected "<path>=<limit>" entries separated by ";", got "${part}"`);
    overrides.set(path, parseRateLimit(part.slice(eq + 1)));
  }
  return overrides;
}

/** Parses `50/s`, `600/m burst 1000` and the like. */
export function parseRateLimit(raw: string): RateLimitSpec {
  const match = /^(\d+)\s*\/\s*([smh])(?:\s+burst\s+(\d+))?$/.exec(raw.trim());
  if (!match) throw new Error(`expected "<n>/<s|m|h>" optionally followed by "burst <n>", got "${raw}"`);
  const points = Number(match[1]);
  const burst = match[3] === undefined ? points : Number(match[3]);
  if (points < 1) throw new Error('the rate must be at least 1');
  if (burst < points) throw new Error('burst must not be below the rate');
  return { points, durationSeconds: UNIT_SECONDS[match[2] ?? 's'] ?? 1, burst };
}
