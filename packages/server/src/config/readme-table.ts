import { SETTINGS, type Setting } from './settings.js';

export const TABLE_START = '<!-- settings:start -->';
export const TABLE_END = '<!-- settings:end -->';

function shownDefault(setting: Setting): string {
  const shown = setting.shownDefault ?? setting.default;
  return shown === undefined ? '(unset)' : `\`${shown}\``;
}

/** The README's configuration table, rendered from the settings schema. */
export function settingsTable(): string {
  const rows = SETTINGS.map((setting: Setting) => `| \`${setting.env}\` | ${shownDefault(setting)} | ${setting.meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Replaces the table between the markers; throws when the markers are missing. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md needs the ${TABLE_START} and ${TABLE_END} markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${settingsTable()}\n${readme.slice(end)}`;
}
