/** Escaping for HTML written by the service (pages and e-mails): every untrusted text goes through here. */
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** JSON that can sit inside a <script> element: nothing in it can close the element or end a JS string early. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Markup the service built: what `html` returns, and what `raw` vouches for. The class is not exported as a value
 * and its text is private, so no plain string or look-alike object can pass for markup: only these two make one.
 */
class Html {
  readonly #markup: string;

  constructor(markup: string) {
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

export type { Html };

/**
 * What an `html` template may interpolate. Text and numbers are escaped; markup goes in as it is; an array is
 * its items one after the other (no separator); null, undefined and false write nothing, so that optional parts
 * read `${condition && html`…`}`. `true` is refused by the type: it would print "true".
 */
export type HtmlValue = string | number | Html | null | undefined | false | readonly HtmlValue[];

function markupOf(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(markupOf).join('');
  // Only reachable past the type checker (an object that merely looks like markup, a boolean true).
  throw new TypeError(`html cannot write a value of type ${typeof value}`);
}

/**
 * A tagged template for HTML: the template's own text is markup, every interpolated value is escaped unless it
 * is markup already (the result of another `html`, or of `raw`), so a forgotten escape cannot happen.
 */
export function html(template: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let markup = template[0] ?? '';
  values.forEach((value, index) => {
    markup += markupOf(value) + (template[index + 1] ?? '');
  });
  return new Html(markup);
}

/**
 * Text written as markup without escaping. Only for markup that is trusted or already made safe for where it
 * goes by other means (a constant stylesheet, JSON escaped for a script); each use says why.
 */
export function raw(markup: string): Html {
  return new Html(markup);
}
