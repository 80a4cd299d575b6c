import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { createRegistry } from './registry.js';
import { createAdministrator, ensureConsole, generatedPassword } from './services/console-setup.js';
import { openStorage } from './storage/open.js';

const USAGE = `usage: latchkey <command>

  serve         start the service (what \`npm start\` runs)
  migrate       apply pending database migrations and exit
  keys rotate   rotate the tenant's signing key (next -> current, current -> previous)
  admin create <email>
                add an administrator of the console (/admin); prints a generated password once
`;

async function runServe(config: Config) {
  // Loaded here so that `migrate` and `keys rotate` start without the HTTP layer.
  const { serve } = await import('./main.js');
  const server = await serve(config);
  const credentials = config.adminClientId
    ? 'Admin application: LATCHKEY_ADMIN_CLIENT_ID / LATCHKEY_ADMIN_CLIENT_SECRET from the environment'
    : `Admin credentials: ${resolve(config.dataDir, 'admin-credentials.json')}`;
  const consoleCredentials = resolve(config.dataDir, 'console-credentials.json');
  // One write, so that whoever waits for the first line gets them all.
  console.log(
    [
      `Latchkey is listening on ${server.url} (issuer ${config.issuer})`,
      ...(server.metricsUrl ? [`Metrics (Prometheus): ${server.metricsUrl}`] : []),
      `Management API: ${config.issuer}/api/v2  (OpenAPI: ${config.issuer}/api/v2/openapi.json)`,
      credentials,
      ...(config.console ? [`Console: ${config.issuer}/admin/` + (existsSync(consoleCredentials) ? `  (first administrator: ${consoleCredentials})` : '')] : []),
      ...(config.demo ? [`Demo application (development only): ${config.issuer}/demo/`] : []),
      `E-mail: ${server.delivery.email}; text messages: ${server.delivery.sms}` +
        (config.production || (config.delivery.smtpUrl && config.delivery.smsUrl) ? '' : ` (read them at ${config.issuer}/dev/outbox)`),
    ].join('\n'),
  );
  // Graceful: no new connections, the requests in flight answered (bounded), then the registry closed (main.ts).
  // A second signal during it is not caught, so it ends the process at once.
  const stop = async (signal: string) => {
    console.log(`Latchkey is shutting down (${signal}): answering the requests in flight`);
    try {
      await server.close();
    } catch (error) {
      console.error('latchkey: shutdown failed:', error instanceof Error ? error.message : error);
      process.exit(1);
    }
    console.log('Latchkey stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

async function runMigrate(config: Config) {
  const dialect = await openStorage(config.database);
  await dialect.close();
  console.log('migrations applied');
}

/** Rotates through the same composition root as the server, so a fresh database is bootstrapped first. */
async function runRotate(config: Config) {
  const registry = await createRegistry(config);
  try {
    const current = await registry.keys.rotate();
    console.log(`rotated: current key is now ${current.kid}`);
  } finally {
    await registry.close();
  }
}

/** Through the composition root (a fresh database is bootstrapped first), with the console's objects ensured. */
async function runAdminCreate(config: Config, email: string | undefined) {
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    console.error('usage: latchkey admin create <email>');
    process.exit(2);
  }
  const registry = await createRegistry({ ...config, console: false });
  try {
    const deps = { storage: registry.storage, tenantId: registry.tenantId, issuer: registry.issuer, now: registry.now };
    const { roleId } = await ensureConsole(deps);
    const password = generatedPassword();
    const user = await createAdministrator(deps, roleId, { email, password });
    console.log(`administrator ${user.user_id} created; sign in at ${registry.issuer}/admin/ as ${email} with the password\n${password}`);
  } finally {
    await registry.close();
  }
}

async function main(args: string[]) {
  const [command, sub, argument] = args;
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`latchkey: invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  if (command === 'serve' || command === undefined) return runServe(config);
  if (command === 'migrate') return runMigrate(config);
  if (command === 'keys' && sub === 'rotate') return runRotate(config);
  if (command === 'admin' && sub === 'create') return runAdminCreate(config, argument);
  console.error(USAGE);
  process.exit(2);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error('latchkey: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
