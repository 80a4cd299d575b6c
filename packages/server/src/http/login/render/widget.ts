import type { PolicyRule } from '../../../services/password-policy.js';
import { fillText } from '../../../services/rendering/texts/index.js';
import { html, safeHref, type Html } from './escape.js';
import type { PageModel } from './model.js';
import { isWebAuthnScreen, mfaActions, mfaDisplay, mfaFormControls, mfaHiddenFields, mfaScript } from './mfa-widget.js';
import { passkeyLoginForm, passkeyLoginScript } from './passkey-widget.js';

interface Field {
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  autocomplete: string;
}

/** A screen's text by its key (the platform's custom-text keys); empty when neither Latchkey nor the tenant has it. */
const textOf = (model: PageModel) => (key: string) => model.texts[key] ?? '';

/** The visible fields of each screen with a form, named as the platform's SDK posts them. */
function fieldsOf(model: PageModel): Field[] {
  const t = textOf(model);
  // With passkeys offered by autofill, the browser lists them under the identifier field (conditional UI).
  const identifierAutocomplete = model.passkeyLogin && model.passkeyLogin.challengeUi !== 'button' ? 'username webauthn' : 'username';
  const identifier: Field = model.connection?.requiresUsername
    ? { name: 'username', label: t('usernamePlaceholder'), type: 'text', autocomplete: identifierAutocomplete }
    : { name: 'username', label: t('emailPlaceholder'), type: 'email', autocomplete: identifierAutocomplete };
  const email: Field = { name: 'email', label: t('emailPlaceholder'), type: 'email', autocomplete: 'email' };
  const username: Field[] = model.connection?.requiresUsername ? [{ name: 'username', label: t('usernamePlaceholder'), type: 'text', autocomplete: 'username' }] : [];
  const password = (autocomplete: string, name = 'password'): Field => ({ name, label: t('passwordPlaceholder'), type: 'password', autocomplete });
  switch (model.screen) {
    case 'login':
      return [identifier, password('current-password')];
    case 'login-id':
      return [identifier];
    case 'login-password':
      return [password('current-password')];
    case 'login-passwordless-email-code':
    case 'login-passwordless-sms-otp':
      return [{ name: 'code', label: t('placeholder'), type: 'text', autocomplete: 'one-time-code' }];
    case 'signup':
      return [email, ...username, password('new-password')];
    case 'signup-id':
      return [email, ...username];
    case 'signup-password':
      return [password('new-password')];
    case 'reset-password-request':
      return [email];
    case 'organization-selection':
      return [{ name: 'organizationName', label: t('placeholder'), type: 'text', autocomplete: 'organization' }];
    case 'reset-password':
      return [password('new-password', 'password-reset'), { name: 're-enter-password', label: t('reEnterpasswordPlaceholder'), type: 'password', autocomplete: 'new-password' }];
    case 'mfa-otp-enrollment-qr':
    case 'mfa-otp-enrollment-code':
    case 'mfa-otp-challenge':
    case 'mfa-sms-challenge':
    case 'mfa-email-challenge':
      return [{ name: 'code', label: t('placeholder'), type: 'text', autocomplete: 'one-time-code' }];
    case 'mfa-recovery-code-challenge':
      return [{ name: 'code', label: t('placeholder'), type: 'text', autocomplete: 'off' }];
    case 'mfa-sms-enrollment':
      return [{ name: 'phone', label: t('placeholder'), type: 'text', autocomplete: 'tel' }];
    default:
      return [];
  }
}

const RULES_ID = 'password-rules';

/**
 * A strength rule in the page's language: the text `passwordRule` + its code (lengthAtLeast →
 * passwordRuleLengthAtLeast), its numbers filled in. The code itself when no text has that key: the built-in
 * texts word every rule services/password-policy.ts reports, so only a rule added there without texts shows it.
 */
function ruleText(model: PageModel, rule: PolicyRule): string {
  const text = model.texts[`passwordRule${rule.code.charAt(0).toUpperCase()}${rule.code.slice(1)}`];
  return text === undefined ? rule.code : fillText(text, rule.values);
}

/** A new password's rules as a list, under the field they describe. */
function passwordRules(policy: NonNullable<PageModel['passwordPolicy']>, model: PageModel): Html {
  const t = textOf(model);
  const item = (text: string, items: string[] = []) => html`<li>${text}${items.length > 0 && html`<ul>${items.map((inner) => html`<li>${inner}</li>`)}</ul>`}</li>`;
  const rules = [
    ...policy.rules.map((rule) => item(ruleText(model, rule), rule.items.map((inner) => ruleText(model, inner)))),
    ...(policy.dictionary ? [item(t('passwordRuleDictionary'))] : []),
    ...(policy.personalInfo ? [item(t('passwordRulePersonalInfo'))] : []),
  ];
  return html`<div id="${RULES_ID}" class="password-rules"><p>${t('passwordSecurityText')}</p><ul>${rules}</ul></div>`;
}

