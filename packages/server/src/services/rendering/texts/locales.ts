/**
 * The languages the hosted pages ship texts for, and the choice of one for a page: the application asks with
 * `ui_locales` (space-separated, most wanted first), the tenant decides which languages it offers
 * (`enabled_locales`, first = its default).
 */
export const BUILT_IN_LOCALES = ['en', 'fr', 'de', 'es', 'pt-BR', 'ja'] as const;

export type BuiltInLocale = (typeof BUILT_IN_LOCALES)[number];

/** A tag's built-in spelling (`pt-br` → `pt-BR`); undefined when Latchkey ships no texts for it. */
export function builtInLocale(tag: string): BuiltInLocale | undefined {
  const lowered = tag.toLowerCase();
  return BUILT_IN_LOCALES.find((locale) => locale.toLowerCase() === lowered);
}

/** The primary language subtag, lower-cased: `fr` for `fr-CA`. */
function languageOf(tag: string): string {
  return (tag.split('-')[0] ?? '').toLowerCase();
}

/**
 * The locale of a page: the first wanted tag the tenant enabled and Latchkey ships, matched exactly (ignoring
 * case) or else by language, so `fr-CA` gets `fr` and a bare `pt` gets `pt-BR`; every wanted tag is tried this
 * way before the next, since the user prefers a neighbouring language to the next one on the list. With no match,
 * the tenant's first enabled locale Latchkey ships, else English.
 */
export function pickLocale(uiLocales: string | undefined, enabledLocales: readonly string[]): string {
  const offered = [...new Set(enabledLocales.map(builtInLocale).filter((locale) => locale !== undefined))];
  for (const wanted of (uiLocales ?? '').split(/\s+/).filter(Boolean)) {
    const exact = offered.find((locale) => locale.toLowerCase() === wanted.toLowerCase());
    if (exact) return exact;
    const language = languageOf(wanted);
    const neighbour = offered.find((locale) => locale.toLowerCase() === language) ?? offered.find((locale) => languageOf(locale) === language);
    if (neighbour) return neighbour;
  }
  return offered[0] ?? 'en';
}
