import type { OAuthConfig } from '../config-cache.js';
import type { CustomTexts } from './custom-texts.js';
import { promptSettingsOf, type PromptSettings } from './settings.js';

export type { CustomTexts } from './custom-texts.js';
export type { PromptSettings } from './settings.js';

/**
 * What the hosted pages read of the prompts: the settings and the custom texts, through the configuration cache,
 * so a change made on any node is seen at once (the change bus clears the cache) and a page costs no query.
 */
export interface Prompts {
  settings(): Promise<PromptSettings>;
  /**
   * The tenant's overrides of one prompt in one language (screen -> key -> text), `{}` when none: only what the
   * tenant stored, without the built-in texts. The objects are shared and frozen: copy before changing them.
   */
  customText(prompt: string, language: string): Promise<CustomTexts>;
}

export function hostedPrompts(config: Pick<OAuthConfig, 'tenantDocument' | 'customTexts'>): Prompts {
  return {
    settings: async () => promptSettingsOf(await config.tenantDocument()),
    customText: async (prompt, language) => (await config.customTexts(prompt, language)) ?? {},
  };
}
