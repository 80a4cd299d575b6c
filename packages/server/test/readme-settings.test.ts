import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSettingsTable } from '../src/config/readme-table.js';
import { SETTINGS } from '../src/config/settings.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with the two commands', () => {
    const firstSection = readme.slice(0, 800);
    expect(firstSection).toContain('npm ci && npm start');
    expect(firstSection).toContain('npm test');
  });

  it('has the configuration table generated from the settings schema (run `npm run docs` after changing settings)', () => {
    expect(withSettingsTable(readme)).toBe(readme);
    for (const setting of SETTINGS) expect(readme).toContain(`\`${setting.env}\``);
  });
});
