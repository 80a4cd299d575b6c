import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { CachedClient } from '../../services/config-cache.js';
import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';
import type { TenantDocument } from '../../services/tenant-settings.js';
import { advancedCustomizationsRefusal } from '../../services/rendering/advanced-customizations.js';
import { pagePolicy, renderPage, selectRenderingConfig, type PageModel, type RenderingConfig } from './render/index.js';
import { CATALOGUES } from './render/texts.js';
import type { OAuthErrorCode } from '../../oauth/error-codes.js';
import type { PageErrorCode } from './page-errors.js';

type Screen = PageModel['screen'];

/** Which catalogue prompt each hosted screen belongs to (rendering configurations are per prompt and screen). */
const PROMPT_OF: Record<Screen, string> = {
  login: 'login',
  signup: 'signup',
  'reset-password-request': 'reset-password',
  'reset-password-email': 'reset-password',
  'reset-password': 'reset-password',
  'reset-password-success': 'reset-password',
  'reset-password-error': 'reset-password',
  error: 'common',
};

async function tenantDocument(registry: Registry): Promise<TenantDocument | undefined> {
  return registry.oauthConfig.tenantDocument();
}

/** The rendering configuration of a screen, when the tenant may use advanced customizations and its filters match. */
async function renderingConfigFor(registry: Registry, document: TenantDocument | undefined, screen: Screen, client: CachedClient | undefined) {
  const settings = document?.settings;
  if (!settings || advancedCustomizationsRefusal(settings)) return undefined;
  const prompt = PROMPT_OF[screen];
  const stored = await registry.oauthConfig.renderingConfig(prompt, screen);
  if (!stored) return undefined;
  return selectRenderingConfig([{ ...(stored as Partial<RenderingConfig>), prompt, screen }], {
    prompt,
    screen,
    clientId: client?.clientId ?? '',
    clientMetadata: client?.data.client_metadata ?? {},
    domain: new URL(registry.issuer).hostname,
  });
}

export interface ScreenInput {
  screen: Screen;
  client: CachedClient | undefined;
  transaction?: LoginTransaction;
  action?: string;
  hidden?: Record<string, string>;
  values?: Record<string, string>;
  /** A form's catalogued error (page-errors.ts), or on the error page an Authentication API code. */
  errorCode?: PageErrorCode | OAuthErrorCode;
  errorDescription?: string;
  links?: PageModel['links'];
  connection?: PageModel['connection'];
  passwordPolicy?: PageModel['passwordPolicy'];
}

/** The first of the user's preferred languages that Latchkey has texts for (English is built in). */
function pageLocale(uiLocales: string | undefined, enabled: readonly string[]): string {
  const wanted = (uiLocales ?? '').split(' ').filter(Boolean);
  return wanted.find((locale) => enabled.includes(locale) && Object.hasOwn(CATALOGUES, locale)) ?? 'en';
}

/** Renders a hosted screen with the tenant's branding and the rendering configuration that applies to it. */
export async function sendScreen(registry: Registry, reply: FastifyReply, status: number, input: ScreenInput): Promise<FastifyReply> {
  const document = await tenantDocument(registry);
  const settings = document?.settings;
  const request = input.transaction?.request;
  const renderingConfig = await renderingConfigFor(registry, document, input.screen, input.client);
  const cspNonce = randomBytes(16).toString('base64');
  const authorizationParams: Record<string, string> = {
    ...(request?.loginHint ? { login_hint: request.loginHint } : {}),
    ...(request?.screenHint ? { screen_hint: request.screenHint } : {}),
    ...(request?.uiLocales ? { ui_locales: request.uiLocales } : {}),
    ...(request?.extensions ?? {}),
  };
  const client = input.client;
  const pageTemplate = (document as { branding?: { universal_login_template?: string } } | undefined)?.branding?.universal_login_template;
  const model: PageModel = {
    prompt: PROMPT_OF[input.screen],
    screen: input.screen,
    locale: pageLocale(request?.uiLocales, settings?.enabled_locales ?? ['en']),
    action: input.action ?? '',
    hidden: input.hidden ?? {},
    values: input.values ?? {},
    links: input.links ?? {},
    client: {
      client_id: client?.clientId ?? '',
      name: client?.data.name ?? settings?.friendly_name ?? registry.tenantId,
      ...(client?.data.logo_uri ? { logo_uri: client.data.logo_uri } : {}),
      ...(client?.data.description ? { description: client.data.description } : {}),
      metadata: client?.data.client_metadata ?? {},
    },
    tenant: {
      name: registry.tenantId,
      friendly_name: settings?.friendly_name ?? registry.tenantId,
      ...(settings?.picture_url ? { picture_url: settings.picture_url } : {}),
      enabled_locales: settings?.enabled_locales ?? ['en'],
    },
    authorizationParams,
    cspNonce,
    ...(input.errorCode ? { errorCode: input.errorCode } : {}),
    ...(input.errorDescription ? { errorDescription: input.errorDescription } : {}),
    ...(input.connection ? { connection: input.connection } : {}),
    ...(input.passwordPolicy ? { passwordPolicy: input.passwordPolicy } : {}),
    ...(renderingConfig ? { renderingConfig } : {}),
    ...(pageTemplate ? { pageTemplate } : {}),
  };
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('content-security-policy', pagePolicy(model))
    .send(renderPage(model));
}

/** The error page: requests that cannot be sent back to an application end here. */
export function sendErrorPage(registry: Registry, reply: FastifyReply, status: number, error: OAuthErrorCode, description: string, client?: CachedClient) {
  return sendScreen(registry, reply, status, { screen: 'error', client, errorCode: error, errorDescription: description });
}