function input(field: Field, value: string | undefined, describedBy: string[], autofocus: boolean): Html {
  const id = `field-${field.name}`;
  // Passwords are never written back into a page.
  const shown = field.type !== 'password' && value !== undefined && html` value="${value}"`;
  const invalid = describedBy.includes('page-error') && html` aria-invalid="true"`;
  const described = describedBy.length > 0 && html` aria-describedby="${describedBy.join(' ')}"`;
  return html`${[
    html`<div class="field"><label for="${id}">${field.label}</label>`,
    html`<input id="${id}" name="${field.name}" type="${field.type}" autocomplete="${field.autocomplete}" required${shown}`,
    html`${invalid}${described}${autofocus && html` autofocus`}></div>`,
  ]}`;
}

function link(href: string | undefined, text: string, lead = ''): Html | undefined {
  const target = safeHref(href);
  return target ? html`<p class="link">${lead && html`${lead} `}<a href="${target}">${text}</a></p>` : undefined;
}

/** The heading and the sentence under it: the success and error screens word them as events. */
function heading(model: PageModel): { title: string; description: string } {
  const t = textOf(model);
  switch (model.screen) {
    case 'reset-password-success':
      return { title: t('eventTitle'), description: t('description') };
    case 'reset-password-error':
      return { title: t('eventTitleExpired'), description: t('descriptionExpired') };
    case 'reset-password-request':
      return { title: t('title'), description: t('descriptionEmail') };
    case 'reset-password-email':
      return { title: t('title'), description: t('emailDescription') };
    case 'consent':
      return { title: t('title'), description: t('messageSingleTenant') };
    case 'email-verification-result': {
      const status = model.screenData.status;
      if (status === 'success') return { title: t('verifiedTitle'), description: t('verifiedDescription') };
      if (status === 'already_verified') return { title: t('verifiedTitle'), description: t('alreadyVerifiedDescription') };
      return { title: t('errorTitle'), description: t('invalidAccountOrCodeDescription') };
    }
    default:
      return { title: t('title'), description: t('description') };
  }
}

/** The identifier a screen after `login-id` or `signup-id` is for, with the link that changes it. */
function identifierShown(model: PageModel): Html | undefined {
  const t = textOf(model);
  const shown = model.screenData.username ?? model.screenData.email;
  if (!shown || !['login-password', 'signup-password', 'login-passwordless-email-code', 'login-passwordless-sms-otp'].includes(model.screen)) return undefined;
  const change = safeHref(model.links.edit_identifier ?? model.links.back);
  const label = model.screen === 'login-passwordless-sms-otp' ? t('editText') : t('editEmailText');
  return html`<p class="identifier"><span>${shown}</span>${change && html` <a href="${change}" aria-label="${t('editLinkScreenReadableText') || label}">${label}</a>`}</p>`;
}

/** What the consent screen asks for: each scope, with the API's description of it where it has one. */
function scopeList(model: PageModel): Html | undefined {
  if (model.screen !== 'consent' || !model.scopes) return undefined;
  const item = (scope: { value: string; description: string }) =>
    html`<li><code>${scope.value}</code>${scope.description && html`<span class="scope-description"> · ${scope.description}</span>`}</li>`;
  return html`<ul class="scopes" aria-label="${model.texts.title ?? ''}">${model.scopes.map(item)}</ul>`;
}

/** A second submit button on the same form that posts an `action` (resend a code or an e-mail). */
function actionButton(model: PageModel): Html | undefined {
  const t = textOf(model);
  if (model.screen === 'login-passwordless-email-code' || model.screen === 'login-passwordless-sms-otp') {
    return html`<p class="link">${t('resendText')} <button class="link" type="submit" name="action" value="resend" formnovalidate>${t('resendActionText')}</button></p>`;
  }
  if (model.screen === 'reset-password-email') {
    return html`<button class="link" type="submit" name="action" value="resend-email-action">${t('resendLinkText')}</button>`;
  }
  if (model.screen === 'accept-invitation') {
    return html`<button type="submit" name="action" value="default">${t('buttonText')}</button>`;
  }
  if (model.screen === 'organization-picker') {
    // One button per organization, posting its id as the platform's SDK does (`selectOrganization({organization})`).
    return html`<div class="organizations">${(model.organizations ?? []).map(
      (organization) => html`<button type="submit" name="organization" value="${organization.id}">${organization.display_name ?? organization.name}</button>`,
    )}</div>`;
  }
  if (model.screen === 'logout' || model.screen === 'consent') {
    // The two answers to the question, as the platform's SDK posts them (`confirmLogout({action})`, `accept()`, `deny()`).
    return html`<button type="submit" name="action" value="accept">${t('acceptButtonText')}</button><button class="secondary" type="submit" name="action" value="deny">${t('declineButtonText')}</button>`;
  }
  return undefined;
}

/**
 * A button per federated connection the screen offers, in a form of its own that posts the transaction's state and
 * the connection's name, as the SDK's `federatedLogin({connection})` does: a password typed into the other form
 * never goes along to a login that happens elsewhere.
 */
