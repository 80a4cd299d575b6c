import { phrase, term, type AST, type Node, type NodeRangedTerm, type NodeTerm, type Operator } from 'lucene';
import type { LogBound, LogCondition, LogSearchColumn } from '../../storage/repositories/log-search.js';
import { fieldOf, invalidQuery, isAst, isRange, parseQuery } from '../lucene-query.js';

/**
 * The tenant log's search query (`GET /api/v2/logs?q=`), in the platform's query syntax: a subset of Lucene's,
 * parsed by the `lucene` package (a PEG grammar of the whole Lucene query language) and translated here into a
 * condition on the log's indexed columns (storage/repositories/log-search.ts).
 *
 * What is accepted: `field:value`, `field:"quoted value"` (backslash escapes in either), `field:(a OR b)`, ranges
 * `field:[a TO b]` (inclusive) and `field:{a TO b}` (exclusive; mixed brackets and `*` for an open end are fine), AND
 * (also `&&`), OR (`||`), NOT (`-field:value`, `!field:value`, `a NOT b`), parentheses. Two terms side by side mean
 * both (AND), as in the platform's `search` parameter. Values match exactly and case-sensitively, as the platform's
 * log search does. `date` takes a day (`2026-01-31`: the whole UTC day) or an ISO 8601 instant.
 *
 * What is refused (400, `invalid_query_string`), with a message that says why: a query that does not parse; a term
 * without a field; a field the log does not index (the platform also searches `user_name`, `client_name`,
 * `description` and others, which here would mean reading the whole log); wildcards, regular expressions, fuzzy and
 * proximity searches and boosts; a range on a field other than `date` and `log_id`; a query of more than
 * MAX_TERMS terms.
 */

/** The fields a query may name: each an indexed column of the log. */
const SEARCHABLE: Readonly<Record<string, LogSearchColumn>> = {
  log_id: 'log_id',
  date: 'date',
  type: 'type',
  user_id: 'user_id',
  client_id: 'client_id',
  connection: 'connection',
  ip: 'ip',
};
const SEARCHABLE_LIST = Object.keys(SEARCHABLE).join(', ');
/** The platform's other searchable fields: named in the refusal, so that a caller knows it is not a typo. */
const NOT_INDEXED = new Set(['client_name', 'connection_id', 'description', 'hostname', 'organization_id', 'user_name', 'user_agent', 'strategy', 'strategy_type']);
/** Terms in one query at most: each is a comparison in the SQL, and a search stays a handful of index lookups. */
export const MAX_TERMS = 32;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

const invalid = invalidQuery;

/** A day as the epoch milliseconds of its start (UTC), if `text` is a real calendar day. */
function dayStart(text: string): number | undefined {
  if (!DAY.test(text)) return undefined;
  const at = Date.parse(`${text}T00:00:00.000Z`);
  // Date.parse rolls 2026-02-30 over to March 2; a real day reads back as itself.
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text ? undefined : at;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A date value: a whole UTC day (`[start, next day)`) or one instant, as stored text (ISO 8601, UTC, milliseconds). */
function dateValue(text: string): { start: string; end: string } | { instant: string } {
  const day = dayStart(text);
  if (day !== undefined) return { start: iso(day), end: iso(day + DAY_MS) };
  const at = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at) || at < 0 || at >= Date.parse('10000-01-01T00:00:00Z')) {
    throw invalid(`has a date that is neither a day (YYYY-MM-DD) nor an ISO 8601 instant: "${text}".`);
  }
  return { instant: iso(at) };
}

/** Whether an unquoted term has an unescaped `*` or `?`. */
function hasWildcard(raw: string): boolean {
  for (let i = 0; i < raw.length; i += 1) {
    if (raw[i] === '\\') i += 1;
    else if (raw[i] === '*' || raw[i] === '?') return true;
  }
  return false;
}

interface Context {
  terms: number;
}

function columnOf(name: string, node: Node): LogSearchColumn {
  if (name === '<implicit>') {
    const value = isRange(node) ? `[${node.term_min} TO ${node.term_max}]` : node.term;
    throw invalid(`needs a field for every term, as in type:s; "${value}" has none. Searchable fields: ${SEARCHABLE_LIST}.`);
  }
  const column = SEARCHABLE[name];
  if (column) return column;
  if (NOT_INDEXED.has(name)) throw invalid(`names "${name}", which is not indexed here and cannot be searched. Searchable fields: ${SEARCHABLE_LIST}.`);
  throw invalid(`names an unknown field "${name}". Searchable fields: ${SEARCHABLE_LIST}.`);
}

/** `{from, to}` of a range, or its complement (two ranges) when negated; `*` leaves an end open. */
function rangeCondition(column: 'date' | 'log_id', node: NodeRangedTerm, negated: boolean): LogCondition {
  const lowInclusive = node.inclusive === 'both' || node.inclusive === 'left';
  const highInclusive = node.inclusive === 'both' || node.inclusive === 'right';
  const bound = (text: string, end: 'low' | 'high', inclusive: boolean): LogBound | undefined => {
    if (text === '*') return undefined;
    const value = term.unescape(text);
    if (column === 'log_id') return { value, inclusive };
    const date = dateValue(value);
    if ('instant' in date) return { value: date.instant, inclusive };
    // A day stands for all of it: from its start, up to its end; past it (exclusive) from the next day's start.
    if (end === 'low') return inclusive ? { value: date.start, inclusive: true } : { value: date.end, inclusive: true };
    return inclusive ? { value: date.end, inclusive: false } : { value: date.start, inclusive: false };
  };
  const from = bound(node.term_min, 'low', lowInclusive);
  const to = bound(node.term_max, 'high', highInclusive);
  if (!negated) return { column, ...(from ? { from } : {}), ...(to ? { to } : {}) };
  // Outside [from, to]: below from, or above to (an open end has nothing beyond it).
  const outside: LogCondition[] = [];
  if (from) outside.push({ column, to: { value: from.value, inclusive: !from.inclusive } });
  if (to) outside.push({ column, from: { value: to.value, inclusive: !to.inclusive } });
  return { any: outside };
}

