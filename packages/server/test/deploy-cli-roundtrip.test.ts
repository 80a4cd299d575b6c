import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTls } from './support/certificates.js';
import { deployTarget, exportTenant, importFamilyByFamily, importTenant, type DeployTarget } from './support/deploy-cli.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { tenantSnapshot } from './support/tenant-snapshot.js';

const FIXTURE = new URL('./fixtures/platform-export/tenant.yaml', import.meta.url).pathname;
const ACTION_CODE = "exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('https://acme.example/plan', 'pro'); };\n";

/** One object of every family Latchkey has, made through the Management API. */
async function populate(api: ManagementApi) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await api(method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  await call('PATCH', '/tenants/settings', {
    friendly_name: 'Acme',
    support_email: 'support@acme.example',
    support_url: 'https://acme.example/help',
    session_lifetime: 48,
    idle_session_lifetime: 12,
    enabled_locales: ['en', 'fr'],
  });
  const api1 = await call('POST', '/resource-servers', { identifier: 'https://api.acme.example/', name: 'Acme API', token_lifetime: 3600, scopes: [{ value: 'read:things', description: 'Read things' }] });
  const web = await call('POST', '/clients', { name: 'Acme Web', app_type: 'regular_web', callbacks: ['https://acme.example/callback'], allowed_logout_urls: ['https://acme.example/'] });
  const spa = await call('POST', '/clients', { name: 'Acme SPA', app_type: 'spa', callbacks: ['https://spa.acme.example/callback'], web_origins: ['https://spa.acme.example'] });
  const worker = await call('POST', '/clients', { name: 'Acme Worker', app_type: 'non_interactive' });
  await call('POST', '/client-grants', { client_id: worker.client_id, audience: api1.identifier, scope: ['read:things'] });
  // The CLI's schema writes its default of this option into every database it imports; stated here too, so that
  // both tenants hold the same options.
  const users = await call('POST', '/connections', { name: 'acme-users', strategy: 'auth0', enabled_clients: [web.client_id, spa.client_id], options: { disable_self_service_change_password: false } });
  await call('POST', '/connections', {
    name: 'acme-workforce',
    strategy: 'oidc',
    enabled_clients: [web.client_id],
    options: {
      type: 'back_channel',
      issuer: 'https://login.workforce.example',
      authorization_endpoint: 'https://login.workforce.example/authorize',
      token_endpoint: 'https://login.workforce.example/token',
      jwks_uri: 'https://login.workforce.example/jwks',
      client_id: 'acme',
      client_secret: 'workforce-secret',
      scope: 'openid profile email',
    },
  });
  await call('PATCH', '/tenants/settings', { default_directory: 'acme-users', default_audience: api1.identifier });
  const role = await call('POST', '/roles', { name: 'Reader', description: 'Reads things' });
  await call('POST', `/roles/${String(role.id)}/permissions`, { permissions: [{ resource_server_identifier: api1.identifier, permission_name: 'read:things' }] });
  const organization = await call('POST', '/organizations', { name: 'acme-east', display_name: 'Acme East', branding: { colors: { primary: '#0055aa', page_background: '#ffffff' } } });
  await call('POST', `/organizations/${String(organization.id)}/enabled_connections`, { connection_id: users.id, assign_membership_on_login: true });
  const action = await call('POST', '/actions/actions', { name: 'Acme plan', code: ACTION_CODE, runtime: 'node22', supported_triggers: [{ id: 'post-login', version: 'v3' }] });
  for (let tries = 0; (await call('GET', `/actions/actions/${String(action.id)}`)).status !== 'built'; tries += 1) {
    if (tries > 100) throw new Error('the action was not built');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await call('POST', `/actions/actions/${String(action.id)}/deploy`);
  await call('PATCH', '/actions/triggers/post-login/bindings', { bindings: [{ ref: { type: 'action_id', value: action.id }, display_name: 'Acme plan' }] });
  await call('PATCH', '/prompts', { universal_login_experience: 'new', identifier_first: true });
  await call('PUT', '/prompts/login-id/custom-text/en', { 'login-id': { title: 'Welcome to Acme' } });
  await call('PUT', '/prompts/login-id/custom-text/fr', { 'login-id': { title: 'Bienvenue chez Acme' } });
  await call('PATCH', '/prompts/login-id/screen/login-id/rendering', { rendering_mode: 'advanced', head_tags: [{ tag: 'script', attributes: { src: 'https://cdn.acme.example/login.js', defer: true } }] });
  await call('PATCH', '/branding', { colors: { primary: '#112233', page_background: '#fafafa' }, logo_url: 'https://acme.example/logo.png', favicon_url: 'https://acme.example/favicon.ico' });
  await call('PUT', '/guardian/factors/otp', { enabled: true });
  await call('PUT', '/guardian/factors/recovery-code', { enabled: true });
  await call('PUT', '/guardian/policies', ['all-applications']);
  await call('PATCH', '/attack-protection/brute-force-protection', { max_attempts: 7 });
  await call('PATCH', '/attack-protection/breached-password-detection', { enabled: true });
  await call('PATCH', '/attack-protection/suspicious-ip-throttling', { allowlist: ['198.51.100.7'] });
  await call('POST', '/log-streams', { name: 'Acme SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.acme.example/in', httpContentType: 'application/json', httpContentFormat: 'JSONLINES' } });
}

