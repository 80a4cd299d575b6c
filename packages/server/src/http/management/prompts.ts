import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { PROMPT_SCREENS } from '../../services/rendering/catalogue.js';
import { CUSTOM_TEXT_LIMITS, customTextsService } from '../../services/prompts/custom-texts.js';
import { promptSettingsService } from '../../services/prompts/settings.js';
import { ERROR_RESPONSES, TOO_MANY_REQUESTS_RESPONSE, errorResponse, nullable } from './schemas.js';

const Experience = Type.Unsafe<'new' | 'classic'>({ type: 'string', enum: ['new', 'classic'], description: 'Which login experience the tenant uses: new or classic.' });

const Settings = Type.Object(
  {
    universal_login_experience: Experience,
    identifier_first: Type.Boolean({ description: 'Whether login asks for the identifier first (login-id, then login-password).' }),
    webauthn_platform_first_factor: Type.Boolean({ description: 'Whether the device\'s platform authenticator is offered as the first factor with identifier first.' }),
  },
  { additionalProperties: false },
);

const SettingsPatch = Type.Object(
  {
    universal_login_experience: Type.Optional(Experience),
    identifier_first: Type.Optional(nullable(Type.Boolean(), 'Whether login asks for the identifier first; null restores the default (false).')),
    webauthn_platform_first_factor: Type.Optional(nullable(Type.Boolean(), 'Whether the platform authenticator is the first factor; null restores the default (false).')),
  },
  { additionalProperties: false, minProperties: 1 },
);

const ScreenTexts = Type.Object(
  {},
  {
    additionalProperties: Type.String({ maxLength: CUSTOM_TEXT_LIMITS.textLength, description: `A text (at most ${CUSTOM_TEXT_LIMITS.textLength} characters).` }),
    maxProperties: CUSTOM_TEXT_LIMITS.keysPerScreen,
    description: `Text key -> text of one screen; keys 1 to ${CUSTOM_TEXT_LIMITS.keyLength} characters, at most ${CUSTOM_TEXT_LIMITS.keysPerScreen} keys.`,
  },
);

const CustomTexts = Type.Object({}, { additionalProperties: ScreenTexts, description: 'Screen name -> its texts; only screens of the prompt.' });

const CustomTextParams = Type.Object({
  prompt: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the prompt.' }),
  language: Type.String({ minLength: 1, maxLength: 20, description: 'Language tag, e.g. en, fr-CA, pt-BR.' }),
});

function promptErrors(scope: string, notFound?: string) {
  return {
    400: errorResponse('Invalid request body; the message names the cause.'),
    401: errorResponse('Invalid token.'),
    403: errorResponse(`Insufficient scope (expected ${scope}).`),
    ...(notFound ? { 404: errorResponse(notFound) } : {}),
    429: TOO_MANY_REQUESTS_RESPONSE,
    ...ERROR_RESPONSES,
  };
}

const UNKNOWN_PROMPT_OR_LANGUAGE = 'The prompt does not exist (inexistent_prompt) or the language is not supported (inexistent_language).';

/** `GET/PATCH /api/v2/prompts` and `GET/PUT /api/v2/prompts/{prompt}/custom-text/{language}`. */
export function promptsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const settings = promptSettingsService(registry);
    const texts = customTextsService(registry);
    const tags = ['prompts'];

    app.get(
      '/prompts',
      {
        config: { scopes: ['read:prompts'] },
        schema: { operationId: 'get_prompts', tags, summary: 'Get prompt settings', response: { 200: Settings, ...promptErrors('read:prompts') } },
      },
      async () => settings.get(),
    );

    app.patch(
      '/prompts',
      {
        config: { scopes: ['update:prompts'] },
        schema: {
          operationId: 'patch_prompts',
          tags,
          summary: 'Update prompt settings (fields left out stay; null restores a default)',
          body: SettingsPatch,
          response: { 200: Settings, ...promptErrors('update:prompts') },
        },
      },
      async (request) => settings.update(request.body),
    );

    app.get(
      '/prompts/:prompt/custom-text/:language',
      {
        config: { scopes: ['read:prompts'] },
        schema: {
          operationId: 'get_custom_text_by_language',
          tags,
          summary: 'Get the custom texts of a prompt in a language (only the overrides; {} when none)',
          description: `Known prompts: ${Object.keys(PROMPT_SCREENS).join(', ')}.`,
          params: CustomTextParams,
          response: { 200: CustomTexts, ...promptErrors('read:prompts', UNKNOWN_PROMPT_OR_LANGUAGE) },
        },
      },
      async (request) => texts.get(request.params.prompt, request.params.language),
    );

    app.put(
      '/prompts/:prompt/custom-text/:language',
      {
        config: { scopes: ['update:prompts'] },
        schema: {
          operationId: 'put_custom_text_by_language',
          tags,
          summary: 'Replace the custom texts of a prompt in a language (every screen at once; all or nothing)',
          description: `Known prompts and their screens: ${Object.entries(PROMPT_SCREENS).map(([prompt, screens]) => `${prompt} (${screens.join(', ')})`).join('; ')}.`,
          params: CustomTextParams,
          body: CustomTexts,
          response: { 200: CustomTexts, ...promptErrors('update:prompts', UNKNOWN_PROMPT_OR_LANGUAGE) },
        },
      },
      async (request) => texts.replace(request.params.prompt, request.params.language, request.body),
    );
  };
}
