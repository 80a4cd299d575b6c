import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { brandingService, HEX_COLOR, HTTPS_URL } from '../../services/branding.js';
import { ERROR_RESPONSES, TOO_MANY_REQUESTS_RESPONSE, errorResponse, nullable } from './schemas.js';

const color = (description: string) => Type.String({ pattern: HEX_COLOR.source, description: `${description} (#rgb or #rrggbb).` });
const httpsUrl = (description: string) => Type.String({ maxLength: 2048, pattern: HTTPS_URL.source, description: `${description}; must use HTTPS.` });

const PRIMARY = 'Accent colour: the buttons of the hosted pages';
const PAGE_BACKGROUND = 'Page background colour (a colour only: gradients are not taken)';
const FAVICON = 'URL of the favicon';
const LOGO = 'URL of the logo the hosted pages show (an application\'s own logo_uri goes first)';
const FONT = 'URL of a font file for tenant bundles (the standard pages keep their system font)';

const Branding = Type.Object(
  {
    colors: Type.Optional(Type.Object({ primary: Type.Optional(color(PRIMARY)), page_background: Type.Optional(color(PAGE_BACKGROUND)) }, { additionalProperties: false })),
    favicon_url: Type.Optional(httpsUrl(FAVICON)),
    logo_url: Type.Optional(httpsUrl(LOGO)),
    font: Type.Optional(Type.Object({ url: Type.Optional(httpsUrl(FONT)) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

const removes = '; null removes it';
const BrandingPatch = Type.Object(
  {
    colors: Type.Optional(
      nullable(
        Type.Object(
          { primary: Type.Optional(nullable(color(PRIMARY), `${PRIMARY}${removes}.`)), page_background: Type.Optional(nullable(color(PAGE_BACKGROUND), `${PAGE_BACKGROUND}${removes}.`)) },
          { additionalProperties: false },
        ),
        `Colours (fields left out stay)${removes}.`,
      ),
    ),
    favicon_url: Type.Optional(nullable(httpsUrl(FAVICON), `${FAVICON}${removes}.`)),
    logo_url: Type.Optional(nullable(httpsUrl(LOGO), `${LOGO}${removes}.`)),
    font: Type.Optional(nullable(Type.Object({ url: Type.Optional(nullable(httpsUrl(FONT), `${FONT}${removes}.`)) }, { additionalProperties: false }), `Font${removes}.`)),
  },
  { additionalProperties: false },
);

const errors = (scope: string) => ({
  400: errorResponse('Invalid request body; the message names the cause.'),
  401: errorResponse('Invalid token.'),
  403: errorResponse(`Insufficient scope (expected ${scope}).`),
  429: TOO_MANY_REQUESTS_RESPONSE,
  ...ERROR_RESPONSES,
});

/** `GET/PATCH /api/v2/branding`: the tenant's colours, logo, favicon and font, kept in the tenant document. */
export function brandingRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const branding = brandingService(registry);
    const tags = ['branding'];

    app.get(
      '/branding',
      {
        config: { scopes: ['read:branding'] },
        schema: { operationId: 'get_branding', tags, summary: 'Get branding settings ({} when none are set)', response: { 200: Branding, ...errors('read:branding') } },
      },
      async () => branding.get(),
    );

    app.patch(
      '/branding',
      {
        config: { scopes: ['update:branding'] },
        schema: {
          operationId: 'patch_branding',
          tags,
          summary: 'Update branding settings (fields left out stay; null removes one)',
          body: BrandingPatch,
          response: { 200: Branding, ...errors('update:branding') },
        },
      },
      async (request) => branding.update(request.body),
    );
  };
}
