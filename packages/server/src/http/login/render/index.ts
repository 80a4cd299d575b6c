import { lookup, universalLoginContext } from './universal-login-context.js';
import { html, jsonForScript, raw, type Html } from './escape.js';
import { renderHeadTag, scriptSources } from './head-tags.js';
import type { PageModel } from './model.js';
import { brandingStyle, STYLESHEET } from './stylesheet.js';
import { pageTitle, renderWidget } from './widget.js';

export type { PageModel, RenderingConfig } from './model.js';
export { selectRenderingConfig, type RenderingTarget } from './select.js';

const HEAD_SLOT = /\{%-?\s*auth0:head\s*-?%\}/;
const WIDGET_SLOT = /\{%-?\s*auth0:widget\s*-?%\}/;

/** The head tags Latchkey adds by default: viewport, icon, title, its own stylesheet and the tenant's colours. */
function defaultHead(model: PageModel): Html {
  const favicon = model.branding?.favicon_url;
  const colors = brandingStyle(model.branding);
  return html`${[
    html`<meta name="viewport" content="width=device-width, initial-scale=1">`,
    html`<meta name="robots" content="noindex, nofollow">`,
    favicon ? html`<link rel="icon" href="${favicon}">` : html`<link rel="icon" href="/favicon.ico" type="image/svg+xml">`,
    html`<title>${pageTitle(model)}</title>`,
    // raw: our own constant stylesheet (a <style> element does not decode HTML escapes).
    html`<style nonce="${model.cspNonce}">${raw(STYLESHEET)}</style>`,
    // raw: colours that brandingOf let through only as #rgb or #rrggbb, so nothing else can reach the style.
    colors && html`<style nonce="${model.cspNonce}">${raw(colors)}</style>`,
  ]}`;
}

function document(model: PageModel, head: Html, body: Html): string {
  const template = model.renderingConfig?.use_page_template ? model.pageTemplate : undefined;
  // A template without both slots cannot hold the page; it is ignored rather than half-applied.
  // The template is the tenant's own markup, written as configured around our head and widget.
  if (template && HEAD_SLOT.test(template) && WIDGET_SLOT.test(template)) {
    return template.replace(HEAD_SLOT, () => `<meta charset="utf-8">${head}`).replace(WIDGET_SLOT, () => String(body));
  }
  return String(html`<!DOCTYPE html><html lang="${model.locale}"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`);
}

/**
 * The advanced page, as the platform serves it to a tenant's own code: `window.universal_login_context` set by an
 * inline script (this response's nonce; the JSON escaped so that no value can end the script), then the configured
 * head tags that load the tenant's bundle, and an empty body for that bundle to fill.
 */
function advancedPage(model: PageModel): string {
  const config = model.renderingConfig;
  const context = universalLoginContext(model);
  const configured = (config?.head_tags ?? []).map((tag) => renderHeadTag(tag, (path) => lookup(context, path), model.cspNonce));
  // raw: jsonForScript escapes for the script element it sits in, where HTML escaping would change the data.
  const contextScript = html`<script nonce="${model.cspNonce}">window.universal_login_context = ${raw(jsonForScript(context))};</script>`;
  const head = html`${!config?.default_head_tags_disabled && defaultHead(model)}${contextScript}${configured}`;
  return document(model, head, html``);
}

/** A hosted page as a complete HTML document. Every value from a request or a tenant setting is escaped. */
export function renderPage(model: PageModel): string {
  if (model.renderingConfig?.rendering_mode === 'advanced') return advancedPage(model);
  return document(model, defaultHead(model), renderWidget(model));
}

/**
 * The page's Content-Security-Policy. Standard pages run only their own nonce'd code. Advanced pages load the
 * tenant's configured styles, images and code, so only scripts are restricted: the configured inline scripts
 * (which carry this response's nonce) and the hosts of configured script `src`, nothing else. No form-action:
 * browsers apply it to the redirect that follows a successful login, to the application.
 */
export function pagePolicy(model: PageModel): string {
  const framing = "base-uri 'none'; frame-ancestors 'none'";
  const nonce = `'nonce-${model.cspNonce}'`;
  if (model.renderingConfig?.rendering_mode !== 'advanced') {
    return `default-src 'self'; script-src ${nonce}; style-src 'self' ${nonce}; img-src 'self' https: data:; object-src 'none'; ${framing}`;
  }
  const hosts = scriptSources(model.renderingConfig.head_tags ?? []);
  return `script-src ${[nonce, ...hosts].join(' ')}; object-src 'none'; ${framing}`;
}