/** The top-level families of a YAML export, with whether each holds anything. */
function yamlFamilies(text: string): Record<string, 'empty' | 'data'> {
  const families: Record<string, 'empty' | 'data'> = {};
  for (const match of text.matchAll(/^([A-Za-z]+):(.*)$/gm)) {
    const [, name = '', rest = ''] = match;
    families[name] = /^\s*(\[\]|\{\}|null)?\s*$/.test(rest) && rest.trim() !== '' ? 'empty' : 'data';
  }
  return families;
}

/** Families Latchkey has, each with data in the export of the populated tenant. */
const EXPORTED_WITH_DATA = [
  'tenant', 'resourceServers', 'clients', 'clientGrants', 'databases', 'connections', 'roles', 'organizations', 'actions', 'triggers',
  'prompts', 'branding', 'guardianFactors', 'guardianPolicies', 'guardianPhoneFactorSelectedProvider', 'guardianPhoneFactorMessageTypes',
  'attackProtection', 'riskAssessment', 'logStreams', 'supplementalSignals',
];
/**
 * Families Latchkey lacks: present in the export, and empty, as for a platform tenant without them (the CLI writes
 * no line at all for empty action modules and network ACLs, so those two are not listed).
 */
const EXPORTED_EMPTY = [
  'rules', 'rulesConfigs', 'hooks', 'pages', 'emailProvider', 'emailTemplates', 'guardianFactorProviders', 'phoneProviders', 'phoneTemplates',
  'customDomains', 'themes', 'forms', 'flows', 'flowVaultConnections', 'selfServiceProfiles', 'userAttributeProfiles',
  'connectionProfiles', 'tokenExchangeProfiles', 'rateLimitPolicies', 'eventStreams',
];

/**
 * Moving a tenant with the platform's deploy CLI, unmodified, over real HTTPS: a populated tenant is exported with no
 * exclusions in both formats, each export is imported into a fresh Latchkey, and the tenants compare equal through
 * the Management API; then an export written as the platform writes one, with every family the CLI knows, shows
 * which families apply and which are refused, naming the family. Each import costs the CLI ~40 s of CPU (its schema
 * check), so the suite runs one here (the YAML, whose assets the schema checks) and goes through the CLI's loader and
 * handlers alone for the directory and the platform export (support/deploy-cli-probe.mjs).
 */
