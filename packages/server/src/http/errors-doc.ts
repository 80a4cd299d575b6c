import { OAUTH_ERRORS } from '../oauth/error-codes.js';
import { MANAGEMENT_ERRORS } from '../services/management-error-codes.js';
import { ERROR_FAMILIES } from './error-families.js';
import { PAGE_ERRORS } from './login/page-errors.js';
import { DBCONNECTIONS_ERRORS } from './oauth/dbconnections-errors.js';

/**
 * The tables of docs/errors.md, rendered from the error catalogues (`npm run docs` writes them; a test checks that
 * the file holds exactly these). The prose around them is written by hand. It sits in http/ because it reads
 * the catalogues of every floor.
 */

/** A Markdown table; a `|` inside a cell is escaped so it cannot split the cell. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

const code = (value: string) => `\`${value}\``;

/** Each generated table, by the name in its markers. */
export const ERROR_TABLES: Readonly<Record<string, () => string>> = {
  families: () =>
    table(
      ['family', 'body', 'answered at', 'shaped by', 'codes'],
      ERROR_FAMILIES.map((family) => [family.family, family.body, family.endpoints, family.serialiser, family.codes]),
    ),
  oauth: () =>
    table(
      ['`error`', 'status', 'when'],
      Object.entries(OAUTH_ERRORS).map(([name, entry]) => [code(name), entry.statuses.join(', '), entry.when]),
    ),
  dbconnections: () =>
    table(
      ['`code`', '`name`', 'status', 'when'],
      Object.entries(DBCONNECTIONS_ERRORS).map(([name, entry]) => [code(name), code(entry.name), String(entry.status), entry.when]),
    ),
  management: () =>
    table(
      ['`errorCode`', 'status', 'message / when'],
      Object.entries(MANAGEMENT_ERRORS).map(([name, entry]) => [code(name), entry.statuses.join(', '), entry.when]),
    ),
  pages: () =>
    table(
      ['code', 'screens', 'when'],
      Object.entries(PAGE_ERRORS).map(([name, entry]) => [code(name), entry.screens.join(', '), entry.when]),
    ),
};

export const tableStart = (name: string) => `<!-- errors:${name}:start -->`;
export const tableEnd = (name: string) => `<!-- errors:${name}:end -->`;

/** Replaces every generated table between its markers; throws when a table's markers are missing. */
export function withErrorTables(doc: string): string {
  return Object.entries(ERROR_TABLES).reduce((text, [name, render]) => {
    const [start, end] = [tableStart(name), tableEnd(name)];
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/errors.md needs the ${start} and ${end} markers`);
    return `${text.slice(0, from + start.length)}\n${render()}\n${text.slice(to)}`;
  }, doc);
}
