import { parse, type AST, type Node, type NodeRangedTerm } from 'lucene';
import { ServiceError } from './errors.js';

/**
 * What the searches in the platform's Lucene-like syntax share (the tenant log's, events/log-query.ts, and the
 * users', users-query.ts): parsing with the `lucene` package, its node shapes, and how a term's field is read.
 * Each search keeps its own fields, values and refusals.
 */

export const isRange = (node: Node): node is NodeRangedTerm => 'term_min' in node;
export const isAst = (node: AST | Node): node is AST => 'left' in node;

/** A `-` or `!` before a field negates its term (the grammar keeps it in the field's name); `+` (required) is the default. */
export function fieldOf(node: Node, inherited: string | undefined): { name: string; negated: boolean } {
  let name = node.field === '<implicit>' ? (inherited ?? '<implicit>') : node.field;
  let negated = false;
  while (name.startsWith('-') || name.startsWith('!') || name.startsWith('+')) {
    if (name[0] !== '+') negated = !negated;
    name = name.slice(1);
  }
  return { name, negated };
}

/** The 400 (`invalid_query_string`) of a refused query: `detail` says why. */
export const invalidQuery = (detail: string) => new ServiceError('invalid', `Query validation error: 'q' ${detail}`, 'invalid_query_string');

/** The query's syntax tree, or a 400 saying where it stops parsing; undefined for an empty query. */
export function parseQuery(query: string, example: string): AST | undefined {
  if (query.trim() === '') return undefined;
  let ast: AST;
  try {
    ast = parse(query);
  } catch (error) {
    const { found, location } = error as { found?: string | null; location?: { start?: { column?: number } } };
    const column = location?.start?.column;
    const what = found === null || found === undefined ? 'the query ends too soon' : `"${found}" was not expected`;
    throw invalidQuery(`is not a valid query${column === undefined ? '' : ` at column ${column}`}: ${what}. Example: ${example}.`);
  }
  return 'left' in ast ? ast : undefined;
}
