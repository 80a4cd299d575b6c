// Regenerates the README's configuration table from the settings schema (`npm run docs`).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../packages/server/src/config/readme-table.js';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withSettingsTable(readFileSync(path, 'utf8')));
console.log('README.md settings table updated');
