/**
 * Families of the platform's Management API that Latchkey does not have. Tools that move a whole tenant (the
 * platform's deploy CLI reads every family it knows) must find them the way the platform shows a tenant that
 * has none: an empty list, a settings document in its disabled state, or the platform's own "none" status.
 * Writing objects of such a family is refused with `unsupported_feature` naming it, so an import that carries
 * them fails loudly instead of losing them (the refusal is a 400 because the deploy CLI skips some families
 * quietly on 403 and 404). absent-family-routes.ts turns this table into routes.
 */

type Method = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** How a read answers when there is nothing. */
export type AbsentRead =
  /** A paginated list (`page`/`per_page`/`include_totals`, or `from`/`take`) of nothing, under this key. */
  | { path: string; list: string; paging: 'page' | 'checkpoint' }
  /** A plain array of nothing (the platform does not paginate this list). */
  | { path: string; list: 'bare' }
  /** An object that wraps an empty array: `{<wrapped>: []}`. */
  | { path: string; wrapped: string }
  /** A settings document that stays in this state; a write that asks for exactly this state is accepted. */
  | { path: string; document: Record<string, unknown>; write: 'PATCH' | 'PUT' }
  /** A status the platform answers when the tenant has none of it (404 none, 403 not on this plan). */
  | { path: string; status: 404 | 403; message: string };

export interface AbsentFamily {
  /** Named in the refusal: `Latchkey has no <family>.` */
  family: string;
  /** What to use instead, appended to the refusal. */
  instead?: string;
  /** The resource part of the scopes (`read:<scope>`, `create:<scope>`, `update:<scope>`, `delete:<scope>`). */
  scope: string;
  reads: AbsentRead[];
  /** Writes refused, as `METHOD /path`. */
  writes: `${Method} /${string}`[];
}

/** The reads and writes of a collection at `path` with its objects at `path/:id`. */
function collection(
  path: string,
  read: { list: string; paging: 'page' | 'checkpoint' } | { list: 'bare' } | { wrapped: string },
  itemName: string,
  moreWrites: AbsentFamily['writes'] = [],
) {
  return {
    reads: [{ path, ...read }, { path: `${path}/:id`, status: 404, message: `The ${itemName} does not exist.` }] as AbsentRead[],
    writes: [`POST ${path}`, `PATCH ${path}/:id`, `DELETE ${path}/:id`, ...moreWrites] as AbsentFamily['writes'],
  };
}

