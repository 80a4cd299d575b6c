import type { ManagementClient } from 'auth0';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { eventually } from './support/eventually.js';
import { DIALECTS, postgresAvailable } from './support/services.js';

/** `greeting@1.0.0`, which requires its own dependency `shout@2.1.0` (test/fixtures/actions-modules). */
const MODULES_DIR = fileURLToPath(new URL('./fixtures/actions-modules', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const postLogin = [{ id: 'post-login' as const, version: 'v3' }];
const claimCode = (claim: string) => `exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('https://example.com/claim', ${JSON.stringify(claim)}); };`;

/**
 * The Actions of the Management API through the official SDK (npm auth0) over HTTPS, on both dialects: actions and
 * their secrets, builds with dependencies from a modules directory, deploys, versions and rollbacks, the triggers'
 * bindings, tests of a draft in the sandbox, executions, and what the triggers read (BoundActions), cached until a
 * write; with the platform's statuses, error codes and scopes.
 */
describe.each(DIALECTS)('the Actions Management API (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect, env: { LATCHKEY_ACTIONS_MODULES_DIR: MODULES_DIR } });
    management = sdk.management;
    api = managementApi(sdk.server);
  }, 60_000);
  afterAll(async () => sdk?.close());

  const create = async (name: string, extra: Record<string, unknown> = {}) =>
    management.actions.create({ name, supported_triggers: postLogin, code: claimCode(name), ...extra });

  it('creates an action with secrets whose values are never answered, lists, reads and updates it', async () => {
    const created = await management.actions.create({ name: 'Secretive', supported_triggers: postLogin, code: claimCode('one'), secrets: [{ name: 'API_KEY', value: 'v4lue-of-the-key' }] }).withRawResponse();
    expect(created.rawResponse.status).toBe(201);
    const action = created.data;
    expect(action).toMatchObject({ name: 'Secretive', supported_triggers: postLogin, runtime: 'node22', status: 'built', dependencies: [], all_changes_deployed: false, secrets: [{ name: 'API_KEY' }] });
    expect(String(action.id)).toMatch(UUID);
    expect(action.deployed_version).toBeUndefined();
    // The value is in no answer, and is sealed at rest.
    const id = String(action.id);
    expect(JSON.stringify(await management.actions.get(id))).not.toContain('v4lue-of-the-key');
    expect(JSON.stringify(await sdk.server.registry.storage.actions.get(sdk.server.registry.tenantId, id))).not.toContain('v4lue-of-the-key');

    const other = await create('Other', { supported_triggers: [{ id: 'credentials-exchange' }] });
    expect(other.supported_triggers).toEqual([{ id: 'credentials-exchange', version: 'v2' }]);
    expect((await management.actions.list({ triggerId: 'post-login' })).data.map((found) => found.name)).toEqual(['Secretive']);
    expect((await management.actions.list({ actionName: 'Other' })).data.map((found) => found.id)).toEqual([other.id]);
    expect((await management.actions.list({ installed: true })).data).toEqual([]);
    // The platform's query names are camelCase; the list is paged with page/per_page and always says its total.
    expect(await api('GET', '/actions/actions?per_page=1&page=1')).toMatchObject({ status: 200, body: { actions: [{ name: 'Other' }], total: 2, page: 1, per_page: 1 } });
    expect((await api('GET', '/actions/actions?trigger_id=post-login')).status).toBe(400);

    // Named without a value, a secret keeps its value (and its update time); a new one is set now.
    const before = String(action.secrets?.[0]?.updated_at);
    const updated = await management.actions.update(id, { code: claimCode('two'), secrets: [{ name: 'API_KEY' }, { name: 'OTHER', value: 'second' }] });
    expect(updated).toMatchObject({ status: 'built', code: claimCode('two'), secrets: [{ name: 'API_KEY', updated_at: before }, { name: 'OTHER' }] });
    const opened = sdk.server.registry.actions.service;
    expect(JSON.stringify(await opened.get(id))).not.toContain('second');
    // A secret named without a value that the action does not have is refused, and nothing of the request applies.
    const unknown = await rejection(management.actions.update(id, { code: claimCode('three'), secrets: [{ name: 'NEW' }] }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toMatchObject({ errorCode: 'invalid_body', message: 'The secret NEW has no value.' });
    expect((await management.actions.get(id)).code).toBe(claimCode('two'));
    expect((await rejection(management.actions.update(id, { name: 'Other' }))).statusCode).toBe(409);
    expect((await rejection(create('Secretive'))).statusCode).toBe(409);
    expect((await management.actions.update(id, { name: 'Renamed' })).name).toBe('Renamed');
    const gone = await rejection(management.actions.get('00000000-0000-4000-8000-000000000000'));
    expect(gone.body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_resource', message: 'That action does not exist.' });
  });

  it('deploys versions, lists and reads them, and rolls back with or without the draft', async () => {
    const action = await create('Versioned');
    const id = String(action.id);
    const deployed = await management.actions.deploy(id).withRawResponse();
    expect(deployed.rawResponse.status).toBe(202);
    expect(deployed.data).toMatchObject({ number: 1, deployed: true, status: 'built', code: claimCode('Versioned'), action_id: id, action: { id, name: 'Versioned' } });
    const first = String(deployed.data.id);
    expect(await management.actions.get(id)).toMatchObject({ all_changes_deployed: true, deployed_version: { id: first, number: 1, deployed: true } });

    await management.actions.update(id, { code: claimCode('second') });
    expect((await management.actions.get(id)).all_changes_deployed).toBe(false);
    const second = await management.actions.deploy(id);
    expect(second).toMatchObject({ number: 2, code: claimCode('second') });
    const versions = await management.actions.versions.list(id);
    expect(versions.data.map((version) => [version.number, version.deployed])).toEqual([[2, true], [1, false]]);
    expect(await management.actions.versions.get(id, first)).toMatchObject({ number: 1, deployed: false, code: claimCode('Versioned'), action: { id } });
    expect(await api('GET', `/actions/actions/${id}/versions?per_page=1`)).toMatchObject({ body: { versions: [{ number: 2 }], total: 2, page: 0, per_page: 1 } });

    // A rollback makes a new version like the old one; the draft stays as it was unless update_draft is true.
    const rolledBack = await management.actions.versions.deploy(id, first).withRawResponse();
    expect(rolledBack.rawResponse.status).toBe(202);
    expect(rolledBack.data).toMatchObject({ number: 3, deployed: true, code: claimCode('Versioned') });
    expect(await management.actions.get(id)).toMatchObject({ code: claimCode('second'), all_changes_deployed: false, deployed_version: { number: 3 } });
    const withDraft = await management.actions.versions.deploy(id, String(second.id), { update_draft: true });
    expect(withDraft).toMatchObject({ number: 4, code: claimCode('second') });
    expect(await management.actions.get(id)).toMatchObject({ code: claimCode('second'), all_changes_deployed: true });
    expect((await rejection(management.actions.versions.get(id, '00000000-0000-4000-8000-000000000000'))).statusCode).toBe(404);
    expect((await rejection(management.actions.versions.deploy(id, '00000000-0000-4000-8000-000000000000'))).statusCode).toBe(404);
  });

  it('binds deployed actions to a trigger in order, refusing undeployed, unknown, duplicate and wrong-trigger actions', async () => {
    const a = await create('Bind A');
    const b = await create('Bind B', { secrets: [{ name: 'TOKEN', value: 'bound-secret' }] });
    const undeployed = await create('Bind undeployed');
    const exchange = await create('Bind exchange', { supported_triggers: [{ id: 'credentials-exchange' }], code: 'exports.onExecuteCredentialsExchange = async () => {};' });
    for (const action of [a, b, exchange]) await management.actions.deploy(String(action.id));

    const bound = await management.actions.triggers.bindings.updateMany('post-login', {
      bindings: [{ ref: { type: 'action_name', value: 'Bind B' } }, { ref: { type: 'action_id', value: String(a.id) }, display_name: 'A, second' }],
    });
    expect(bound.bindings?.map((binding) => [binding.action?.name, binding.display_name, binding.trigger_id])).toEqual([
      ['Bind B', 'Bind B', 'post-login'],
      ['Bind A', 'A, second', 'post-login'],
    ]);
    expect(bound.bindings?.[0]?.action?.deployed_version).toMatchObject({ number: 1, deployed: true });
    const listed = await management.actions.triggers.bindings.list('post-login');
    expect(listed.data.map((binding) => binding.action?.id)).toEqual([b.id, a.id]);

    // What the triggers run, in that order, with the code and the secrets opened.
    const running = await sdk.server.registry.actions.bound.bound('post-login');
    expect(running.map((entry) => [entry.actionName, entry.code, entry.secrets])).toEqual([
      ['Bind B', claimCode('Bind B'), { TOKEN: 'bound-secret' }],
      ['Bind A', claimCode('Bind A'), {}],
    ]);

    const refusals: [unknown, string][] = [
      [{ ref: { type: 'action_id', value: String(undeployed.id) } }, 'The action Bind undeployed has not been deployed: deploy it before binding it to a trigger.'],
      [{ ref: { type: 'action_name', value: 'Nobody' } }, 'The action Nobody does not exist.'],
      [{ ref: { type: 'action_id', value: String(exchange.id) } }, 'The action Bind exchange supports the trigger credentials-exchange, not post-login.'],
    ];
    for (const [entry, message] of refusals) {
      const refused = await rejection(management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { type: 'action_id', value: String(a.id) } }, entry as never] }));
      expect(refused.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body', message });
    }
    expect((await rejection(management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { value: String(a.id) } }, { ref: { type: 'action_name', value: 'Bind A' } }] }))).body).toMatchObject({
      message: 'The action Bind A is listed twice.',
    });
    // Nothing of a refused request applied.
    expect((await management.actions.triggers.bindings.list('post-login')).data.map((binding) => binding.action?.name)).toEqual(['Bind B', 'Bind A']);
    // An existing binding can be named by its id (to reorder).
    const [first, second] = listed.data;
    const reordered = await management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { type: 'binding_id', value: String(second?.id) } }, { ref: { type: 'binding_id', value: String(first?.id) } }] });
    expect(reordered.bindings?.map((binding) => binding.action?.name)).toEqual(['Bind A', 'Bind B']);
    expect((await api('GET', '/actions/triggers/no-such-trigger/bindings')).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_uri' });
    // A PATCH without a list leaves the trigger's bindings as they are.
    const unchanged = (await api('PATCH', '/actions/triggers/post-login/bindings', {})).body.bindings as { action: { name: string } }[];
    expect(unchanged.map((binding) => binding.action.name)).toEqual(['Bind A', 'Bind B']);

    const exchangeBinding = await management.actions.triggers.bindings.updateMany('credentials-exchange', { bindings: [{ ref: { type: 'action_name', value: 'Bind exchange' } }] });
    expect(exchangeBinding.bindings).toHaveLength(1);
    // A bound action keeps its trigger.
    const moved = await rejection(management.actions.update(String(exchange.id), { supported_triggers: postLogin }));
    expect(moved.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_operation' });
    await management.actions.triggers.bindings.updateMany('credentials-exchange', { bindings: [] });
    expect((await management.actions.triggers.bindings.list('credentials-exchange')).data).toEqual([]);
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [] });
  });

  it('deletes an action with its versions; one bound to a trigger only with force, which unbinds it', async () => {
    const kept = await create('Delete kept');
    const doomed = await create('Delete doomed');
    for (const action of [kept, doomed]) await management.actions.deploy(String(action.id));
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { value: String(doomed.id) } }, { ref: { value: String(kept.id) } }] });

    const refused = await rejection(management.actions.delete(String(doomed.id)));
    expect(refused.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_operation' });
    expect(String(refused.body.message)).toContain('force=true');
    expect((await management.actions.get(String(doomed.id))).name).toBe('Delete doomed');

    const deleted = await api('DELETE', `/actions/actions/${String(doomed.id)}?force=true`);
    expect(deleted.status).toBe(204);
    expect((await rejection(management.actions.get(String(doomed.id)))).statusCode).toBe(404);
    expect((await rejection(management.actions.versions.list(String(doomed.id)))).statusCode).toBe(404);
    expect((await management.actions.triggers.bindings.list('post-login')).data.map((binding) => binding.action?.name)).toEqual(['Delete kept']);
    expect((await sdk.server.registry.actions.bound.bound('post-login')).map((entry) => entry.actionName)).toEqual(['Delete kept']);
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [] });
    await management.actions.delete(String(kept.id));
    expect((await rejection(management.actions.delete(String(kept.id)))).statusCode).toBe(404);
  });

  it('tests the draft with a payload as the event: the api calls, the logs, and the error of code that throws', async () => {
    const code = `
      exports.onExecutePostLogin = async (event, api) => {
        console.log('hello', event.user.email);
        api.idToken.setCustomClaim('https://example.com/key', event.secrets.API_KEY);
        api.accessToken.setCustomClaim('https://example.com/email', event.user.email);
      };`;
    const action = await management.actions.create({ name: 'Tested', supported_triggers: postLogin, code, secrets: [{ name: 'API_KEY', value: 'from-the-draft' }] });
    const id = String(action.id);
    const result = await management.actions.test(id, { payload: { user: { email: 'ann@example.com' } } });
    expect(result.payload).toMatchObject({
      commands: [
        { op: 'idToken.setCustomClaim', args: ['https://example.com/key', 'from-the-draft'] },
        { op: 'accessToken.setCustomClaim', args: ['https://example.com/email', 'ann@example.com'] },
      ],
      logs: 'hello ann@example.com',
      stats: { action_duration_ms: expect.any(Number), total_request_duration_ms: expect.any(Number) },
    });
    // Secrets in the payload override the draft's, to try other values.
    expect((await management.actions.test(id, { payload: { user: { email: 'b@example.com' }, secrets: { API_KEY: 'tried' } } })).payload?.commands).toContainEqual({
      op: 'idToken.setCustomClaim',
      args: ['https://example.com/key', 'tried'],
    });

    await management.actions.update(id, { code: 'exports.onExecutePostLogin = async () => {\n  throw new TypeError("no user here");\n};' });
    const thrown = (await management.actions.test(id, { payload: {} })).payload;
    expect(thrown).toMatchObject({ error: { name: 'TypeError', message: 'no user here' } });
    expect(String((thrown?.error as { stack: string }).stack)).toContain('action.js:2');

    // Node's built-ins are never there: require('fs') fails when the code runs, whatever it is built with.
    await management.actions.update(id, { code: "exports.onExecutePostLogin = async () => { require('fs').readFileSync('/etc/passwd'); };" });
    expect((await management.actions.get(id)).status).toBe('built');
    expect((await management.actions.test(id, { payload: {} })).payload?.error).toMatchObject({ name: 'Error', message: expect.stringContaining("Cannot find module 'fs'") });

    await management.actions.update(id, { code: 'exports.onExecutePostLogin = async (' });
    expect((await rejection(management.actions.test(id, { payload: {} }))).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_operation' });
    expect((await api('POST', `/actions/actions/${id}/test`, {})).body).toMatchObject({ statusCode: 400, errorCode: 'invalid_body' });
  });

  it('lists the six triggers at their current versions', async () => {
    const { triggers } = await management.actions.triggers.list();
    expect(triggers?.map((trigger) => `${trigger.id} ${trigger.version}`)).toEqual([
      'post-login v3',
      'credentials-exchange v2',
      'pre-user-registration v2',
      'post-user-registration v2',
      'post-change-password v2',
      'send-phone-message v2',
    ]);
    expect(triggers?.[0]).toEqual({ id: 'post-login', version: 'v3', status: 'CURRENT', runtimes: ['node18-actions', 'node22'], default_runtime: 'node22', compatible_triggers: [], binding_policy: 'trigger-bound' });
  });

  it('answers an execution recorded by the triggers, until it expires', async () => {
    const started = '2026-01-01T00:00:00.000Z';
    const id = await sdk.server.registry.actions.bound.recordExecution('post-login', 'final', [
      { action_name: 'First', error: null, started_at: started, ended_at: started },
      { action_name: 'Second', error: { id: 'invalid_argument', msg: 'Bad claim' }, started_at: started, ended_at: started },
    ]);
    expect(id).toMatch(UUID);
    const execution = await management.actions.executions.get(id);
    expect(execution).toEqual({
      id,
      trigger_id: 'post-login',
      status: 'final',
      results: [
        { action_name: 'First', started_at: started, ended_at: started },
        { action_name: 'Second', error: { id: 'invalid_argument', msg: 'Bad claim' }, started_at: started, ended_at: started },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const expired = await sdk.server.registry.storage.actionExecutions.get(sdk.server.registry.tenantId, id, new Date(Date.now() + 11 * 86_400_000).toISOString());
    expect(expired).toBeUndefined();
    expect((await rejection(management.actions.executions.get('00000000-0000-4000-8000-000000000000'))).body).toMatchObject({ statusCode: 404, message: 'That execution does not exist.' });
  });

  it('bundles declared dependencies from the modules directory; undeclared, missing and mismatched ones fail the build with clear errors', async () => {
    const code = "const { greet } = require('greeting');\nexports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('greeting', greet(event.user.name)); };";
    const action = await management.actions.create({ name: 'With dependency', supported_triggers: postLogin, code, dependencies: [{ name: 'greeting', version: '1.0.0' }] });
    expect(action).toMatchObject({ status: 'built', dependencies: [{ name: 'greeting', version: '1.0.0' }] });
    const id = String(action.id);
    expect((await management.actions.test(id, { payload: { user: { name: 'ann' } } })).payload?.commands).toEqual([{ op: 'idToken.setCustomClaim', args: ['greeting', 'Hello, ANN!'] }]);
    await management.actions.deploy(id);
    const [version] = (await sdk.server.registry.storage.actions.listVersions(sdk.server.registry.tenantId, id, { offset: 0, limit: 1 })).items;
    expect(await sdk.server.registry.storage.actions.versionBundle(sdk.server.registry.tenantId, String(version?.id))).toContain('String(text).toUpperCase()');

    const failures: [Record<string, unknown>, { id: string; msg: string }][] = [
      [{ code: "require('greeting');", dependencies: [] }, { id: 'undeclared_module', msg: "The module greeting is not declared: add it to the action's dependencies (line 1, column 9)." }],
      // Installed, but only as greeting's own dependency: the action did not declare it.
      [{ code: "require('shout');", dependencies: [{ name: 'greeting', version: '1.0.0' }] }, { id: 'undeclared_module', msg: "The module shout is not declared: add it to the action's dependencies (line 1, column 9)." }],
      [{ code: "require('absent');", dependencies: [{ name: 'absent', version: '1.0.0' }] }, { id: 'module_not_installed', msg: 'The dependency absent is not installed in the modules directory (LATCHKEY_ACTIONS_MODULES_DIR).' }],
      [{ code: "require('greeting');", dependencies: [{ name: 'greeting', version: '2.0.0' }] }, { id: 'module_version_mismatch', msg: 'The dependency greeting is declared at version 2.0.0, but version 1.0.0 is installed in the modules directory.' }],
      [{ code: 'exports.onExecutePostLogin = async (event => {', dependencies: [] }, { id: 'syntax_error', msg: expect.stringContaining('(line 1, column') }],
      [{ code: "require('./local-file');", dependencies: [] }, { id: 'invalid_import', msg: expect.stringContaining('can only require its declared dependencies') }],
    ];
    for (const [change, error] of failures) {
      const failed = await management.actions.update(id, change);
      expect(failed, JSON.stringify(change)).toMatchObject({ status: 'failed', errors: [error] });
      const refused = await rejection(management.actions.deploy(id));
      expect(refused.body).toMatchObject({ statusCode: 400, errorCode: 'invalid_operation' });
      expect(String(refused.body.message)).toContain("The action's draft failed to build and cannot be deployed or tested");
      if (typeof error.msg === 'string') expect(String(refused.body.message)).toContain(error.msg);
    }
    // The deployed version still runs what it was built with.
    expect((await management.actions.get(id)).deployed_version).toMatchObject({ number: 1, dependencies: [{ name: 'greeting', version: '1.0.0' }] });
    expect(await management.actions.update(id, { code, dependencies: [{ name: 'greeting', version: 'latest' }] })).toMatchObject({ status: 'built' });
    expect(await management.actions.deploy(id)).toMatchObject({ number: 2 });
  });

  it('refuses bad input (400) and missing scopes (403), applying nothing', async () => {
    const before = (await api('GET', '/actions/actions')).body.total;
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x', supported_triggers: [{ id: 'post-login' }, { id: 'credentials-exchange' }] }, "Payload validation error: 'Array is too long (2), maximum 1' on property supported_triggers"],
      [{ name: 'x', supported_triggers: [{ id: 'custom-email-provider' }] }, 'The trigger custom-email-provider is not supported.'],
      [{ name: 'x', supported_triggers: postLogin, runtime: 'python3' }, 'The runtime python3 is not supported (e.g. node22).'],
      [{ name: 'x', supported_triggers: postLogin, secrets: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }, 'The secret A is listed twice.'],
      [{ name: 'x', supported_triggers: postLogin, secrets: [{ name: 'A' }] }, 'The secret A has no value.'],
      [{ name: 'x', supported_triggers: postLogin, modules: [{ module_name: 'm' }] }, 'Action modules are not supported; declare npm dependencies instead.'],
      [{ name: 'x', supported_triggers: postLogin, dependencies: [{ name: '../etc', version: '1' }] }, "Payload validation error: 'String does not match the required format"],
      [{ name: 'x', supported_triggers: postLogin, colour: 'red' }, "Payload validation error: 'Additional properties not allowed: colour'"],
    ];
    for (const [body, message] of bad) {
      const answer = await api('POST', '/actions/actions', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(String(answer.body.message)).toContain(message);
    }
    expect((await api('GET', '/actions/actions')).body.total).toBe(before);

    const token = await sdk.server.token('read:actions');
    const call = (method: string, path: string, body?: unknown) => api(method, path, body, token);
    expect((await call('GET', '/actions/actions')).status).toBe(200);
    expect((await call('GET', '/actions/triggers')).status).toBe(200);
    for (const [method, path, scope] of [
      ['POST', '/actions/actions', 'create:actions'],
      ['PATCH', '/actions/actions/x', 'update:actions'],
      ['DELETE', '/actions/actions/x', 'delete:actions'],
      ['POST', '/actions/actions/x/deploy', 'create:actions'],
      ['POST', '/actions/actions/x/test', 'create:actions'],
      ['POST', '/actions/actions/x/versions/y/deploy', 'create:actions'],
      ['PATCH', '/actions/triggers/post-login/bindings', 'update:actions'],
    ] as const) {
      const forbidden = await call(method, path, method === 'DELETE' ? undefined : {});
      expect(forbidden, `${method} ${path}`).toMatchObject({ status: 403, body: { message: `Insufficient scope, expected any of: ${scope}` } });
    }
    expect((await api('GET', '/actions/actions', undefined, await sdk.server.token('read:users'))).status).toBe(403);

    // Each change is in the tenant log as `sapi`.
    await sdk.server.registry.events.flush();
    const logged = (await api('GET', `/logs?q=${encodeURIComponent('type:sapi')}&per_page=100`)).body as unknown as { description: string }[];
    const described = new Set(logged.map((event) => event.description));
    for (const summary of ['Create an action', 'Deploy an action', 'Update a trigger\u2019s bindings', 'Roll back to a previous version of an action']) expect(described.has(summary), summary).toBe(true);
  });

  it('keeps what a trigger runs cached until an action or a binding is written', async () => {
    const action = await create('Cached');
    await management.actions.deploy(String(action.id));
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { value: String(action.id) } }] });
    const bound = sdk.server.registry.actions.bound;
    expect((await bound.bound('post-login')).map((entry) => entry.actionName)).toEqual(['Cached']);
    // A write that goes around the repositories is not announced: the cache answers without reading the database.
    await sdk.server.registry.storage.dialect.db.deleteFrom('action_bindings').execute();
    expect((await bound.bound('post-login')).map((entry) => entry.actionName)).toEqual(['Cached']);
    // A write through the API is announced, and clears it.
    await management.actions.update(String(action.id), { name: 'Cached, renamed' });
    expect(await bound.bound('post-login')).toEqual([]);
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [{ ref: { value: String(action.id) } }] });
    expect((await bound.bound('post-login')).map((entry) => entry.actionName)).toEqual(['Cached, renamed']);
    await management.actions.triggers.bindings.updateMany('post-login', { bindings: [] });
  });
});

