/**
 * What the console knows of each trigger: the name the platform's dashboard gives it, the handler its code exports,
 * and a sample event for the test runner (the fields the platform documents for that trigger, with example values).
 */
interface TriggerInfo {
  label: string;
  handler: string;
  sample: Record<string, unknown>;
}

const request = {
  ip: '203.0.113.10',
  method: 'POST',
  hostname: 'login.example.com',
  language: 'en',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36',
  geoip: { countryCode: 'NL', countryCode3: 'NLD', countryName: 'Netherlands', cityName: 'Amsterdam', timeZone: 'Europe/Amsterdam' },
  query: {},
  body: {},
};
const tenant = { id: 'latchkey' };
const connection = { id: 'con_sample', name: 'Username-Password-Authentication', strategy: 'auth0', metadata: {} };
const client = { client_id: 'sample-client-id', name: 'My App', metadata: {} };
const user = {
  user_id: 'auth0|sample',
  email: 'jane@example.com',
  email_verified: true,
  name: 'Jane Doe',
  nickname: 'jane',
  picture: 'https://example.com/jane.png',
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
  app_metadata: {},
  user_metadata: {},
  identities: [{ connection: connection.name, provider: 'auth0', user_id: 'sample', isSocial: false }],
};

export const TRIGGERS: Record<string, TriggerInfo> = {
  'post-login': {
    label: 'Login / Post Login',
    handler: 'onExecutePostLogin',
    sample: {
      transaction: { id: 'sample-transaction', locale: 'en', protocol: 'oidc-basic-profile', requested_scopes: ['openid', 'profile', 'email'], redirect_uri: 'https://example.com/callback', ui_locales: [] },
      authentication: { methods: [{ name: 'pwd', timestamp: '2024-01-01T00:00:00.000Z' }] },
      authorization: { roles: [] },
      client,
      connection,
      request,
      stats: { logins_count: 1 },
      tenant,
      user,
    },
  },
  'credentials-exchange': {
    label: 'Machine to Machine',
    handler: 'onExecuteCredentialsExchange',
    sample: {
      transaction: { requested_scopes: ['read:reports'] },
      client,
      resource_server: { identifier: 'https://api.example.com' },
      request,
      tenant,
      accessToken: { customClaims: {}, scope: ['read:reports'] },
    },
  },
  'pre-user-registration': {
    label: 'Pre User Registration',
    handler: 'onExecutePreUserRegistration',
    sample: { user: { email: user.email, app_metadata: {}, user_metadata: {} }, client, connection, request, tenant, transaction: { locale: 'en' } },
  },
  'post-user-registration': {
    label: 'Post User Registration',
    handler: 'onExecutePostUserRegistration',
    sample: { user, connection, request, tenant },
  },
  'post-change-password': {
    label: 'Post Change Password',
    handler: 'onExecutePostChangePassword',
    sample: { user, connection, request, tenant },
  },
  'send-phone-message': {
    label: 'Send Phone Message',
    handler: 'onExecuteSendPhoneMessage',
    sample: {
      message_options: { action: 'enrollment', code: '123456', message_type: 'sms', recipient: '+15555550100', text: 'Your verification code is 123456' },
      user,
      client,
      request,
      tenant,
    },
  },
};

export const triggerLabel = (id: string) => TRIGGERS[id]?.label ?? id;

/** The code a new action starts with: the trigger's handler, empty, as the platform's editor offers it. */
export function starterCode(trigger: string): string {
  const handler = TRIGGERS[trigger]?.handler ?? 'onExecutePostLogin';
  return `/**
 * Handler called during the ${triggerLabel(trigger)} flow.
 * @param {Event} event - Details about the user and the context of the flow.
 * @param {API} api - Methods that change the behaviour of the flow.
 */
exports.${handler} = async (event, api) => {
};
`;
}

export const sampleEvent = (trigger: string) => JSON.stringify(TRIGGERS[trigger]?.sample ?? {}, null, 2);
