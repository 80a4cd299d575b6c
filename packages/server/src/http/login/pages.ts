import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { CachedClient } from '../../services/config-cache.js';
import type { ConnectionData } from '../../services/connections.js';
import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';
import type { TenantDocument } from '../../services/tenant-settings.js';
import { brandingOf } from '../../services/branding.js';
import { advancedCustomizationsRefusal } from '../../services/rendering/advanced-customizations.js';
import { fillText, pickLocale, screenTexts } from '../../services/rendering/texts/index.js';
import { pagePolicy, renderPage, selectRenderingConfig, type PageModel, type RenderingConfig } from './render/index.js';
import type { OAuthErrorCode } from '../../oauth/error-codes.js';
import type { PageErrorCode } from './page-errors.js';
import { alternateConnection, alternateConnectionsFor, FEDERATED_SCREENS } from './alternate-connections.js';
import { connectionContext } from './connection-context.js';
import { PROMPT_OF, USERNAME_RULE, type HostedScreen } from './screens.js';

/** The rendering configuration of a screen, when the tenant may use advanced customizations and its filters match. */
async function renderingConfigFor(registry: Registry, document: TenantDocument | undefined, screen: HostedScreen, client: CachedClient | undefined, organization: PageModel['organization']) {
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
    ...(organization ? { organizationId: organization.id, organizationMetadata: organization.metadata ?? {} } : {}),
  });
}

export interface ScreenInput {
  screen: HostedScreen;
  client: CachedClient | undefined;
  transaction?: LoginTransaction;
  /** Where the form posts (the screen's own URL); empty for screens without a form. */
  action?: string;
  /** `transaction.state` of the screen context when it is not the transaction's id (a reset ticket's form token). */
  state?: string;
  values?: Record<string, string>;
  /** A form's catalogued error (page-errors.ts), or on the error page an Authentication API code. */
  errorCode?: PageErrorCode | OAuthErrorCode;
  /** The form field the error is about. */
  errorField?: string;
  errorDescription?: string;
  links?: PageModel['links'];
  /** The connection the screen is for (its public options become `transaction.connection`). */
  connection?: Pick<ConnectionData, 'name' | 'strategy' | 'options'>;
  passwordPolicy?: PageModel['passwordPolicy'];
  /** `screen.data` of the context: what the screen shows of the transaction (the identifier it is for). */
  screenData?: Record<string, string>;
  /** The logged-in user's name (the logout question greets them: `userSalute`). */
  userName?: string;
  /** The scopes the consent screen asks for. */
  scopes?: PageModel['scopes'];
  /** The organizations the picker offers. */
  organizations?: PageModel['organizations'];
  /** The signed-in user (screens after login). */
  user?: PageModel['user'];
  /** More values for the texts' placeholders (`${inviterName}`). */
  textValues?: Record<string, string>;
  /** The multi-factor screens' data and choices. */
  mfa?: PageModel['mfa'];
  /** login-id's passkey login. */
  passkeyLogin?: PageModel['passkeyLogin'];
}

/** The organization a transaction's login is for, as the screens show it. */
async function organizationOf(registry: Registry, client: CachedClient | undefined, request: LoginTransaction['request'] | undefined): Promise<PageModel['organization']> {
  if (!request?.organization || !client) return undefined;
  const found = await registry.storage.organizations.get(registry.tenantId, request.organization);
  if (!found) return undefined;
  return {
    id: found.id,
    name: found.name,
    usage: client.data.organization_usage ?? 'deny',
    ...(found.displayName !== null ? { display_name: found.displayName } : {}),
    ...(found.branding !== null ? { branding: found.branding as NonNullable<PageModel['organization']>['branding'] } : {}),
    ...(found.metadata !== null ? { metadata: found.metadata } : {}),
  };
}

/** The screen's texts in the page's language: the built-in ones with the tenant's custom text on top, filled in. */
async function textsOf(registry: Registry, screen: HostedScreen, locale: string, vars: Record<string, string>): Promise<Record<string, string>> {
  const custom = await registry.prompts.customText(PROMPT_OF[screen], locale);
  const texts = screenTexts(screen, locale, custom[screen]);
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, fillText(text, vars)]));
}

