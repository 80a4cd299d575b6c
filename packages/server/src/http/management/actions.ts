import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import {
  Action,
  ActionBinding,
  ActionExecution,
  ActionParams,
  ActionTriggerView,
  ActionVersion,
  BindingsBody,
  CreateActionBody,
  DeleteActionQuery,
  DeployVersionBody,
  ExecutionParams,
  ListActionsQuery,
  pageOf,
  PageQuery,
  TestActionBody,
  TestResult,
  TriggerParams,
  UpdateActionBody,
  VersionParams,
  VersionsParams,
} from './action-schemas.js';
import { ERROR_RESPONSES } from './schemas.js';

const tags = ['actions'];

/** The window of a page and how the answer names it (`page`, `per_page`); `perPage` is the list's default size. */
function paging(query: { page?: number; per_page?: number }, perPage: number) {
  const page = query.page ?? 0;
  const limit = query.per_page ?? perPage;
  return { window: { offset: page * limit, limit }, page, per_page: limit };
}

/**
 * `/api/v2/actions`: actions and their drafts, deploys and versions, the triggers and what each runs (bindings),
 * tests of a draft, and executions, with the platform's paths, bodies, statuses and scopes (a token needs any one
 * of a route's scopes). Every change is in the tenant log as `sapi` (http/management/log-events.ts).
 */
export function actionsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const actions = registry.actions.service;

    app.get(
      '/actions/actions',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'List actions', querystring: ListActionsQuery, response: { 200: pageOf('actions', Action), ...ERROR_RESPONSES } } },
      async (request) => {
        const { window, ...page } = paging(request.query, 50);
        const { triggerId, actionName, deployed, installed } = request.query;
        const found = await actions.list({ triggerId, actionName, deployed, installed }, window);
        return { actions: found.items, total: found.total, ...page };
      },
    );
    app.post(
      '/actions/actions',
      { config: { scopes: ['create:actions'] }, schema: { tags, summary: 'Create an action', body: CreateActionBody, response: { 201: Action, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await actions.create(request.body)),
    );
    app.get(
      '/actions/actions/:id',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'Get an action', params: ActionParams, response: { 200: Action, ...ERROR_RESPONSES } } },
      async (request) => actions.get(request.params.id),
    );
    app.patch(
      '/actions/actions/:id',
      { config: { scopes: ['update:actions'] }, schema: { tags, summary: 'Update an action', params: ActionParams, body: UpdateActionBody, response: { 200: Action, ...ERROR_RESPONSES } } },
      async (request) => actions.update(request.params.id, request.body),
    );
    app.delete(
      '/actions/actions/:id',
      {
        config: { scopes: ['delete:actions'] },
        schema: { tags, summary: 'Delete an action (one bound to a trigger only with force=true)', params: ActionParams, querystring: DeleteActionQuery, response: { 204: Type.Null(), ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        await actions.remove(request.params.id, request.query.force ?? false);
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/actions/actions/:id/deploy',
      { config: { scopes: ['create:actions'] }, schema: { tags, summary: 'Deploy an action', params: ActionParams, response: { 202: ActionVersion, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(202).send(await actions.deploy(request.params.id)),
    );
    app.post(
      '/actions/actions/:id/test',
      { config: { scopes: ['create:actions'] }, schema: { tags, summary: 'Test an action', params: ActionParams, body: TestActionBody, response: { 200: TestResult, ...ERROR_RESPONSES } } },
      async (request) => actions.test(request.params.id, request.body.payload),
    );

    app.get(
      '/actions/actions/:actionId/versions',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'List an action\u2019s versions', params: VersionsParams, querystring: PageQuery, response: { 200: pageOf('versions', ActionVersion), ...ERROR_RESPONSES } } },
      async (request) => {
        const { window, ...page } = paging(request.query, 20);
        const found = await actions.versions(request.params.actionId, window);
        return { versions: found.items, total: found.total, ...page };
      },
    );
    app.get(
      '/actions/actions/:actionId/versions/:id',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'Get a version of an action', params: VersionParams, response: { 200: ActionVersion, ...ERROR_RESPONSES } } },
      async (request) => actions.version(request.params.actionId, request.params.id),
    );
    app.post(
      '/actions/actions/:actionId/versions/:id/deploy',
      {
        config: { scopes: ['create:actions'] },
        schema: { tags, summary: 'Roll back to a previous version of an action', params: VersionParams, body: DeployVersionBody, response: { 202: ActionVersion, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const version = await actions.deployVersion(request.params.actionId, request.params.id, { updateDraft: request.body?.update_draft ?? false });
        return reply.code(202).send(version);
      },
    );

    app.get(
      '/actions/triggers',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'List the triggers', response: { 200: Type.Object({ triggers: Type.Array(ActionTriggerView) }), ...ERROR_RESPONSES } } },
      async () => ({ triggers: actions.triggers() }),
    );
    app.get(
      '/actions/triggers/:triggerId/bindings',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'Get a trigger\u2019s bindings', params: TriggerParams, querystring: PageQuery, response: { 200: pageOf('bindings', ActionBinding), ...ERROR_RESPONSES } } },
      async (request) => {
        const { window, ...page } = paging(request.query, 20);
        const found = await actions.bindings(request.params.triggerId, window);
        return { bindings: found.items, total: found.total, ...page };
      },
    );
    app.patch(
      '/actions/triggers/:triggerId/bindings',
      {
        config: { scopes: ['update:actions'] },
        schema: { tags, summary: 'Update a trigger\u2019s bindings', params: TriggerParams, body: BindingsBody, response: { 200: Type.Object({ bindings: Type.Array(ActionBinding) }), ...ERROR_RESPONSES } },
      },
      async (request) => {
        const entries = request.body?.bindings;
        if (entries === undefined) return { bindings: (await actions.bindings(request.params.triggerId, { offset: 0, limit: 100 })).items };
        return { bindings: await actions.updateBindings(request.params.triggerId, entries) };
      },
    );

    app.get(
      '/actions/executions/:id',
      { config: { scopes: ['read:actions'] }, schema: { tags, summary: 'Get an execution', params: ExecutionParams, response: { 200: ActionExecution, ...ERROR_RESPONSES } } },
      async (request) => actions.execution(request.params.id),
    );
  };
}
