/**
 * Escaping for XML the service writes (SAML messages and metadata). The five characters that can end text or an
 * attribute value become character references (`'` as `&#39;`, which XML reads like `&apos;`).
 */
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}

/**
 * XML the service built: what `xml` returns, and what `rawXml` vouches for. As with `Html` (text/html.ts), only
 * these two make one, and it is a type of its own: HTML markup is not XML, and the other way round.
 */
class Xml {
  readonly #markup: string;

  constructor(markup: string) {
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

export type { Xml };

/** What an `xml` template may interpolate: as for `html`, text and numbers escaped, markup as it is, arrays joined, null/undefined/false nothing. */
export type XmlValue = string | number | Xml | null | undefined | false | readonly XmlValue[];

function markupOf(value: XmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Xml) return value.toString();
  if (typeof value === 'string') return escapeXml(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(markupOf).join('');
  // Only reachable past the type checker (an object that merely looks like markup, a boolean true).
  throw new TypeError(`xml cannot write a value of type ${typeof value}`);
}

/** A tagged template for XML: the template's own text is markup, every interpolated value is escaped unless it is an `Xml`. */
export function xml(template: TemplateStringsArray, ...values: readonly XmlValue[]): Xml {
  let markup = template[0] ?? '';
  values.forEach((value, index) => {
    markup += markupOf(value) + (template[index + 1] ?? '');
  });
  return new Xml(markup);
}

/** Text written as XML without escaping, for markup made elsewhere from our own `xml` (e.g. once signed); each use says why. */
export function rawXml(markup: string): Xml {
  return new Xml(markup);
}