export const ABSENT_FAMILIES: readonly AbsentFamily[] = [
  { family: 'rules', instead: 'use Actions (post-login)', scope: 'rules', ...collection('/rules', { list: 'rules', paging: 'page' }, 'rule') },
  {
    family: 'rules configs',
    instead: 'use Action secrets',
    scope: 'rules_configs',
    reads: [{ path: '/rules-configs', list: 'bare' }],
    writes: ['PUT /rules-configs/:id', 'DELETE /rules-configs/:id'],
  },
  { family: 'hooks', instead: 'use Actions', scope: 'hooks', ...collection('/hooks', { list: 'hooks', paging: 'page' }, 'hook') },
  { family: 'action modules', scope: 'actions', ...collection('/actions/modules', { list: 'modules', paging: 'page' }, 'module') },
  { family: 'custom domains', instead: 'serve Latchkey under your domain and set LATCHKEY_ISSUER', scope: 'custom_domains', ...collection('/custom-domains', { list: 'bare' }, 'custom domain') },
  {
    family: 'e-mail provider settings',
    instead: 'mail goes through the SMTP server of SMTP_URL',
    scope: 'email_provider',
    reads: [{ path: '/emails/provider', status: 404, message: 'There is not a configured email provider.' }],
    writes: ['POST /emails/provider', 'PATCH /emails/provider', 'DELETE /emails/provider'],
  },
  {
    family: 'e-mail templates',
    instead: 'the messages are built in and follow the prompts\' languages',
    scope: 'email_templates',
    reads: [{ path: '/email-templates/:id', status: 404, message: 'The template does not exist.' }],
    writes: ['POST /email-templates', 'PATCH /email-templates/:id', 'PUT /email-templates/:id'],
  },
  { family: 'forms', scope: 'forms', ...collection('/forms', { list: 'forms', paging: 'page' }, 'form') },
  { family: 'flows', scope: 'flows', ...collection('/flows', { list: 'flows', paging: 'page' }, 'flow') },
  { family: 'flow vault connections', scope: 'flows_vault_connections', ...collection('/flows/vault/connections', { list: 'connections', paging: 'page' }, 'connection') },
  { family: 'self-service profiles', scope: 'self_service_profiles', ...collection('/self-service-profiles', { list: 'self_service_profiles', paging: 'page' }, 'self-service profile') },
  { family: 'token exchange profiles', scope: 'token_exchange_profiles', ...collection('/token-exchange-profiles', { list: 'token_exchange_profiles', paging: 'checkpoint' }, 'profile') },
  { family: 'event streams', instead: 'use log streams', scope: 'event_streams', ...collection('/event-streams', { list: 'eventStreams', paging: 'checkpoint' }, 'event stream') },
  { family: 'network ACLs', scope: 'network_acls', ...collection('/network-acls', { list: 'network_acls', paging: 'page' }, 'network ACL', ['PUT /network-acls/:id']) },
  { family: 'rate limit policies', instead: 'set LATCHKEY_MGMT_RATE_LIMIT and the other limits of the configuration', scope: 'rate_limit_policies', ...collection('/rate-limit-policies', { list: 'rate_limit_policies', paging: 'checkpoint' }, 'policy') },
  { family: 'user attribute profiles', scope: 'user_attribute_profiles', ...collection('/user-attribute-profiles', { list: 'user_attribute_profiles', paging: 'checkpoint' }, 'profile') },
  { family: 'connection profiles', scope: 'connection_profiles', ...collection('/connection-profiles', { list: 'connection_profiles', paging: 'checkpoint' }, 'profile') },
  { family: 'phone providers', instead: 'text messages go to LATCHKEY_SMS_URL', scope: 'phone_providers', ...collection('/branding/phone/providers', { wrapped: 'providers' }, 'provider') },
  { family: 'phone templates', scope: 'phone_templates', ...collection('/branding/phone/templates', { wrapped: 'templates' }, 'template') },
  {
    family: 'themes',
    instead: 'use /api/v2/branding and the screens\' rendering settings',
    scope: 'branding',
    reads: [{ path: '/branding/themes/:id', status: 404, message: 'There was an error retrieving the theme.' }],
    writes: ['POST /branding/themes', 'PATCH /branding/themes/:id', 'DELETE /branding/themes/:id'],
  },
  {
    family: 'prompt partials',
    instead: 'use the screens\' rendering settings (/api/v2/prompts/{prompt}/screen/{screen}/rendering)',
    scope: 'prompts',
    reads: [{ path: '/prompts/:prompt/partials', document: {}, write: 'PUT' }],
    writes: [],
  },
  {
    family: 'directory provisioning',
    scope: 'connections',
    reads: [
      { path: '/connections-directory-provisionings', list: 'directory_provisionings', paging: 'checkpoint' },
      { path: '/connections/:id/directory-provisioning', status: 404, message: 'The connection has no directory provisioning.' },
    ],
    writes: ['POST /connections/:id/directory-provisioning', 'PATCH /connections/:id/directory-provisioning', 'DELETE /connections/:id/directory-provisioning'],
  },
  {
    family: 'organization client grants',
    scope: 'organization_client_grants',
    reads: [{ path: '/organizations/:id/client-grants', list: 'client_grants', paging: 'page' }],
    writes: ['POST /organizations/:id/client-grants', 'DELETE /organizations/:id/client-grants/:grant_id'],
  },
  {
    family: 'risk assessment',
    instead: 'use attack protection',
    scope: 'attack_protection',
    reads: [
      { path: '/risk-assessments/settings', document: { enabled: false }, write: 'PATCH' },
      { path: '/risk-assessments/settings/new-device', document: { remember_for: 0 }, write: 'PATCH' },
    ],
    writes: [],
  },
  {
    family: 'supplemental signals',
    scope: 'attack_protection',
    reads: [{ path: '/supplemental-signals', document: { akamai_enabled: false }, write: 'PATCH' }],
    writes: [],
  },
  {
    family: 'bot detection',
    scope: 'attack_protection',
    reads: [{ path: '/attack-protection/bot-detection', status: 403, message: 'Bot detection is not available on this tenant.' }],
    writes: ['PATCH /attack-protection/bot-detection'],
  },
  {
    family: 'CAPTCHA',
    scope: 'attack_protection',
    reads: [{ path: '/attack-protection/captcha', status: 403, message: 'CAPTCHA is not available on this tenant.' }],
    writes: ['PATCH /attack-protection/captcha'],
  },
  {
    family: 'phone factor provider choice',
    instead: 'codes are sent through LATCHKEY_SMS_URL',
    scope: 'guardian_factors',
    reads: [
      { path: '/guardian/factors/phone/selected-provider', document: { provider: 'auth0' }, write: 'PUT' },
      { path: '/guardian/factors/phone/message-types', document: { message_types: ['sms'] }, write: 'PUT' },
    ],
    writes: [],
  },
  {
    family: 'multi-factor providers',
    instead: 'codes are sent through LATCHKEY_SMS_URL',
    scope: 'guardian_factors',
    reads: ['/guardian/factors/sms/providers/twilio', '/guardian/factors/phone/providers/twilio', '/guardian/factors/push-notification/providers/apns', '/guardian/factors/push-notification/providers/sns', '/guardian/factors/push-notification/providers/fcm'].map((path) => ({
      path,
      document: {},
      write: 'PUT' as const,
    })),
    writes: [],
  },
  {
    family: 'multi-factor message templates',
    instead: 'the texts are built in, in the prompts\' languages',
    scope: 'guardian_factors',
    reads: ['/guardian/factors/sms/templates', '/guardian/factors/phone/templates'].map((path) => ({ path, status: 404 as const, message: 'No message templates are set.' })),
    writes: ['PUT /guardian/factors/sms/templates', 'PUT /guardian/factors/phone/templates'],
  },
];
