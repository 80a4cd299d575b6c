/**
 * Requests timed one at a time (a latency aim, not a throughput one): `npm run bench:logs` and the user searches of
 * `npm run bench:users`.
 */

export interface Figures {
  name: string;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Items per answer, on average (each answer must hold at least one). */
  meanItems: number;
}

/** A deterministic stream of choices, so that two runs ask the same things. */
export function chooser(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % n;
  };
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/**
 * Times `requests` GET requests one after the other (after `warmup` more), each path from `pathOf(i)`; an answer
 * that is not 200 or in which `count` finds nothing fails the run.
 */
export async function timed(
  name: string,
  base: string,
  token: string,
  pathOf: (i: number) => string,
  count: (body: unknown) => number,
  { requests, warmup }: { requests: number; warmup: number },
): Promise<Figures> {
  const durations: number[] = [];
  let items = 0;
  for (let i = 0; i < warmup + requests; i += 1) {
    const path = pathOf(i);
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body: unknown = await response.json();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${name}: ${path} answered ${response.status}: ${JSON.stringify(body)}`);
    const found = count(body);
    if (found === 0) throw new Error(`${name}: ${path} found nothing`);
    if (i >= warmup) {
      durations.push(elapsed);
      items += found;
    }
  }
  durations.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    name,
    requests: durations.length,
    p50: round(percentile(durations, 50)),
    p95: round(percentile(durations, 95)),
    p99: round(percentile(durations, 99)),
    max: round(durations.at(-1) ?? 0),
    meanItems: Math.round(items / durations.length),
  };
}
