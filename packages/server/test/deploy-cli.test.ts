import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTls } from './support/certificates.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const run = promisify(execFile);
const CLI = new URL('../../../node_modules/auth0-deploy-cli/lib/index.js', import.meta.url).pathname;

const TENANT_YAML = `
tenant:
  friendly_name: Acme Deployed
  support_email: support@acme.example
  support_url: https://acme.example/help
  session_lifetime: 48
  idle_session_lifetime: 12
  default_directory: acme-users
  default_audience: https://api.acme.example/
resourceServers:
  - name: Acme API
    identifier: https://api.acme.example/
    scopes:
      - value: read:things
        description: Read things
clients:
  - name: Acme Web
    app_type: regular_web
    callbacks:
      - https://acme.example/callback
    grant_types:
      - authorization_code
      - refresh_token
  - name: Acme SPA
    app_type: spa
    callbacks:
      - https://spa.acme.example/callback
databases:
  - name: acme-users
    strategy: auth0
    enabled_clients:
      - Acme Web
      - Acme SPA
actions:
  - name: Acme claims
    code: ./actions/acme-claims.js
    runtime: node22
    deployed: true
    dependencies: []
    secrets:
      - name: API_KEY
        value: acme-secret
    supported_triggers:
      - id: post-login
        version: v3
triggers:
  post-login:
    - action_name: Acme claims
      display_name: Acme claims first
`;

const ACTION_CODE = "exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('https://acme.example/key', event.secrets.API_KEY); };\n";

/**
 * The platform's deploy CLI, unmodified, imports a small YAML tenant (an API, applications, a database connection
 * with its enabled applications, tenant settings, an action deployed and bound to post-login) into Latchkey over
 * real HTTPS. The tenant already holds part of it, differently (the web application, the API and the connection,
 * made through the Management API), so that the
 * one import both updates what exists in place and creates what does not: each run of the CLI costs about 40 s of
 * CPU (it validates its whole schema with ajv), so the suite runs it once. The CLI builds https://{AUTH0_DOMAIN}/...
 * URLs only, so Latchkey runs with a local certificate that the child process trusts through NODE_EXTRA_CA_CERTS.
 */
describe('the platform deploy CLI (npm auth0-deploy-cli) against Latchkey over HTTPS', () => {
  let server: TestServer;
  let api: ManagementApi;
  let dir: string;

  beforeAll(async () => {
    const tls = localTls();
    dir = mkdtempSync(join(tmpdir(), 'latchkey-deploy-cli-'));
    writeFileSync(join(dir, 'ca.pem'), tls.cert);
    server = await startTestServer({ dialect: 'sqlite', listen: true, https: tls });
    api = managementApi(server);
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        AUTH0_DOMAIN: new URL(server.url).host,
        AUTH0_CLIENT_ID: ADMIN_CLIENT_ID,
        AUTH0_CLIENT_SECRET: ADMIN_CLIENT_SECRET,
        AUTH0_ALLOW_DELETE: false,
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `a0deploy import` on the YAML; answers its output, and fails the test with it when the CLI fails. */
  async function importTenant(yaml: string): Promise<string> {
    writeFileSync(join(dir, 'tenant.yaml'), yaml);
    mkdirSync(join(dir, 'actions'), { recursive: true });
    writeFileSync(join(dir, 'actions', 'acme-claims.js'), ACTION_CODE);
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, 'import', '--config_file', join(dir, 'config.json'), '--input_file', join(dir, 'tenant.yaml')], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
        timeout: 240_000,
      });
      return stdout + stderr;
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`a0deploy import failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
    }
  }

  const clientNamed = async (name: string) => {
    const clients = (await api('GET', '/clients?is_global=false&fields=client_id,name,app_type&include_fields=true')).body;
    return clients.find((client) => client.name === name);
  };

  it('creates what is missing and updates in place what exists: applications, an API, a database connection with its enabled applications, the tenant settings, an action and its binding', async () => {
    const before = {
      web: (await api('POST', '/clients', { name: 'Acme Web', app_type: 'spa', callbacks: ['https://old.acme.example/callback'] })).body,
      api: (await api('POST', '/resource-servers', { identifier: 'https://api.acme.example/', name: 'Old API name', scopes: [{ value: 'old:scope' }] })).body,
      connection: (await api('POST', '/connections', { name: 'acme-users', strategy: 'auth0' })).body,
    };
    expect(await importTenant(TENANT_YAML)).toContain('Import Successful');
    const web = await clientNamed('Acme Web');
    const spa = await clientNamed('Acme SPA');
    // Updated in place (the same id), and created.
    expect(web).toMatchObject({ client_id: before.web.client_id, app_type: 'regular_web' });
    expect((await api('GET', `/clients/${String(web?.client_id)}`)).body).toMatchObject({ callbacks: ['https://acme.example/callback'], grant_types: ['authorization_code', 'refresh_token'] });
    expect(spa).toMatchObject({ app_type: 'spa' });
    expect((await api('GET', '/clients?app_type=regular_web,spa')).body.filter((client) => String(client.name).startsWith('Acme '))).toHaveLength(2);
    expect((await api('GET', `/resource-servers/${encodeURIComponent('https://api.acme.example/')}`)).body).toMatchObject({ id: before.api.id, name: 'Acme API', scopes: [{ value: 'read:things' }] });
    const [connection] = (await api('GET', '/connections?name=acme-users')).body;
    expect(connection?.id).toBe(before.connection.id);
    const enabled = ((await api('GET', `/connections/${String(connection?.id)}/clients`)).body.clients as { client_id: string }[]).map((client) => client.client_id).sort();
    expect(enabled).toEqual([String(web?.client_id), String(spa?.client_id)].sort());
    expect((await api('GET', '/tenants/settings')).body).toMatchObject({
      friendly_name: 'Acme Deployed',
      support_email: 'support@acme.example',
      support_url: 'https://acme.example/help',
      session_lifetime: 48,
      idle_session_lifetime: 12,
      default_directory: 'acme-users',
      default_audience: 'https://api.acme.example/',
    });
    // An action created, built, deployed (the CLI deploys once the build says `built`) and bound by name.
    const [action] = (await api('GET', '/actions/actions?actionName=Acme%20claims')).body.actions as { id: string }[];
    expect(action).toMatchObject({ status: 'built', code: ACTION_CODE, secrets: [{ name: 'API_KEY' }], deployed_version: { number: 1, deployed: true } });
    expect((await api('GET', '/actions/triggers/post-login/bindings')).body.bindings).toMatchObject([{ display_name: 'Acme claims first', action: { id: action?.id } }]);
    expect((await server.registry.actions.bound.bound('post-login'))[0]?.secrets).toEqual({ API_KEY: 'acme-secret' });
  }, 600_000);
});
