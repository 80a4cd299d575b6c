import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { PROMPT_SCREENS } from '../../services/rendering/catalogue.js';
import { renderingConfigs } from '../../services/rendering/configs.js';
import { CONTEXT_CONFIGURATION_PATTERN } from '../../services/rendering/context-configuration.js';
import { ERROR_RESPONSES, PaginationQuery, TOO_MANY_REQUESTS_RESPONSE, errorResponse, listResponseSchema, nullable } from './schemas.js';
import { listHandler } from './resource-handlers.js';

const RenderingMode = Type.Unsafe<'advanced' | 'standard'>({
  type: 'string',
  enum: ['advanced', 'standard'],
  description: 'Rendering mode: advanced or standard.',
});

const ContextConfiguration = nullable(
  Type.Array(Type.String({ pattern: CONTEXT_CONFIGURATION_PATTERN }), {
    description:
      'Context values made available to the screen: one of the static values, or client.metadata.<key>, organization.metadata.<key>, transaction.custom_domain.domain_metadata.<key>, user.user_metadata.<key>, user.app_metadata.<key>, untrusted_data.authorization_params.ext-<key> (key non-empty, without a dot).',
  }),
);

const HeadTag = Type.Object(
  {
    tag: Type.Optional(Type.String({ description: 'Any HTML element valid in a document head.' })),
    attributes: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] }), maxProperties: 10, description: 'Attributes of the tag; at most 10.' },
      ),
    ),
    content: Type.Optional(Type.String({ description: 'Text or markup between the opening and closing tags.' })),
  },
  { additionalProperties: true },
);

const filterElement = (description: string) =>
  Type.Union(
    [
      Type.Object({ id: Type.String({ description }) }, { additionalProperties: false }),
      Type.Object(
        // At most one pair (the spec's limit): `{}` is valid and, naming no entity, matches none.
        { metadata: Type.Object({}, { additionalProperties: true, maxProperties: 1, description: 'At most one key/value pair.' }) },
        { additionalProperties: false },
      ),
    ],
    { description: `Either {id} or {metadata} with at most one property.` },
  );

const Filters = nullable(
  Type.Object(
    {
      match_type: Type.Optional(Type.Unsafe<'includes_any' | 'excludes_any'>({ type: 'string', enum: ['includes_any', 'excludes_any'] })),
      clients: Type.Optional(Type.Array(filterElement('Client identifier.'))),
      organizations: Type.Optional(Type.Array(filterElement('Organization identifier.'))),
      domains: Type.Optional(Type.Array(filterElement('Domain identifier.'))),
    },
    { additionalProperties: false, description: 'Optional rules restricting the configuration to specific entities.' },
  ),
);

/** Writable fields; `null` clears a field; extra properties are stored as given. */
const renderingFields = {
  rendering_mode: Type.Optional(RenderingMode),
  context_configuration: Type.Optional(ContextConfiguration),
  default_head_tags_disabled: Type.Optional(nullable(Type.Boolean({ description: 'Override the default head tags.' }))),
  use_page_template: Type.Optional(nullable(Type.Boolean({ description: 'Use the page template.' }))),
  head_tags: Type.Optional(nullable(Type.Array(HeadTag, { description: 'Head tags.' }))),
  filters: Type.Optional(Filters),
};

const RenderingPatch = Type.Object(renderingFields, { additionalProperties: true });

const RenderingItem = Type.Object(
  {
    tenant: Type.Optional(Type.String()),
    prompt: Type.Optional(Type.String()),
    screen: Type.Optional(Type.String()),
    rendering_mode: Type.Optional(Type.String()),
    context_configuration: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
    default_head_tags_disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    use_page_template: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    head_tags: Type.Optional(Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Type.Null()])),
    filters: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  },
  { additionalProperties: true },
);

const ScreenParams = Type.Object({
  prompt: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the prompt.' }),
  screen: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the screen.' }),
});

const ListQuery = Type.Object(
  {
    fields: Type.Optional(Type.String({ description: 'Comma-separated list of fields to include or exclude (based on value provided for include_fields) in the result. Leave empty to retrieve all fields.' })),
    include_fields: Type.Optional(Type.Boolean({ description: 'Whether specified fields are to be included (default: true) or excluded (false).' })),
    ...PaginationQuery,
    prompt: Type.Optional(Type.String({ description: 'Name of the prompt to filter by.' })),
    screen: Type.Optional(Type.String({ description: 'Name of the screen to filter by.' })),
    rendering_mode: Type.Optional(Type.Unsafe<'advanced' | 'standard'>({ type: 'string', enum: ['advanced', 'standard'], description: 'Rendering mode to filter by.' })),
  },
  { additionalProperties: false },
);

