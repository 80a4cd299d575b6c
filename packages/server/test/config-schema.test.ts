import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig, type Config, type DatabaseConfig } from '../src/config/load.js';
import type { RateLimitSpec } from '../src/config/rate-limit-spec.js';
import { SETTINGS } from '../src/config/settings.js';
import type { TrustProxy } from '../src/config/trust-proxy.js';

// The values, defaults and error messages are in config.test.ts and config-and-cli.test.ts, the README table in
// readme-settings.test.ts; this file checks that the schema is the whole of the configuration.

describe('the settings schema', () => {
  it('lists exactly the variables loadConfig reads, each read once', () => {
    const asked: string[] = [];
    const env = new Proxy<Record<string, string | undefined>>({}, {
      get: (_target, name) => {
        if (typeof name === 'string') asked.push(name);
        return undefined;
      },
    });
    loadConfig(env);
    const listed = SETTINGS.map((setting) => setting.env);
    expect(new Set(listed).size).toBe(listed.length);
    expect(asked.sort()).toEqual(listed.sort());
  });

  it('gives Config the types of its parsers', () => {
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['issuer']>().toEqualTypeOf<string>();
    expectTypeOf<Config['database']>().toEqualTypeOf<DatabaseConfig>();
    expectTypeOf<Config['redisUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['secret']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['managementRateLimit']>().toEqualTypeOf<RateLimitSpec>();
    expectTypeOf<Config['authRateLimit']>().toEqualTypeOf<{ default: RateLimitSpec; byPath: ReadonlyMap<string, RateLimitSpec> }>();
    expectTypeOf<Config['timeouts']>().toEqualTypeOf<{ headersSeconds: number; requestSeconds: number; keepAliveSeconds: number }>();
    expectTypeOf<Config['trustProxy']>().toEqualTypeOf<TrustProxy>();
    expectTypeOf<Config['delivery']['smsFrom']>().toEqualTypeOf<string>();
    expectTypeOf<Config['production']>().toEqualTypeOf<boolean>();
    expectTypeOf<Config['demo']>().toEqualTypeOf<boolean>();
    expectTypeOf<Config['logLevel']>().toEqualTypeOf<string>();
  });
});