function federatedButtons(model: PageModel): Html | undefined {
  const t = textOf(model);
  const shown = (model.alternateConnections ?? []).filter((connection) => connection.showAsButton);
  if (shown.length === 0 || !model.action) return undefined;
  const label = (displayName: string) => (t('federatedConnectionButtonText') ? fillText(t('federatedConnectionButtonText'), { connectionName: displayName }) : displayName);
  const buttons = shown.map(
    (connection) =>
      html`<button class="secondary" type="submit" name="connection" value="${connection.name}">${connection.iconUrl && html`<img src="${connection.iconUrl}" alt="">`}<span>${label(connection.displayName)}</span></button>`,
  );
  const hidden = Object.entries(model.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<div class="federated"><p class="separator">${t('separatorText')}</p><form method="post" action="${model.action}">${hidden}${buttons}</form></div>`;
}

/**
 * The lines under a form's message: for a weak password, the policy's strength rules in the page's language (`* `
 * before a rule, ` * ` before its items, as the platform's policy text lays them out); otherwise the description.
 */
function errorDetail(model: PageModel): string[] {
  const policy = model.passwordPolicy;
  if (model.errors[0]?.code === 'password-too-weak' && policy) {
    return policy.rules.flatMap((rule) => [`* ${ruleText(model, rule)}`, ...rule.items.map((item) => ` * ${ruleText(model, item)}`)]);
  }
  return (model.errorDescription ?? '').split('\n').filter(Boolean);
}

/** The screen's own markup (heading, message, form, links): what `{%- auth0:widget -%}` stands for. */
export function renderWidget(model: PageModel): Html {
  const t = textOf(model);
  const { title, description } = heading(model);
  const error = model.errors[0];
  const alert =
    error &&
    html`<div id="page-error" class="error" role="alert"><p>${error.message}</p>${
      model.screen === 'error'
        ? html`<p class="code">${t('errorCodeLabel')}: <code>${error.code}</code></p>`
        : // On a form, the description details the message, line by line.
          errorDetail(model).map((line) => html`<p class="detail">${line}</p>`)
    }</div>`;
  // The application's own logo first, then the tenant's branding, then its settings' picture.
  const logo = safeHref(model.client.logo_uri ?? model.branding?.logo_url ?? model.tenant.picture_url);
  // The logout and consent questions greet the user by name when there is one (the text would read "Hello ," without).
  const salute = model.userName && (model.screen === 'logout' ? t('userSalute') : model.screen === 'consent' ? t('pickerTitle') : undefined);
  const header = html`<header>${logo && html`<img class="logo" src="${logo}" alt="${model.client.name}">`}<h1>${title}</h1>${salute && html`<p class="salute">${salute}</p>`}<p>${description}</p></header>`;

  const fields = fieldsOf(model);
  const extraAction = actionButton(model) ?? mfaActions(model);
  const controls = mfaFormControls(model);
  // Screens whose main action is a button without a field (the recovery code recorded, a WebAuthn ceremony).
  const submitOnly = controls !== undefined || isWebAuthnScreen(model.screen);
  const form =
    (fields.length > 0 || extraAction || submitOnly) &&
    model.action &&
    html`${[
      html`<form method="post" action="${model.action}" novalidate${isWebAuthnScreen(model.screen) && html` data-webauthn`}>`,
      Object.entries(model.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`),
      mfaHiddenFields(model),
      fields.map((field, index) => {
        const rules = (field.name === 'password' || field.name === 'password-reset') && model.passwordPolicy ? model.passwordPolicy : undefined;
        const describedBy = [...(error ? ['page-error'] : []), ...(rules ? [RULES_ID] : [])];
        return html`${input(field, model.values[field.name], describedBy, index === 0)}${rules && passwordRules(rules, model)}`;
      }),
      controls,
      (fields.length > 0 || submitOnly) && html`<button type="submit">${t('createButtonText') || t('buttonText') || 'Continue'}</button>`,
      extraAction,
      html`</form>`,
    ]}`;

  const loginScreens = ['login', 'login-id', 'login-password'];
  const links = [
    loginScreens.includes(model.screen) && link(model.links.reset_password, t('forgotPasswordText')),
    loginScreens.includes(model.screen) && link(model.links.signup, t('signupActionLinkText'), t('signupActionText')),
    model.screen.startsWith('signup') && link(model.links.login, t('loginActionLinkText'), t('loginActionText')),
    model.screen === 'reset-password-request' && link(model.links.login, t('backToLoginLinkText')),
    model.screen === 'reset-password-email' && link(model.links.login, t('backButtonText')),
    model.screen === 'reset-password-success' && link(model.links.application, t('buttonText')),
    model.screen === 'email-verification-result' && link(model.links.login, t('buttonText')),
  ];

  return html`<main class="widget" data-screen="${model.screen}">${header}${identifierShown(model)}${scopeList(model)}${alert}${mfaDisplay(model)}${form}${passkeyLoginForm(model)}${federatedButtons(model)}${links}${mfaScript(model)}${passkeyLoginScript(model)}</main>`;
}

/** The page title: the screen's `pageTitle` (it names the application). */
export function pageTitle(model: PageModel): string {
  return model.texts.pageTitle ?? model.client.name;
}
