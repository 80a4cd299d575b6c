import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import { PROMPT_SCREENS } from '../rendering/catalogue.js';
import { PROMPT_LANGUAGES } from './languages.js';

/** Overrides of one prompt in one language: screen name -> text key -> text. */
export type CustomTexts = Record<string, Record<string, string>>;

/** The limits of one screen's overrides (the Management API's schema states the same). */
export const CUSTOM_TEXT_LIMITS = { keyLength: 100, textLength: 2000, keysPerScreen: 200 } as const;

/** The screens of the prompt; 404 for a prompt or language the platform does not have (checked before the body). */
function screensOf(prompt: string, language: string): readonly string[] {
  const screens = Object.hasOwn(PROMPT_SCREENS, prompt) ? PROMPT_SCREENS[prompt] : undefined;
  if (!screens) throw new ServiceError('not_found', 'The prompt does not exist.', 'inexistent_prompt');
  if (!PROMPT_LANGUAGES.has(language)) throw new ServiceError('not_found', `The language "${language}" is not supported.`, 'inexistent_language');
  return screens;
}

const invalid = (message: string) => new ServiceError('invalid', message, 'invalid_body');

/**
 * Every rule of a replacement, checked before anything is stored: only the prompt's screens, each an object of
 * texts within the limits. Returns a copy built with own data properties only, so a key such as `__proto__`
 * stays a plain key.
 */
function checkedTexts(prompt: string, screens: readonly string[], body: unknown): CustomTexts {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The custom texts must be an object of screens.');
  const checked: [string, Record<string, string>][] = [];
  for (const [screen, texts] of Object.entries(body)) {
    if (!screens.includes(screen)) throw new ServiceError('invalid', `The screen "${screen}" does not belong to the prompt "${prompt}".`, 'invalid_screen');
    if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) throw invalid(`The texts of the screen "${screen}" must be an object of strings.`);
    const entries = Object.entries(texts as Record<string, unknown>);
    if (entries.length > CUSTOM_TEXT_LIMITS.keysPerScreen) {
      throw invalid(`The screen "${screen}" has ${entries.length} texts; at most ${CUSTOM_TEXT_LIMITS.keysPerScreen} are allowed.`);
    }
    for (const [key, text] of entries) {
      if (key.length < 1 || key.length > CUSTOM_TEXT_LIMITS.keyLength) {
        throw invalid(`A text key of the screen "${screen}" must be 1 to ${CUSTOM_TEXT_LIMITS.keyLength} characters long.`);
      }
      if (typeof text !== 'string') throw invalid(`The text "${key}" of the screen "${screen}" must be a string.`);
      if (text.length > CUSTOM_TEXT_LIMITS.textLength) {
        throw invalid(`The text "${key}" of the screen "${screen}" is ${text.length} characters long; at most ${CUSTOM_TEXT_LIMITS.textLength} are allowed.`);
      }
    }
    checked.push([screen, Object.fromEntries(entries as [string, string][])]);
  }
  return Object.fromEntries(checked);
}

/** `GET/PUT /api/v2/prompts/{prompt}/custom-text/{language}`, read from and written to the database directly. */
export function customTextsService(deps: { storage: Storage; tenantId: string }) {
  const { storage, tenantId } = deps;
  return {
    /** The stored overrides, `{}` when none (the defaults are not shown). */
    async get(prompt: string, language: string): Promise<CustomTexts> {
      screensOf(prompt, language);
      return (await storage.promptCustomTexts.get<CustomTexts>(tenantId, prompt, language)) ?? {};
    },
    /** Replaces every override of the prompt in the language: all checked first, then one write. */
    async replace(prompt: string, language: string, body: unknown): Promise<CustomTexts> {
      const texts = checkedTexts(prompt, screensOf(prompt, language), body);
      await storage.promptCustomTexts.put(tenantId, prompt, language, texts);
      return texts;
    },
  };
}
