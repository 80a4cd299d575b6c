/**
 * Actions as tenants write them, for the trigger suites to bind through the Management API. The platform's own
 * examples are kept exactly as its documentation gives them (only the template literals' backticks and `${` are
 * escaped for this file), each with the page it comes from, so that a test shows the documented code working
 * unmodified. Where no documented example fits (or it needs a package the sandbox cannot run), the action is ours,
 * and says so.
 */

/** A post-login, credentials-exchange, registration, password or phone-message action, as `actions.create` takes it. */
export interface ActionSource {
  name: string;
  trigger: ActionTriggerId;
  code: string;
  secrets?: Record<string, string>;
}

/** The triggers and the version of each that the platform runs now. */
export const TRIGGER_VERSIONS = {
  'post-login': 'v3',
  'credentials-exchange': 'v2',
  'pre-user-registration': 'v2',
  'post-user-registration': 'v2',
  'post-change-password': 'v2',
  'send-phone-message': 'v2',
} as const;
export type ActionTriggerId = keyof typeof TRIGGER_VERSIONS;

// --- post-login: https://auth0.com/docs/customize/actions/explore-triggers/post-login -------------------------

/** "Add user roles to ID and Access tokens". */
export const ADD_ROLES_TO_TOKENS = `/**
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  const namespace = 'https://my-app.example.com';
  if (event.authorization) {
    api.idToken.setCustomClaim(\`\${namespace}/roles\`, event.authorization.roles);
    api.accessToken.setCustomClaim(\`\${namespace}/roles\`, event.authorization.roles);
  }
};`;

/** "Access control": denies users of example.com at the application named "My SPA". */
export const DENY_EMAIL_DOMAIN_AT_APP = `/**
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  if (event.user.email && event.user.email.endsWith("@example.com") && event.client.name === "My SPA") {
    api.access.deny(\`Access to \${event.client.name} is not allowed.\`);
  }
};`;

/** "Deny access to anyone calling an API" (the API `http://todoapi2.api`). */
export const DENY_API_CALLERS = `/**
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  // In Actions, an API will be referred to as a Resource Server.
  if (event.resource_server && event.resource_server.identifier === "http://todoapi2.api") {
    api.access.deny("end_users_not_allowed");
  }
};`;

/** "Enrich the user profile". */
export const ENRICH_USER_PROFILE = `/**
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  api.user.setUserMetadata("favorite_color", "blue");
};`;

/** "Modify scopes on an access token" (the API `https://example.com/api`). */
export const ADD_SCOPE_FOR_API = `/**
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  if (event?.resource_server?.identifier === 'https://example.com/api') {
    api.accessToken.addScope("read:xyz");
  }
};`;

/**
 * Setting app metadata, from "How to Manage User Profile Metadata", tab "post-login Action":
 * https://auth0.com/docs/manage-users/user-accounts/metadata/manage-user-metadata
 */
export const SET_APP_METADATA_ONCE = `exports.onExecutePostLogin = async (event, api) => {
  if (event.user.app_metadata.didAnExpensiveTask) {
    console.log(\`Skipping the expensive task because it already occurred for \${event.user.email}.\`);

    return;
  }
  // do and expensive task
  api.user.setAppMetadata("didAnExpensiveTask", true);
};`;

/**
 * The platform's Actions template "IP address allowlist" for post-login (Dashboard > Actions > templates):
 * https://github.com/auth0/opensource-marketplace/blob/main/templates/ip-address-allowlist-POST_LOGIN
 * Secret: ALLOW_LIST.
 */
