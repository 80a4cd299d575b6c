/**
 * Error codes are data (the project's ARCHITECTURE.md, beside the repository in ../shared: habit 3): one catalogue per family with codes of its own. This suite
 * checks the three ways they can drift apart: the docs against the catalogues (docs/errors.md holds exactly the
 * generated tables), the code against the catalogues (the code parameter of every error constructor and body
 * builder is the catalogue's union of keys, so an uncatalogued code does not compile; a syntax scan of every
 * place a code is written checks the codes and the statuses beside them), and the catalogues against the code
 * (no catalogued code that nothing raises).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ERROR_TABLES, tableStart, withErrorTables } from '../src/http/errors-doc.js';
import { PAGE_ERRORS, type PageErrorCode } from '../src/http/login/page-errors.js';
import type { ScreenInput, sendErrorPage } from '../src/http/login/pages.js';
import { BUILT_IN_LOCALES, defaultTexts, isScreen } from '../src/services/rendering/texts/index.js';
import type { ManagementError } from '../src/http/management/errors.js';
import { STATUS_BY_KIND } from '../src/http/management/surface.js';
import { DBCONNECTIONS_ERRORS, type DbConnectionsErrorCode, type dbConnectionsError } from '../src/http/oauth/dbconnections-errors.js';
import type { UntrustedRequest } from '../src/oauth/authorize/checks.js';
import type { CrossOriginError } from '../src/oauth/cross-origin-login.js';
import { OAUTH_ERRORS, type OAuthErrorCode, type oauthErrorBody } from '../src/oauth/error-codes.js';
import type { OAuthError } from '../src/oauth/errors.js';
import type { ServiceError, ServiceErrorKind } from '../src/services/errors.js';
import { MANAGEMENT_ERRORS, type ManagementErrorCode } from '../src/services/management-error-codes.js';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

type Family = 'oauth' | 'management' | 'dbconnections' | 'pages';
const CATALOGUE: Record<Family, Readonly<Record<string, unknown>>> = {
  oauth: OAUTH_ERRORS,
  management: MANAGEMENT_ERRORS,
  dbconnections: DBCONNECTIONS_ERRORS,
  pages: PAGE_ERRORS,
};
/** The catalogue modules themselves, and the texts keyed by page code: where a code is listed, not raised. */
const LISTINGS = ['oauth/error-codes.ts', 'services/management-error-codes.ts', 'http/oauth/dbconnections-errors.ts', 'http/login/page-errors.ts', 'services/rendering/texts/'];

/** The status a code is answered with, where the place that raises it says so; `undefined`: checked elsewhere or not on the wire. */
type StatusOf = (args: readonly ts.Expression[]) => number | undefined;
const numberAt = (index: number): StatusOf => (args) => {
  const arg = args[index];
  return arg && ts.isNumericLiteral(arg) ? Number(arg.text) : undefined;
};
const fixed = (status: number): StatusOf => () => status;
const byKind: StatusOf = (args) => {
  const kind = args[0];
  return kind && ts.isStringLiteral(kind) ? STATUS_BY_KIND[kind.text as ServiceErrorKind] : undefined;
};

/** Where a code is written: the callee (a class after `new`, or a function) and which argument is the code. */
interface Position {
  family: Family;
  code: number;
  status?: StatusOf;
}
const CONSTRUCTED: Record<string, Position> = {
  OAuthError: { family: 'oauth', code: 0, status: numberAt(2) },
  CrossOriginError: { family: 'oauth', code: 0, status: numberAt(2) },
  // Before the redirect URI is trusted: the error page (its statuses are the page's, not the API's).
  UntrustedRequest: { family: 'oauth', code: 0 },
  ManagementError: { family: 'management', code: 2, status: numberAt(0) },
  ServiceError: { family: 'management', code: 2, status: byKind },
};
const CALLED: Record<string, Position> = {
  oauthErrorBody: { family: 'oauth', code: 0 },
  sendErrorPage: { family: 'oauth', code: 3 },
  notFound: { family: 'management', code: 1, status: fixed(404) },
  conflict: { family: 'management', code: 1, status: fixed(409) },
  badRequest: { family: 'management', code: 1, status: fixed(400) },
  dbConnectionsError: { family: 'dbconnections', code: 0 },
};
/** An OAuthError subclass passes its code to `super` (oauth/errors.ts, oauth/access-token.ts). */
const SUPER: Position = { family: 'oauth', code: 0, status: numberAt(2) };