/** Renders a hosted screen with the tenant's branding and the rendering configuration that applies to it. */
export async function sendScreen(registry: Registry, reply: FastifyReply, status: number, input: ScreenInput): Promise<FastifyReply> {
  const document = await registry.oauthConfig.tenantDocument();
  const settings = document?.settings;
  const request = input.transaction?.request;
  const organization = await organizationOf(registry, input.client, request);
  const renderingConfig = await renderingConfigFor(registry, document, input.screen, input.client, organization);
  const cspNonce = randomBytes(16).toString('base64');
  const authorizationParams: Record<string, string> = {
    ...(request?.loginHint ? { login_hint: request.loginHint } : {}),
    ...(request?.screenHint ? { screen_hint: request.screenHint } : {}),
    ...(request?.uiLocales ? { ui_locales: request.uiLocales } : {}),
    ...(request?.extensions ?? {}),
  };
  const client = input.client;
  const pageTemplate = (document as { branding?: { universal_login_template?: string } } | undefined)?.branding?.universal_login_template;
  const locale = pickLocale(request?.uiLocales, settings?.enabled_locales ?? ['en']);
  const clientName = client?.data.name ?? settings?.friendly_name ?? registry.tenantId;
  const values = input.values ?? {};
  const texts = await textsOf(registry, input.screen, locale, {
    clientName,
    // In a login to an organization, the organization is the company the texts name.
    companyName: organization?.display_name ?? organization?.name ?? settings?.friendly_name ?? registry.tenantId,
    email: input.screenData?.email ?? values.email ?? '',
    username: input.screenData?.username ?? values.username ?? '',
    userName: input.userName ?? input.screenData?.username ?? values.username ?? '',
    // No connectionName: `federatedConnectionButtonText` takes each button's own (render/widget.ts), and a bundle fills it in.
    // The user names Latchkey accepts (signup-screens.ts), for the texts that state the rule.
    ...USERNAME_RULE,
    ...input.textValues,
  });
  // The error page shows the server's description; a form shows the text of its error code, but an Action's own
  // message to the user where it gave one.
  const ownMessage = input.screen === 'error' || input.errorCode === 'custom-script-error-code';
  const message = (code: string) => (ownMessage ? input.errorDescription : texts[code]) ?? texts[code] ?? input.errorDescription ?? code;
  const errors = input.errorCode ? [{ code: input.errorCode, ...(input.errorField ? { field: input.errorField } : {}), message: message(input.errorCode) }] : [];
  const state = input.state ?? input.transaction?.publicId;
  const branding = brandingOf(document);
  const alternates = input.transaction && FEDERATED_SCREENS.has(input.screen) ? (await alternateConnectionsFor(registry, input.transaction)).map(alternateConnection) : [];
  const model: PageModel = {
    prompt: PROMPT_OF[input.screen],
    screen: input.screen,
    locale,
    action: input.action ?? '',
    // Our own forms post the same fields as the platform's SDK: the transaction's state goes in the body too.
    hidden: state !== undefined ? { state } : {},
    values,
    links: input.links ?? {},
    screenData: input.screenData ?? {},
    texts,
    errors,
    ...(state !== undefined ? { state } : {}),
    client: {
      client_id: client?.clientId ?? '',
      name: clientName,
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
    ...(Object.keys(branding).length > 0 ? { branding } : {}),
    authorizationParams,
    cspNonce,
    ...(input.errorCode ? { errorCode: input.errorCode } : {}),
    ...(input.errorDescription ? { errorDescription: input.errorDescription } : {}),
    ...(input.connection
      ? { connection: { name: input.connection.name, requiresUsername: input.connection.options.requires_username === true }, connectionContext: connectionContext(input.connection) }
      : {}),
    ...(alternates.length > 0 ? { alternateConnections: alternates } : {}),
    ...(input.passwordPolicy ? { passwordPolicy: input.passwordPolicy } : {}),
    ...(input.userName ? { userName: input.userName } : {}),
    ...(input.scopes ? { scopes: input.scopes } : {}),
    ...(organization ? { organization } : {}),
    ...(input.organizations ? { organizations: input.organizations } : {}),
    ...(input.user ? { user: input.user } : {}),
    ...(input.mfa ? { mfa: input.mfa } : {}),
    ...(input.passkeyLogin ? { passkeyLogin: input.passkeyLogin } : {}),
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