function termCondition(column: LogSearchColumn, node: NodeTerm, negated: boolean): LogCondition {
  if (node.regex) throw invalid('has a regular expression; log search matches exact values only.');
  // The grammar leaves these null or out when absent (a quoted term has `proximity` where a word has `similarity`).
  const proximity = (node as { proximity?: number | null }).proximity;
  if ((node.similarity ?? proximity ?? null) !== null) throw invalid('has a fuzzy or proximity search (~); log search matches exact values only.');
  if ((node.boost ?? null) !== null) throw invalid('has a boost (^), which has no meaning in log search.');
  if (!node.quoted && hasWildcard(node.term)) throw invalid(`has a wildcard in "${node.term}"; log search matches exact values only.`);
  const value = node.quoted ? phrase.unescape(node.term) : term.unescape(node.term);
  if (column === 'date') {
    const date = dateValue(value);
    if ('start' in date) {
      return rangeCondition('date', { field: 'date', fieldLocation: null, term_min: date.start, term_max: date.end, inclusive: 'left' }, negated);
    }
    return negated ? { column, differsFrom: date.instant } : { column, equals: date.instant };
  }
  return negated ? { column, differsFrom: value } : { column, equals: value };
}

function leaf(node: Node, negated: boolean, inherited: string | undefined, context: Context): LogCondition {
  context.terms += 1;
  if (context.terms > MAX_TERMS) throw invalid(`has more than ${MAX_TERMS} terms.`);
  const field = fieldOf(node, inherited);
  const column = columnOf(field.name, node);
  const negate = negated !== field.negated;
  if (isRange(node)) {
    if (column !== 'date' && column !== 'log_id') throw invalid(`has a range on "${field.name}"; ranges apply to date and log_id only.`);
    return rangeCondition(column, node, negate);
  }
  return termCondition(column, node, negate);
}

/**
 * `a op b`, negated or not, with the negation pushed down to the operands (De Morgan): OR, AND (also two terms
 * side by side), and the `NOT` forms (`a NOT b` is `a AND NOT b`). `leftOf` and `rightOf` read an operand, negated
 * or not.
 */
function binary(leftOf: (negated: boolean) => LogCondition, operator: Operator | '&&' | '||', rightOf: (negated: boolean) => LogCondition, negated: boolean): LogCondition {
  const left = leftOf(negated);
  switch (operator) {
    case 'OR':
    case '||':
      return negated ? { all: [left, rightOf(true)] } : { any: [left, rightOf(false)] };
    case 'OR NOT':
      return negated ? { all: [left, rightOf(false)] } : { any: [left, rightOf(true)] };
    case 'AND NOT':
    case 'NOT':
      return negated ? { any: [left, rightOf(false)] } : { all: [left, rightOf(true)] };
    default:
      return negated ? { any: [left, rightOf(true)] } : { all: [left, rightOf(false)] };
  }
}

function condition(node: AST | Node, negated: boolean, inherited: string | undefined, context: Context): LogCondition {
  if (!isAst(node)) return leaf(node, negated, inherited, context);
  // `field:(a OR b)`: the group's field applies to the terms inside that name none.
  const field = node.field !== undefined && node.field !== '<implicit>' ? node.field : inherited;
  // A leading NOT negates the first operand only (`NOT a AND b` is `(NOT a) AND b`).
  const leftNegated = 'start' in node && node.start === 'NOT';
  if (!('operator' in node)) return condition(node.left, leftNegated !== negated, field, context);
  // The operands are read as they stand and the negation of the whole pushed through the operator.
  const left = (negatedToo: boolean) => condition(node.left, leftNegated !== negatedToo, field, context);
  return binary(left, node.operator as Operator | '&&' | '||', (rightNegated) => condition(node.right, rightNegated, field, context), negated);
}

/** Merges nested ANDs and ORs, so that the SQL reads as the query does. */
function flatten(condition: LogCondition): LogCondition {
  if ('all' in condition) {
    const parts = condition.all.map(flatten).flatMap((part) => ('all' in part ? part.all : [part]));
    return parts.length === 1 && parts[0] ? parts[0] : { all: parts };
  }
  if ('any' in condition) {
    const parts = condition.any.map(flatten).flatMap((part) => ('any' in part ? part.any : [part]));
    return parts.length === 1 && parts[0] ? parts[0] : { any: parts };
  }
  return condition;
}

/** The condition of a query; undefined for an empty one (every event). Throws a ServiceError (400) when refused. */
export function parseLogQuery(query: string): LogCondition | undefined {
  const ast = parseQuery(query, 'type:f AND date:[2026-01-01 TO 2026-01-31]');
  if (!ast) return undefined;
  return flatten(condition(ast, false, undefined, { terms: 0 }));
}
