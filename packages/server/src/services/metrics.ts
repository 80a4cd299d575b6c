import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics, served on their own listener (LATCHKEY_METRICS_PORT, http/metrics-listener.ts).
 *
 * Every label takes values from a bounded set, so that no series is created per user, per client or per URL:
 * route patterns (never raw URLs), status codes, grant types the token endpoint knows, configured connection names
 * (an unknown connection a request names is counted as `(unknown)`), and the small enums below. Whoever adds a
 * label keeps it that way: one series per user id would grow without end and take the scraper down.
 *
 * Counting is always on (an increment is a map lookup); the process metrics of prom-client (event-loop lag,
 * memory, garbage collection, handles), which keep samplers running, are collected only when the listener is
 * configured.
 */

/** How a sign-in ended: `success`, or why it failed (a wrong password, a blocked account, a wrong code, …). */
export type SignInResult =
  | 'success'
  | 'wrong_credentials'
  | 'blocked'
  | 'too_many_attempts'
  | 'ip_throttled'
  | 'password_leaked'
  | 'connection_not_enabled'
  | 'unknown_connection'
  | 'wrong_code'
  | 'too_many_tries'
  | 'signup_disabled'
  /** A federated login (OpenID Connect, OAuth 2.0, SAML) refused for another reason than a block: the provider's error, an answer that fails its checks, a user who cannot be linked. */
  | 'federated_refused';

/** Which attack-protection shield refused a request (the platform's attack-protection features). */
export type AttackProtectionShield = 'brute_force' | 'suspicious_ip_throttling' | 'signup_throttling' | 'breached_password';

export type RateLimitedSurface = 'authentication' | 'management';

/** A counter whose label values are typed, so a call cannot pass an unbounded value by mistake. */
export interface CounterOf<Labels extends Record<string, string>> {
  inc(labels: Labels): void;
}

/** A gauge read when Prometheus scrapes: `collect` answers the current value of each labelled series. */
export interface GaugeDefinition<Label extends string> {
  /** `latchkey_…`, in Prometheus's naming (base unit, no `_total`). */
  name: string;
  help: string;
  labelNames?: readonly Label[];
  collect(): readonly { labels?: Partial<Record<Label, string>>; value: number }[] | Promise<readonly { labels?: Partial<Record<Label, string>>; value: number }[]>;
}

/** A total read when Prometheus scrapes (unlabelled): `collect` answers its current value. */
export interface CounterDefinition {
  /** `latchkey_…_total`. */
  name: string;
  help: string;
  collect(): number;
}

export interface Metrics {
  /** Answers of the HTTP listener, by method, route pattern and status code (plugins/request-metrics.ts). */
  observeRequest(request: { method: string; route: string; statusCode: number; seconds: number }): void;
  /** Sign-ins that completed (the sign-in pipeline's `event-recorded` stage) or were refused, by connection. */
  signIns: CounterOf<{ result: SignInResult; connection: string }>;
  /** Tokens the token endpoint issued, by grant type (only grants it knows reach a success). */
  tokensIssued: CounterOf<{ grant_type: string }>;
  /** Requests refused by a rate limit (429), by surface and route pattern. */
  rateLimitRefusals: CounterOf<{ surface: RateLimitedSurface; route: string }>;
  /** Requests refused by attack protection (services/login-protection.ts, breached-password detection). */
  attackProtectionRefusals: CounterOf<{ shield: AttackProtectionShield }>;
  /**
   * Adds a gauge read on each scrape. This is how a part of the server exposes a level it keeps (a queue's depth,
   * a buffer's size, a lag) without depending on prom-client: the composition root (registry.ts) calls it with a
   * `collect` reading the part's state, e.g. for the tenant log's event buffer:
   *
   *   metrics.addGauge({ name: 'latchkey_log_events_buffered', help: 'Log events waiting to be written.',
   *     collect: () => [{ value: events.buffered }] });
   *
   * A monotonic total kept elsewhere (events dropped) goes through `addCounter` instead, typed as a counter.
   */
  addGauge<Label extends string = never>(definition: GaugeDefinition<Label>): void;
  /**
   * Adds a counter read on each scrape: a total that a part of the server keeps itself and that only grows while
   * the process runs (the tenant log's events dropped). Typed `counter`, so that `rate()` and `increase()` treat a
   * restart as the reset it is; `name` ends in `_total`.
   */
  addCounter(definition: CounterDefinition): void;
  /** The text format Prometheus scrapes, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** Latency buckets (seconds): token requests take milliseconds, password logins tens of them, a slow upstream seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: { processMetrics: boolean }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'latchkey_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'latchkey_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const signIns = new Counter({
    name: 'latchkey_sign_ins_total',
    help: 'Sign-ins by result (success, or why it was refused) and connection.',
    labelNames: ['result', 'connection'] as const,
    registers,
  });
  const tokensIssued = new Counter({
    name: 'latchkey_tokens_issued_total',
    help: 'Token endpoint answers that issued tokens, by grant type.',
    labelNames: ['grant_type'] as const,
    registers,
  });
  const rateLimitRefusals = new Counter({
    name: 'latchkey_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by surface and route pattern.',
    labelNames: ['surface', 'route'] as const,
    registers,
  });
  const attackProtectionRefusals = new Counter({
    name: 'latchkey_attack_protection_refusals_total',
    help: 'Logins and signups refused by attack protection, by shield.',
    labelNames: ['shield'] as const,
    registers,
  });

  return {
    observeRequest({ method, route, statusCode, seconds }) {
      const labels = { method, route, status_code: statusCode };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    signIns,
    tokensIssued,
    rateLimitRefusals,
    attackProtectionRefusals,
    addGauge<Label extends string>(definition: GaugeDefinition<Label>) {
      new Gauge<Label>({
        name: definition.name,
        help: definition.help,
        labelNames: definition.labelNames ?? [],
        registers,
        async collect() {
          this.reset();
          for (const { labels, value } of await definition.collect()) {
            if (labels) this.set(labels as Partial<Record<Label, string>>, value);
            else this.set(value);
          }
        },
      });
    },
    addCounter(definition: CounterDefinition) {
      new Counter({
        name: definition.name,
        help: definition.help,
        registers,
        // prom-client counters only grow by `inc`: the series is set to the kept total on each scrape.
        collect() {
          this.reset();
          this.inc(definition.collect());
        },
      });
    },
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
