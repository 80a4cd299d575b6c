/**
 * The languages the platform takes custom texts in (its Management API's language enum, as the official SDK
 * `auth0` v7 lists it). Tags are matched exactly, as the platform's enum is: `pt-BR`, not `pt-br`. Latchkey's
 * hosted pages ship texts for six of them (en, fr, de, es, pt-BR, ja); overrides in the others are stored and
 * served to advanced screens as given.
 */
export const PROMPT_LANGUAGES: ReadonlySet<string> = new Set([
  'am', 'ar', 'ar-EG', 'ar-SA', 'az', 'bg', 'bn', 'bs', 'ca-ES', 'cnr', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en-CA',
  'es', 'es-419', 'es-AR', 'es-MX', 'et', 'eu-ES', 'fa', 'fi', 'fr', 'fr-CA', 'fr-FR', 'gl-ES', 'gu', 'he', 'hi',
  'hr', 'hu', 'hy', 'id', 'is', 'it', 'ja', 'ka', 'kk', 'kn', 'ko', 'lt', 'lv', 'mk', 'ml', 'mn', 'mr', 'ms', 'my',
  'nb', 'nl', 'nn', 'no', 'pa', 'pl', 'pt', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sk', 'sl', 'so', 'sq', 'sr', 'sv', 'sw',
  'ta', 'te', 'th', 'tl', 'tr', 'uk', 'ur', 'vi', 'zgh', 'zh-CN', 'zh-HK', 'zh-MO', 'zh-TW',
]);