export const IP_ALLOWLIST_POST_LOGIN = `/**
 * Handler that will be called during the execution of a PostLogin flow.
 *
 * --- AUTH0 ACTIONS TEMPLATE https://github.com/auth0/opensource-marketplace/blob/main/templates/ip-address-allowlist-POST_LOGIN ---
 *
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
    // obtain the list of allowed IPs
    const ips = event.secrets.ALLOW_LIST?.split(',');
    if (!ips) {
        return api.access.deny('Invalid configuration');
    }

    // ensure the request IP is from an allowed IP address
    if (!ips.includes(event.request.ip)) {
        return api.access.deny('Access denied for this IP address');
    }
};

/**
 * Handler that will be invoked when this action is resuming after an external redirect. If your
 * onExecutePostLogin function does not perform a redirect, this function can be safely ignored.
 *
 * @param {Event} event - Details about the user and the context in which they are logging in.
 * @param {PostLoginAPI} api - Interface whose methods can be used to change the behavior of the login.
 */
// exports.onContinuePostLogin = async (event, api) => {
// };`;

// --- credentials-exchange: https://auth0.com/docs/customize/actions/explore-triggers/credentials-exchange --------

/** "Add custom claims to the access token". */
export const EXCHANGE_REQUEST_IP_CLAIM = `/**
 * @param {Event} event - Details about client credentials grant request.
 * @param {CredentialsExchangeAPI} api - Interface whose methods can be used to change the behavior of client credentials grant.
 */
exports.onExecuteCredentialsExchange = async (event, api) => {
  api.accessToken.setCustomClaim("https://my-api.exampleco.com/request-ip", event.request.ip);
};`;

/**
 * The documented "Access control" example denies by `event.request.geoip.continentCode`, which Latchkey leaves
 * empty (no address database), so it never denies here: this is the platform's template "IP address allowlist"
 * for credentials-exchange instead, unmodified:
 * https://github.com/auth0/opensource-marketplace/blob/main/templates/ip-address-allowlist-CREDENTIALS_EXCHANGE
 */
export const IP_ALLOWLIST_CREDENTIALS_EXCHANGE = `/**
 * Handler that will be called during the execution of a Client Credentials exchange.
 *
 * --- AUTH0 ACTIONS TEMPLATE https://github.com/auth0/opensource-marketplace/blob/main/templates/ip-address-allowlist-CREDENTIALS_EXCHANGE ---
 *
 * @param {Event} event - Details about client credentials grant request.
 * @param {CredentialsExchangeAPI} api - Interface whose methods can be used to change the behavior of client credentials grant.
 */
exports.onExecuteCredentialsExchange = async (event, api) => {
    // obtain the list of allowed IPs
    const ips = event.secrets.ALLOW_LIST?.split(',');
    if (!ips) {
        return api.access.deny('server_error', 'Invalid configuration');
    }

    // ensure the request IP is from an allowed IP address
    if (!ips.includes(event.request.ip)) {
        return api.access.deny(
            'invalid_request',
            'Access denied for this IP address'
        );
    }
};`;

/**
 * Ours: no documented example denies with `invalid_scope`, one of the three codes the credentials-exchange API
 * object allows (`invalid_scope`, `invalid_request`, `server_error`).
 */
export const DENY_WRITE_SCOPE_EXCHANGE = `exports.onExecuteCredentialsExchange = async (event, api) => {
  if (event.transaction.requested_scopes.includes('write:things')) {
    api.access.deny('invalid_scope', \`\${event.client.name} may not write things.\`);
  }
};`;

// --- pre-user-registration: https://auth0.com/docs/customize/actions/explore-triggers/pre-user-registration -----

/** "Deny registration by location": with no geoip data (Latchkey has none) it denies no one, and must not throw. */
export const DENY_REGISTRATION_BY_LOCATION = `/**
 * @param {Event} event - Details about the context and user that is attempting to register.
 * @param {PreUserRegistrationAPI} api - Interface whose methods can be used to change the behavior of the signup.
 */
exports.onExecutePreUserRegistration = async (event, api) => {
  if (event.request.geoip.continentCode === "NA") {

    // localize the error message 
    const LOCALIZED_MESSAGES = {
      en: 'You are not allowed to register.',
      es: 'No tienes permitido registrarte.'
    };

    const userMessage = LOCALIZED_MESSAGES[event.request.language] || LOCALIZED_MESSAGES['en'];
    api.access.deny('no_signups_from_north_america', userMessage);
  }
};`;