interface Written {
  family: Family;
  code: string;
  status: number | undefined;
  at: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** The string literals an expression can evaluate to (through `a ? 'x' : 'y'` and `a ?? 'x'`). */
function literals(expression: ts.Expression | undefined): string[] {
  if (!expression) return [];
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return [expression.text];
  if (ts.isParenthesizedExpression(expression)) return literals(expression.expression);
  if (ts.isConditionalExpression(expression)) return [...literals(expression.whenTrue), ...literals(expression.whenFalse)];
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return literals(expression.right);
  return [];
}

const calleeName = (expression: ts.Expression) => (ts.isIdentifier(expression) ? expression.text : ts.isPropertyAccessExpression(expression) ? expression.name.text : '');

function extendsOAuthError(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node; at; at = at.parent) {
    if (ts.isClassLike(at)) {
      return (at.heritageClauses ?? []).some((clause) => clause.types.some((type) => ['OAuthError', 'CrossOriginError'].includes(type.expression.getText())));
    }
  }
  return false;
}

const propertyName = (node: ts.ObjectLiteralElementLike) => (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : undefined);

/** Every code written in src/ where it goes on the wire, with the status beside it when there is one. */
function writtenCodes(): { written: Written[]; used: Set<string> } {
  const written: Written[] = [];
  const used = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(path.join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const listing = LISTINGS.some((listed) => (listed.endsWith('/') ? file.startsWith(listed) : file === listed));
    const record = (family: Family, expression: ts.Expression | undefined, status: number | undefined, node: ts.Node) => {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      for (const code of literals(expression)) written.push({ family, code, status, at: `${file}:${line}` });
    };
    const visit = (node: ts.Node): void => {
      if (!listing && ts.isStringLiteral(node)) used.add(node.text);
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.arguments) {
        const args = node.arguments;
        const position = ts.isNewExpression(node)
          ? CONSTRUCTED[calleeName(node.expression)]
          : node.expression.kind === ts.SyntaxKind.SuperKeyword
            ? extendsOAuthError(node)
              ? SUPER
              : undefined
            : CALLED[calleeName(node.expression)];
        if (position) record(position.family, args[position.code], position.status?.(args), node);
      }
      // A body written by hand: `{error, error_description}` or a page's `errorCode`.
      if (ts.isObjectLiteralExpression(node)) {
        const names = node.properties.map(propertyName);
        for (const property of node.properties) {
          if (!ts.isPropertyAssignment(property)) continue;
          const name = propertyName(property);
          if (name === 'error' && names.includes('error_description')) record('oauth', property.initializer, undefined, property);
          if (name === 'errorCode' && file.startsWith('http/login/')) record('pages', property.initializer, undefined, property);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { written, used };
}

describe('error catalogue', () => {
  const { written, used } = writtenCodes();

  it('has docs/errors.md hold the tables generated from the catalogues (run `npm run docs` after changing one)', () => {
    for (const name of Object.keys(ERROR_TABLES)) expect(doc).toContain(tableStart(name));
    expect(withErrorTables(doc)).toBe(doc);
    for (const [family, codes] of Object.entries(CATALOGUE)) {
      for (const code of Object.keys(codes)) expect(doc, `${family} ${code}`).toContain(`| \`${code}\` |`);
    }
  });

  it('lets the code raise only catalogued codes (the code parameters are the catalogues’ keys)', () => {
    expectTypeOf<ConstructorParameters<typeof OAuthError>[0]>().toEqualTypeOf<OAuthErrorCode>();
    expectTypeOf<ConstructorParameters<typeof CrossOriginError>[0]>().toEqualTypeOf<OAuthErrorCode>();
    expectTypeOf<ConstructorParameters<typeof UntrustedRequest>[0]>().toEqualTypeOf<OAuthErrorCode>();
    expectTypeOf<Parameters<typeof oauthErrorBody>[0]>().toEqualTypeOf<OAuthErrorCode>();
    expectTypeOf<Parameters<typeof sendErrorPage>[3]>().toEqualTypeOf<OAuthErrorCode>();
    expectTypeOf<ConstructorParameters<typeof ManagementError>[2]>().toEqualTypeOf<ManagementErrorCode>();
    expectTypeOf<ConstructorParameters<typeof ServiceError>[2]>().toEqualTypeOf<ManagementErrorCode | undefined>();
    expectTypeOf<Parameters<typeof dbConnectionsError>[0]>().toEqualTypeOf<DbConnectionsErrorCode>();
    expectTypeOf<NonNullable<ScreenInput['errorCode']>>().toEqualTypeOf<PageErrorCode | OAuthErrorCode>();
  });

  it('finds every place a code is written (a guard against the scan going blind)', () => {
    const count = (family: Family) => written.filter((entry) => entry.family === family).length;
    expect(count('oauth')).toBeGreaterThan(50);
    expect(count('management')).toBeGreaterThan(40);
    expect(count('dbconnections')).toBeGreaterThanOrEqual(Object.keys(DBCONNECTIONS_ERRORS).length);
    expect(count('pages')).toBeGreaterThan(5);
  });

  it('catalogues every code the source writes, in its family', () => {
    const uncatalogued = written.filter(({ family, code }) => !Object.hasOwn(CATALOGUE[family], code)).map(({ family, code, at }) => `${at}: ${family} ${code}`);
    expect(uncatalogued).toEqual([]);
  });

  it('documents the status each code is raised with', () => {
    const statuses = (family: Family, code: string): readonly (number | string)[] | undefined =>
      family === 'oauth' ? OAUTH_ERRORS[code as OAuthErrorCode].statuses : family === 'management' ? MANAGEMENT_ERRORS[code as ManagementErrorCode].statuses : undefined;
    const undocumented = written
      .filter(({ family, code, status }) => status !== undefined && Object.hasOwn(CATALOGUE[family], code))
      .filter(({ family, code, status }) => {
        const documented = statuses(family, code);
        // A code that only travels to the redirect URI has no status on the wire.
        return documented !== undefined && documented.some((value) => value !== 'redirect') && !documented.includes(status!);
      })
      .map(({ family, code, status, at }) => `${at}: ${family} ${code} ${status}`);
    expect(undocumented).toEqual([]);
  });

  it('catalogues no code that nothing raises', () => {
    const raised = (family: Family, code: string) =>
      // Page codes pass through the routes' own helpers (a table of refusals, `again(code)`): named anywhere counts.
      family === 'pages' ? used.has(code) : written.some((entry) => entry.family === family && entry.code === code);
    const unused = Object.entries(CATALOGUE).flatMap(([family, codes]) => Object.keys(codes).filter((code) => !raised(family as Family, code)).map((code) => `${family} ${code}`));
    expect(unused).toEqual([]);
  });

  it('has a text in every built-in language for each hosted page code, on every screen that reports it', () => {
    const missing: string[] = [];
    for (const [code, entry] of Object.entries(PAGE_ERRORS)) {
      for (const screen of entry.screens) {
        if (!isScreen(screen)) {
          missing.push(`${code}: unknown screen ${screen}`);
          continue;
        }
        for (const locale of BUILT_IN_LOCALES) if (!defaultTexts(screen, locale)[code]) missing.push(`${code} on ${screen} in ${locale}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
