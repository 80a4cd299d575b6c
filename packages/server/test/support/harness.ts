import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { Logger } from 'pino';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { randomId } from '../../src/crypto/random.js';
import { createRegistry, type Registry, type RegistryOptions } from '../../src/registry.js';
import { freePort } from './ports.js';
import { POSTGRES_URL, type DialectKind } from './services.js';

export const ADMIN_CLIENT_ID = 'test-admin-client';
export const ADMIN_CLIENT_SECRET = 'test-admin-secret-that-is-long-enough-0123456789';
export const TEST_SECRET = 'test-deployment-secret-0123456789abcdefghijkl';

export interface TestServer {
  app: FastifyInstance;
  registry: Registry;
  /** Base URL when started with `listen: true`. */
  url: string;
  /** The Management API identifier (token audience). */
  audience: string;
  /** Environment the server was configured with (to start a second node on the same database). */
  env: Record<string, string>;
  /** A Management API token for the admin application, optionally narrowed to `scope`. */
  token(scope?: string): Promise<string>;
  /** Stops the node (listener and registry) but keeps its database, for a second node to take over. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  dialect: DialectKind;
  env?: Record<string, string>;
  /** Listen on 127.0.0.1 on a free port (real socket) instead of inject-only. */
  listen?: boolean;
  /** Share the database of an earlier server (its `env`), as a second node would. */
  shareWith?: TestServer;
  https?: AppOptions['https'];
  /** The host name of the issuer and `url` when listening (default localhost; some peers refuse localhost). */
  publicHost?: string;
  /** The server's logger (default: one at LOG_LEVEL, silent in tests), e.g. to read what it logs. */
  logger?: Logger;
  /** Log stream delivery's timings and endpoints (shorter polls and suspension windows in tests). */
  logStreams?: RegistryOptions['logStreams'];
  /** The job runner's timings, or `{ enabled: false }` for a node that runs no jobs. */
  jobs?: RegistryOptions['jobs'];
  /** The tenant log's buffer size and write interval (a tiny buffer fills, to see drops counted). */
  events?: RegistryOptions['events'];
}

/** A per-suite database: a temporary SQLite file, or a fresh PostgreSQL schema dropped on close. */
function databaseEnv(dialect: DialectKind): { env: Record<string, string>; schema?: string; cleanup: () => Promise<void> } {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-test-'));
    return {
      env: { DATABASE_URL: `sqlite:${join(dir, 'latchkey.db')}`, LATCHKEY_DATA_DIR: dir },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomId(12).toLowerCase()}`;
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-test-'));
  return {
    env: { DATABASE_URL: POSTGRES_URL, LATCHKEY_DATA_DIR: dir, TEST_PG_SCHEMA: schema },
    schema,
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const database = options.shareWith ? undefined : databaseEnv(options.dialect);
  const env: Record<string, string> = options.shareWith
    ? { ...options.shareWith.env, ...(options.env ?? {}) }
    : {
        LATCHKEY_SECRET: TEST_SECRET,
        LATCHKEY_ADMIN_CLIENT_ID: ADMIN_CLIENT_ID,
        LATCHKEY_ADMIN_CLIENT_SECRET: ADMIN_CLIENT_SECRET,
        LATCHKEY_TENANT: `t-${randomId(10).toLowerCase()}`,
        LATCHKEY_MGMT_RATE_LIMIT: '100000/s',
        // Suites provision what they need; the demo's client and connections would only be in their way.
        LATCHKEY_DEMO: 'off',
        LATCHKEY_CONSOLE: 'off',
        LOG_LEVEL: 'silent',
        PORT: '0',
        ...(database?.env ?? {}),
        ...(options.env ?? {}),
      };
  // The issuer must name the real port, which is only known after listening: listen first, then build.
  // A second node (shareWith) keeps the first node's issuer, as nodes behind one load balancer do.
  const port = options.listen ? await freePort() : 0;
  const scheme = options.https ? 'https' : 'http';
  const host = options.publicHost ?? 'localhost';
  const ownIssuer: Record<string, string> = port && !env.LATCHKEY_ISSUER ? { LATCHKEY_ISSUER: `${scheme}://${host}:${port}` } : {};
  const config = loadConfig({ ...env, PORT: String(port), ...ownIssuer });
  const schema = env.TEST_PG_SCHEMA;
  const registry = await createRegistry(config, {
    ...(schema ? { schema } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.logStreams ? { logStreams: options.logStreams } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...(options.events ? { events: options.events } : {}),
  });
  const app = await buildApp(registry, options.https ? { https: options.https } : {});
  let url = config.issuer;
  if (options.listen) {
    await app.listen({ port: config.port, host: '127.0.0.1' });
    url = `${scheme}://${host}:${config.port}`;
  } else {
    await app.ready();
  }
  const audience = registry.managementAudience;
  const tokens = new Map<string, string>();
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    stopped ??= (async () => {
      await app.close();
      await registry.close();
    })();
    await stopped;
  };
  return {
    app,
    registry,
    url,
    audience,
    env: { ...env, ...ownIssuer },
    async token(scope) {
      const cached = tokens.get(scope ?? '');
      if (cached) return cached;
      const response = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience, ...(scope ? { scope } : {}) },
      });
      if (response.statusCode !== 200) throw new Error(`token request failed: ${response.body}`);
      const token = (response.json() as { access_token: string }).access_token;
      tokens.set(scope ?? '', token);
      return token;
    },
    stop,
    async close() {
      await stop();
      await database?.cleanup();
    },
  };
}
