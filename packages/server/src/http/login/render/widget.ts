import { html, safeHref, type Html } from './escape.js';
import type { PageModel } from './model.js';
import { catalogueFor, fill, type Catalogue } from './texts.js';

interface Field {
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  autocomplete: string;
}

/** The visible fields of each screen with a form. */
function fieldsOf(model: PageModel, texts: Catalogue): Field[] {
  const password = (autocomplete: string): Field => ({ name: 'password', label: texts.fields.password, type: 'password', autocomplete });
  switch (model.screen) {
    case 'login':
      // Labelled by what the connection accepts: user names exist only where the connection requires them.
      return [
        model.connection?.requiresUsername
          ? { name: 'username', label: texts.fields.usernameOrEmail, type: 'text', autocomplete: 'username' }
          : { name: 'username', label: texts.fields.email, type: 'email', autocomplete: 'username' },
        password('current-password'),
      ];
    case 'signup':
      return [
        { name: 'email', label: texts.fields.email, type: 'email', autocomplete: 'email' },
        ...(model.connection?.requiresUsername ? [{ name: 'username', label: texts.fields.username, type: 'text', autocomplete: 'username' } as const] : []),
        password('new-password'),
      ];
    case 'reset-password-request':
      return [{ name: 'email', label: texts.fields.email, type: 'email', autocomplete: 'email' }];
    case 'reset-password':
      return [password('new-password'), { name: 'password-confirmation', label: texts.fields.passwordConfirmation, type: 'password', autocomplete: 'new-password' }];
    default:
      return [];
  }
}

const RULES_ID = 'password-rules';

/** A new password's rules as a list, under the field they describe. */
function passwordRules(policy: NonNullable<PageModel['passwordPolicy']>, texts: Catalogue): Html {
  const item = (text: string, items: string[] = []) => html`<li>${text}${items.length > 0 && html`<ul>${items.map((inner) => html`<li>${inner}</li>`)}</ul>`}</li>`;
  const rules = [
    ...policy.rules.map((rule) => item(rule.text, rule.items)),
    ...(policy.dictionary ? [item(texts.passwordRules.dictionary)] : []),
    ...(policy.personalInfo ? [item(texts.passwordRules.personalInfo)] : []),
  ];
  return html`<div id="${RULES_ID}" class="password-rules"><p>${texts.passwordRules.heading}</p><ul>${rules}</ul></div>`;
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

/** The message of the page: the catalogue's text for the code, or on the error page the server's description. */
function errorMessage(model: PageModel, texts: Catalogue): string | undefined {
  if (!model.errorCode) return undefined;
  if (model.screen === 'error') return model.errorDescription ?? texts.genericError;
  return texts.errors[model.errorCode] ?? texts.genericError;
}

function link(href: string | undefined, text: string): Html | undefined {
  const target = safeHref(href);
  return target ? html`<p class="link"><a href="${target}">${text}</a></p>` : undefined;
}

/** The screen's own markup (heading, message, form, links): what `{%- auth0:widget -%}` stands for. */
export function renderWidget(model: PageModel): Html {
  const texts = catalogueFor(model.locale);
  const screen = texts.screens[model.screen];
  const description = fill(screen.description, { application: model.client.name, email: model.values.email ?? '' });
  const message = errorMessage(model, texts);
  const alert =
    message &&
    html`<div id="page-error" class="error" role="alert"><p>${message}</p>${
      model.screen === 'error'
        ? html`<p class="code">${texts.errorCodeLabel}: <code>${model.errorCode ?? ''}</code></p>`
        : // On a form, the description details the message (e.g. the rules of the password policy), line by line.
          (model.errorDescription ?? '').split('\n').filter(Boolean).map((line) => html`<p class="detail">${line}</p>`)
    }</div>`;
  const logo = safeHref(model.client.logo_uri ?? model.tenant.picture_url);
  const header = html`<header>${logo && html`<img class="logo" src="${logo}" alt="${model.client.name}">`}<h1>${screen.title}</h1><p>${description}</p></header>`;

  const fields = fieldsOf(model, texts);
  const form =
    fields.length > 0 &&
    model.action &&
    html`${[
      html`<form method="post" action="${model.action}" novalidate>`,
      Object.entries(model.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`),
      fields.map((field, index) => {
        const rules = field.name === 'password' && model.passwordPolicy ? model.passwordPolicy : undefined;
        const describedBy = [...(message ? ['page-error'] : []), ...(rules ? [RULES_ID] : [])];
        return html`${input(field, model.values[field.name], describedBy, index === 0)}${rules && passwordRules(rules, texts)}`;
      }),
      html`<button type="submit">${screen.buttonText ?? texts.links.continue}</button></form>`,
    ]}`;

  const links = [
    model.screen === 'login' && link(model.links.resetPassword, texts.links.resetPassword),
    model.screen === 'login' && link(model.links.signup, texts.links.signup),
    model.screen === 'signup' && link(model.links.login, texts.links.login),
    model.screen === 'reset-password-success' && link(model.links.application, fill(texts.links.backToApplication, { application: model.client.name })),
    model.screen.startsWith('reset-password') && model.screen !== 'reset-password-success' && link(model.links.login, texts.links.backToLogin),
  ];

  return html`<main class="widget" data-screen="${model.screen}">${header}${alert}${form}${links}</main>`;
}

/** The page title: the screen's title and the application's name. */
export function pageTitle(model: PageModel): string {
  return `${catalogueFor(model.locale).screens[model.screen].title} · ${model.client.name}`;
}
