import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import type { Config } from './config/load.js';
import { createRegistry } from './registry.js';

/** env -> config -> registry -> app -> listen. Returns a function that shuts everything down. */
export async function serve(config: Config): Promise<{ url: string; delivery: { email: string; sms: string }; close: () => Promise<void> }> {
  const registry = await createRegistry(config);
  const https = config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined;
  const app = await buildApp(registry, https ? { https } : {});
  await app.listen({ port: config.port, host: config.host });
  const scheme = https ? 'https' : 'http';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  return {
    url,
    delivery: registry.delivery.description,
    async close() {
      await app.close();
      await registry.close();
    },
  };
}
