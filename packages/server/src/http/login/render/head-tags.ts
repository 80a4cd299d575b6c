import { escapeHtml, html, raw, type Html } from './escape.js';
import type { HeadTag } from './model.js';
import { fillScript } from './script-values.js';

/** Elements a document head may hold; `base` is left out on purpose (it would redirect the login form). */
const HEAD_ELEMENTS = new Set(['meta', 'link', 'script', 'style', 'title', 'noscript']);
const VOID_ELEMENTS = new Set(['meta', 'link']);
const ATTRIBUTE_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

type Lookup = (path: string) => unknown;

/** A context value as plain text (objects as JSON), for an attribute or a text element. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Text content with `{{ path }}` filled in: inside scripts as inert script values, elsewhere as escaped text. */
function fillContent(tag: string, content: string, lookup: Lookup): string {
  if (tag === 'script') return fillScript(content, lookup);
  if (tag === 'style') return content.replace(PLACEHOLDER, (_whole, path: string) => asText(lookup(path)).replace(/[^A-Za-z0-9 #.,%-]/g, ''));
  return content.replace(PLACEHOLDER, (_whole, path: string) => escapeHtml(asText(lookup(path))));
}

/**
 * Content written as configured must not end its own element early: `</script` (any case) inside a script or
 * style would close it and let the rest be parsed as markup.
 */
function closeProof(tag: string, content: string): string {
  return content.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

/**
 * Attributes written as configured. Event handlers (`on...`) are left out: the page's policy would refuse them,
 * and a placeholder there would be script. `nonce` is the page's own, never a configured one.
 */
const writableAttribute = (attribute: string) => ATTRIBUTE_NAME.test(attribute) && !/^on/i.test(attribute) && attribute.toLowerCase() !== 'nonce';

/** Whether a configured tag is a script with its code inline (the page's nonce lets exactly these run). */
const isInlineScript = (tag: HeadTag) => tag.tag.toLowerCase() === 'script' && typeof tag.attributes?.src !== 'string';

/**
 * A script `src` with a placeholder would let request data choose which code runs (any package of a public CDN,
 * any path of a host): such a script is left out, and only fixed addresses are written and listed in the policy.
 */
const scriptSource = (tag: HeadTag): string | undefined => {
  const src = tag.tag.toLowerCase() === 'script' ? tag.attributes?.src : undefined;
  return typeof src === 'string' ? src : undefined;
};
const hasPlaceholder = (text: string) => /\{\{\s*[A-Za-z0-9_.-]+\s*\}\}/.test(text);

/**
 * One configured head tag as markup: a known head element, escaped attributes, its content as configured.
 * An inline script carries the response's CSP nonce; a script with `src` runs only from a host the policy lists.
 */
export function renderHeadTag(tag: HeadTag, lookup: Lookup, nonce: string): Html | undefined {
  const name = tag.tag.toLowerCase();
  const src = scriptSource(tag);
  if (!HEAD_ELEMENTS.has(name) || (src !== undefined && hasPlaceholder(src))) return undefined;
  const attributes = [
    ...Object.entries(tag.attributes ?? {})
      .filter(([attribute]) => writableAttribute(attribute))
      .map(([attribute, value]) => {
        if (value === true) return html` ${attribute}`;
        if (value === false || value === null || value === undefined) return undefined;
        return html` ${attribute}="${String(value).replace(PLACEHOLDER, (_whole, path: string) => asText(lookup(path)))}"`;
      }),
    isInlineScript(tag) && html` nonce="${nonce}"`,
  ];
  if (VOID_ELEMENTS.has(name)) return html`<${name}${attributes}>`;
  const content = tag.content ?? '';
  const body =
    name === 'title'
      ? // A title's text is escaped like any value (a title cannot hold markup).
        content.replace(PLACEHOLDER, (_whole, path: string) => asText(lookup(path)))
      : // raw: content as configured (tenant markup), its placeholders filled by fillContent for this element
        // (script values, style-safe text or escaped HTML) and made unable to close it by closeProof.
        raw(closeProof(name, fillContent(name, content, lookup)));
  return html`<${name}${attributes}>${body}</${name}>`;
}

/** The CSP source of a fixed script address: its http(s) origin, or `'self'` for a path on this server. */
function cspSource(src: string): string | undefined {
  const address = src.trim();
  if (address.startsWith('/') && !address.startsWith('//')) return "'self'";
  try {
    const url = new URL(address);
    return (url.protocol === 'https:' || url.protocol === 'http:') && /^[A-Za-z0-9:/.[\]-]+$/.test(url.origin) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The CSP sources of the configured scripts' `src` (those without placeholders, as written on the page). */
export function scriptSources(tags: readonly HeadTag[]): string[] {
  const sources = tags
    .map(scriptSource)
    .filter((src): src is string => src !== undefined && !hasPlaceholder(src))
    .map(cspSource);
  return [...new Set(sources.filter((source): source is string => source !== undefined))];
}
