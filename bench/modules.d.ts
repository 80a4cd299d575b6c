// Minimal typings for the two benchmark-only packages that ship none: only what bench/ uses.
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback: () => void): Server;
  }
  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };
}

declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
      verifyBody?: (body: string) => boolean;
      requests?: Request[];
    }
    /** One step of a request sequence; `context` is per connection and starts empty at each pass. */
    interface Request {
      method?: string;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }
    interface Result {
      /** Seconds actually measured. */
      duration: number;
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