/** Two nodes on one PostgreSQL schema: a write on one clears the other's cache of what a trigger runs (change bus). */
describe.runIf(postgresAvailable)('what a trigger runs, on two nodes', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ dialect: 'postgres', listen: true });
    // Caches kept for 5 minutes on node B: only the change bus can clear them within the test's time.
    b = await startTestServer({ dialect: 'postgres', listen: true, shareWith: a, env: { LATCHKEY_CONFIG_CACHE_SECONDS: '300' } });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('sees a binding made through the other node at once', async () => {
    const apiA = managementApi(a, 'socket');
    expect(await b.registry.actions.bound.bound('post-login')).toEqual([]);
    const created = (await apiA('POST', '/actions/actions', { name: 'Elsewhere', supported_triggers: postLogin, code: claimCode('elsewhere'), deploy: true })).body;
    expect(created).toMatchObject({ status: 'built', deployed_version: { number: 1 } });
    expect((await apiA('PATCH', '/actions/triggers/post-login/bindings', { bindings: [{ ref: { type: 'action_id', value: created.id } }] })).status).toBe(200);
    await eventually('node B runs the action bound through node A', async () => (await b.registry.actions.bound.bound('post-login')).length === 1, 5000);
    expect((await b.registry.actions.bound.bound('post-login'))[0]).toMatchObject({ actionName: 'Elsewhere', code: claimCode('elsewhere') });
  });
});
