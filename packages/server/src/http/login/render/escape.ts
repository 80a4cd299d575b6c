export { escapeHtml, html, jsonForScript, raw, type Html } from '../../../text/html.js';

/** A link target the page may write: http(s) or a path on this server; anything else (javascript:, data:) is dropped. */
export function safeHref(target: string | undefined): string | undefined {
  if (!target) return undefined;
  if (target.startsWith('/') && !target.startsWith('//')) return target;
  try {
    const url = new URL(target);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
