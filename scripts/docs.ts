// Regenerates the README's configuration table from the settings schema, and the tables of docs/errors.md from
// the error catalogues (`npm run docs`).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../packages/server/src/config/readme-table.js';
import { withErrorTables } from '../packages/server/src/http/errors-doc.js';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withSettingsTable(readFileSync(path, 'utf8')));
console.log('README.md settings table updated');

const errors = new URL('../docs/errors.md', import.meta.url);
writeFileSync(errors, withErrorTables(readFileSync(errors, 'utf8')));
console.log('docs/errors.md tables updated');