const BulkBody = Type.Object(
  {
    configs: Type.Array(
      Type.Object(
        {
          prompt: Type.String({ minLength: 1, description: 'Name of the prompt.' }),
          screen: Type.String({ minLength: 1, description: 'Name of the screen.' }),
          ...renderingFields,
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 100, description: 'Screen configurations to update.' },
    ),
  },
  { additionalProperties: false },
);

const LIST_DESCRIPTION = [
  'Lists the render-setting configurations of the tenant in creation order.',
  'The page window (`start = page × per_page`, `limit = per_page`) is cut from all configurations first; the `prompt`, `screen` and',
  '`rendering_mode` filters then apply inside that window, so a filtered page can be short or empty while later pages still match.',
  '`total` counts every configuration on the tenant.',
].join(' ');

/** The statuses of the spec's table for the list operation, documented on every rendering route (all share the feature checks). */
function renderingErrors(scope: string) {
  return {
    400: errorResponse('Invalid query string or body; the message names the cause.'),
    401: errorResponse('Invalid token (including an invalid signature on token validation).'),
    402: errorResponse('A paid subscription is required for the Advanced Customizations feature.'),
    403: errorResponse(`Insufficient scope (expected ${scope}), or the tenant has the Advanced Customizations feature disabled.`),
    429: TOO_MANY_REQUESTS_RESPONSE,
    ...ERROR_RESPONSES,
  };
}

/** Fields the path or tenant decide; a body cannot store them. */
function withoutIdentity<T extends Record<string, unknown>>(fields: T) {
  const { tenant: _tenant, prompt: _prompt, screen: _screen, ...rest } = fields;
  return rest;
}

export function promptsRenderingRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = renderingConfigs({ storage: registry.storage, tenantId: registry.tenantId });
    const tags = ['prompts'];

    app.get(
      '/prompts/rendering',
      {
        // The spec names this operation generally available.
        config: { scopes: ['read:prompts'], lifecycle: 'GA' },
        schema: {
          operationId: 'get_all_rendering',
          tags,
          summary: 'Get render setting configurations for all screens',
          description: LIST_DESCRIPTION,
          querystring: ListQuery,
          response: { 200: listResponseSchema('configs', RenderingItem), ...renderingErrors('read:prompts') },
        },
      },
      // The query has no checkpoint parameters, so its window cannot fail before the feature check.
      listHandler('configs', async (window, query) => {
        await service.assertFeatureEnabled();
        return service.list(query, window);
      }),
    );

    app.patch(
      '/prompts/rendering',
      {
        config: { scopes: ['update:prompts'] },
        schema: {
          operationId: 'patch_bulk_rendering',
          tags,
          summary: 'Update render settings of many screens at once (all or nothing)',
          body: BulkBody,
          response: { 200: Type.Object({ configs: Type.Array(RenderingItem) }), ...renderingErrors('update:prompts') },
        },
      },
      async (request) => {
        await service.assertFeatureEnabled();
        const configs = request.body.configs.map((config) => ({ ...withoutIdentity(config), prompt: config.prompt, screen: config.screen }));
        return { configs: await service.bulkUpdate(configs) };
      },
    );

    app.get(
      '/prompts/:prompt/screen/:screen/rendering',
      {
        config: { scopes: ['read:prompts'] },
        schema: {
          operationId: 'get_rendering',
          tags,
          summary: 'Get the render settings of one screen',
          description: `Known prompts: ${Object.keys(PROMPT_SCREENS).join(', ')}.`,
          params: ScreenParams,
          response: { 200: RenderingItem, ...renderingErrors('read:prompts') },
        },
      },
      async (request) => {
        await service.assertFeatureEnabled();
        return service.get(request.params.prompt, request.params.screen);
      },
    );

    app.patch(
      '/prompts/:prompt/screen/:screen/rendering',
      {
        config: { scopes: ['update:prompts'] },
        schema: {
          operationId: 'patch_rendering',
          tags,
          summary: 'Update the render settings of one screen (partial; null clears a field)',
          params: ScreenParams,
          body: RenderingPatch,
          response: { 200: RenderingItem, ...renderingErrors('update:prompts') },
        },
      },
      async (request) => {
        await service.assertFeatureEnabled();
        return service.update(request.params.prompt, request.params.screen, withoutIdentity(request.body));
      },
    );
  };
}