/** "Set metadata in the user profile". */
export const SET_SCREEN_NAME = `/**
 * @param {Event} event - Details about the context and user that is attempting to register.
 * @param {PreUserRegistrationAPI} api - Interface whose methods can be used to change the behavior of the signup.
 */
exports.onExecutePreUserRegistration = async (event, api) => {
  api.user.setUserMetadata("screen_name", "username");
};`;

/**
 * The platform's template "IP address allowlist" for pre-user-registration, unmodified (a denial by address, which
 * Latchkey can decide where the documented geoip example cannot):
 * https://github.com/auth0/opensource-marketplace/blob/main/templates/ip-address-allowlist-PRE_USER_REGISTRATION
 */
export const IP_ALLOWLIST_PRE_USER_REGISTRATION = `/**
 * Handler that will be called during the execution of a PreUserRegistration flow.
 *
 * --- AUTH0 ACTIONS TEMPLATE https://github.com/auth0/os-marketplace/blob/main/templates/ip-address-allowlist-PRE_USER_REGISTRATION ---
 *
 * @param {Event} event - Details about the context and user that is attempting to register.
 * @param {PreUserRegistrationAPI} api - Interface whose methods can be used to change the behavior of the signup.
 */
exports.onExecutePreUserRegistration = async (event, api) => {
    // obtain the list of allowed IPs
    const ips = event.secrets.ALLOW_LIST?.split(',');
    if (!ips) {
        // special note for this flow: userMessage (the second parameter) is displayed to the user.
        return api.access.deny('IP not allowed', 'Invalid configuration');
    }

    // ensure the request IP is from an allowed IP address
    if (!ips.includes(event.request.ip)) {
        // special note for this flow: userMessage (the second parameter) is displayed to the user.
        return api.access.deny(
            'IP not allowed',
            'Access denied for this IP address'
        );
    }
};`;

// --- post-user-registration, post-change-password, send-phone-message -----------------------------------------

/**
 * Ours. The documented post-user-registration examples ("Notify Slack when a new user registers" with
 * @slack/webhook, "Store the Auth0 user ID in a remote system" with axios) have no fetch variant; this makes the
 * axios example's call (`axios.post(url, { params: { email } })`) with fetch, to the secret API_URL.
 */
export const NOTIFY_REGISTRATION = `exports.onExecutePostUserRegistration = async (event, api) => {
  await fetch(event.secrets.API_URL + "/users", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ params: { email: event.user.email, user_id: event.user.user_id } }),
  });
};`;

/**
 * Ours. The documented post-change-password examples ("Invalidate the user's session in another system", "Send an
 * email after the user changes their password") use axios and have no fetch variant; this makes the first one's
 * call with fetch, to the secret API_URL.
 */
export const REVOKE_SESSION_ELSEWHERE = `exports.onExecutePostChangePassword = async (event) => {
  await fetch(event.secrets.API_URL + "/revoke-session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ params: { email: event.user.email } }),
  });
};`;

/**
 * Ours. The documented send-phone-message example ("Use a custom SMS provider") sends through aws-sdk's SNS client
 * and has no fetch variant; this hands the same `text` and `recipient` to an HTTP SMS provider (the secret
 * SMS_PROVIDER_URL) with fetch, and fails the sending when the provider refuses it.
 */
export const SEND_SMS_OVER_HTTP = `exports.onExecuteSendPhoneMessage = async (event) => {
  const text = event.message_options.text;
  const recipient = event.message_options.recipient;
  const response = await fetch(event.secrets.SMS_PROVIDER_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ Message: text, PhoneNumber: recipient }),
  });
  if (!response.ok) throw new Error("The SMS provider answered " + response.status);
};`;
