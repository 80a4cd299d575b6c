import { escapeHtml, jsonForScript } from './escape.js';
import type { HeadTag } from './model.js';

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

/** Text content with `{{ path }}` filled in: inside scripts as a JSON literal, elsewhere as escaped text. */
function fillContent(tag: string, content: string, lookup: Lookup): string {
  if (tag === 'script') return content.replace(PLACEHOLDER, (_whole, path: string) => jsonForScript(lookup(path) ?? null));
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

/** One configured head tag as markup: a known head element, escaped attributes, its content as configured. */
export function renderHeadTag(tag: HeadTag, lookup: Lookup): string {
  const name = tag.tag.toLowerCase();
  if (!HEAD_ELEMENTS.has(name)) return '';
  const attributes = Object.entries(tag.attributes ?? {})
    .filter(([attribute]) => ATTRIBUTE_NAME.test(attribute))
    .map(([attribute, value]) => {
      if (value === true) return ` ${attribute}`;
      if (value === false || value === null || value === undefined) return '';
      return ` ${attribute}="${escapeHtml(String(value).replace(PLACEHOLDER, (_whole, path: string) => asText(lookup(path))))}"`;
    })
    .join('');
  if (VOID_ELEMENTS.has(name)) return `<${name}${attributes}>`;
  const content = tag.content ?? '';
  const body =
    name === 'title'
      ? escapeHtml(content.replace(PLACEHOLDER, (_whole, path: string) => asText(lookup(path))))
      : closeProof(name, fillContent(name, content, lookup));
  return `<${name}${attributes}>${body}</${name}>`;
}