describe('moving a tenant with the platform deploy CLI (npm auth0-deploy-cli)', () => {
  const tls = localTls();
  let dir: string;
  let source: TestServer;
  let fromYaml: TestServer;
  let fromDirectory: TestServer;
  let fresh: TestServer;
  const targets: Record<string, DeployTarget> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-deploy-roundtrip-'));
    const start = () => startTestServer({ dialect: 'sqlite', listen: true, https: tls });
    [source, fromYaml, fromDirectory, fresh] = await Promise.all([start(), start(), start(), start()]);
    for (const [name, server] of Object.entries({ source, fromYaml, fromDirectory, fresh })) targets[name] = deployTarget(server, tls.cert, dir, name);
    await populate(managementApi(source));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([source, fromYaml, fromDirectory, fresh].map((server) => server?.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // The two tests use their own servers and mostly wait on the CLI's pacing (8 requests a second): they run at once.
  it.concurrent('exports every family in YAML and as a directory, imports each into a fresh tenant, and the tenants compare equal', async () => {
    const yamlFolder = join(dir, 'yaml');
    const directory = join(dir, 'directory');
    const [yamlOutput, directoryOutput] = await Promise.all([exportTenant(targets.source!, 'yaml', yamlFolder), exportTenant(targets.source!, 'directory', directory)]);
    expect(yamlOutput).toContain('Export Successful');
    expect(directoryOutput).toContain('Export Successful');

    const yaml = readFileSync(join(yamlFolder, 'tenant.yaml'), 'utf8');
    const families = yamlFamilies(yaml);
    expect(Object.fromEntries(EXPORTED_WITH_DATA.map((name) => [name, families[name]]))).toEqual(Object.fromEntries(EXPORTED_WITH_DATA.map((name) => [name, 'data'])));
    expect(Object.fromEntries(EXPORTED_EMPTY.map((name) => [name, families[name]]))).toEqual(Object.fromEntries(EXPORTED_EMPTY.map((name) => [name, 'empty'])));
    // The Management API is the system API: the CLI leaves it out; the other APIs and the applications are there.
    expect(yaml).not.toContain('/api/v2/');
    for (const text of ['Acme API', 'Acme Web', 'Acme SPA', 'Acme Worker', 'acme-users', 'acme-workforce', 'Reader', 'acme-east', 'Acme plan', 'Welcome to Acme', 'Bienvenue chez Acme', 'Acme SIEM', '#112233']) {
      expect(yaml).toContain(text);
    }
    // The directory format: one folder or file per family, holding the same objects.
    const folders = readdirSync(directory);
    for (const folder of ['clients', 'resource-servers', 'grants', 'database-connections', 'connections', 'roles', 'organizations', 'actions', 'triggers', 'prompts', 'branding', 'guardian', 'attack-protection', 'log-streams', 'tenant.json']) {
      expect(folders).toContain(folder);
    }
    expect(readdirSync(join(directory, 'clients')).sort()).toEqual(['Acme SPA.json', 'Acme Web.json', 'Acme Worker.json', 'Latchkey Admin (bootstrap).json']);
    expect(existsSync(join(directory, 'connections', 'acme-workforce.json'))).toBe(true);
    expect(readFileSync(join(directory, 'database-connections', 'acme-users', 'database.json'), 'utf8')).toContain('Acme SPA');

    // The YAML goes through `a0deploy import` itself; the directory, which the CLI loads into the same assets,
    // through its own loader and handlers without repeating the schema check (~40 s of CPU): every family applies.
    const [yamlImport, directoryImport] = await Promise.all([importTenant(targets.fromYaml!, join(yamlFolder, 'tenant.yaml')), importFamilyByFamily(targets.fromDirectory!, directory)]);
    expect(yamlImport).toContain('Import Successful');
    expect(Object.entries(directoryImport).filter(([, outcome]) => !outcome.ok)).toEqual([]);
    expect(Object.keys(directoryImport)).toEqual(expect.arrayContaining(['clients', 'resourceServers', 'databases', 'connections', 'roles', 'organizations', 'actions', 'triggers', 'prompts']));

    const expected = await tenantSnapshot(source);
    expect(await tenantSnapshot(fromYaml)).toEqual(expected);
    expect(await tenantSnapshot(fromDirectory)).toEqual(expected);
  }, 600_000);

  it.concurrent('imports an export of the platform: the families Latchkey has apply, each family it lacks is refused naming it', async () => {
    const outcomes = await importFamilyByFamily(targets.fresh!, FIXTURE);
    const summary = Object.fromEntries(Object.entries(outcomes).map(([family, outcome]) => [family, outcome.ok ? 'applied' : (/Latchkey has no [^.:]+/.exec(outcome.message ?? '')?.[0] ?? outcome.message)]));
    expect(summary).toEqual({
      // Applied (or nothing to do: the platform export has none of them).
      resourceServers: 'applied', clients: 'applied', clientGrants: 'applied', databases: 'applied', connections: 'applied', tenant: 'applied',
      roles: 'applied', organizations: 'applied', actions: 'applied', triggers: 'applied', prompts: 'applied', branding: 'applied',
      guardianFactors: 'applied', guardianPolicies: 'applied', logStreams: 'applied', actionModules: 'applied', flowVaultConnections: 'applied',
      userAttributeProfiles: 'applied', connectionProfiles: 'applied', tokenExchangeProfiles: 'applied', rateLimitPolicies: 'applied', clientAuthCredentials: 'applied',
      // Refused, naming what Latchkey lacks.
      rules: 'Latchkey has no rules',
      rulesConfigs: 'Latchkey has no rules configs',
      hooks: 'Latchkey has no hooks',
      pages: 'Latchkey has no classic login page (pages)',
      emailProvider: 'Latchkey has no e-mail provider settings',
      emailTemplates: 'Latchkey has no e-mail templates',
      guardianFactorProviders: 'Latchkey has no multi-factor providers',
      guardianFactorTemplates: 'Latchkey has no multi-factor message templates',
      guardianPhoneFactorSelectedProvider: 'Latchkey has no phone factor provider choice',
      guardianPhoneFactorMessageTypes: 'Latchkey has no phone factor provider choice',
      phoneProviders: 'Latchkey has no phone providers',
      phoneTemplates: 'Latchkey has no phone templates',
      attackProtection: 'Latchkey has no bot detection',
      riskAssessment: 'Latchkey has no risk assessment',
      customDomains: 'Latchkey has no custom domains',
      themes: 'Latchkey has no themes',
      forms: 'Latchkey has no forms',
      flows: 'Latchkey has no flows',
      selfServiceProfiles: 'Latchkey has no self-service profiles',
      networkACLs: 'Latchkey has no network ACLs',
      supplementalSignals: 'Latchkey has no supplemental signals',
      eventStreams: 'Latchkey has no event streams',
    });
    // Each refusal is the Management API's 400 (the CLI shows some with the whole error body).
    for (const outcome of Object.values(outcomes).filter(({ ok }) => !ok)) expect(outcome.statusCode === 400 || outcome.message?.includes('"statusCode": 400')).toBe(true);

    // What applied is there, as the export describes it.
    const api = managementApi(fresh);
    const clients = (await api('GET', '/clients?is_global=false')).body.map((client) => client.name).sort();
    expect(clients).toEqual(['Globex Billing Worker', 'Globex Mobile', 'Globex Portal', 'Latchkey Admin (bootstrap)']);
    const [workforce] = (await api('GET', '/connections?name=globex-workforce')).body;
    expect(workforce).toMatchObject({ strategy: 'oidc', options: { issuer: 'https://login.globex-workforce.example' } });
    const enabled = ((await api('GET', `/connections/${String(workforce?.id)}/clients`)).body.clients as { client_id: string }[]).map((client) => client.client_id);
    const portal = (await api('GET', '/clients?is_global=false')).body.find((client) => client.name === 'Globex Portal');
    expect(enabled).toEqual([portal?.client_id]);
    expect((await api('GET', '/tenants/settings')).body).toMatchObject({ friendly_name: 'Globex', session_lifetime: 72, enabled_locales: ['en', 'fr'] });
    expect((await api('GET', '/prompts/login-id/custom-text/fr')).body).toEqual({ 'login-id': { title: 'Connexion à Globex' } });
    const [organization] = (await api('GET', '/organizations')).body;
    expect((await api('GET', `/organizations/${String(organization?.id)}/enabled_connections`)).body).toMatchObject([{ assign_membership_on_login: true, connection: { name: 'globex-users' } }]);
    expect((await api('GET', '/guardian/factors')).body.filter((factor) => factor.enabled).map((factor) => factor.name).sort()).toEqual(['otp', 'recovery-code']);
    // Nothing of a refused family was kept.
    expect((await api('GET', '/rules')).body).toEqual([]);
    expect((await api('GET', '/custom-domains')).body).toEqual([]);
    expect((await api('GET', '/risk-assessments/settings')).body).toEqual({ enabled: false });
  }, 300_000);
});
