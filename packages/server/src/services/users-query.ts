import { phrase, term, type AST, type Node, type NodeRangedTerm, type NodeTerm, type Operator } from 'lucene';
import { METADATA_KEY, type UserCondition, type UserSearchField, type UserSort, type UserSortField } from '../storage/repositories/user-search.js';
import { ServiceError } from './errors.js';
import { fieldOf, invalidQuery, isAst, isRange, parseQuery } from './lucene-query.js';

/**
 * The user search query (`GET /api/v2/users?q=`, the platform's search engine v3 syntax), parsed by the `lucene`
 * package as the log search is (services/events/log-query.ts) and translated into a condition on indexed user
 * fields (storage/repositories/user-search.ts).
 *
 * Accepted: `field:value`, quoted phrases, a `*` at the end of a term (prefix), AND / OR / NOT (and `-`/`!`),
 * parentheses, `field:(a OR b)`, ranges `[a TO b]` / `{a TO b}` with `*` for an open end on dates and numbers, and
 * `_exists_:field`. Refused (400, `invalid_query_string`): a query that does not parse, a term without a field, a
 * field not searched, wildcards other than a trailing `*`, regular expressions, fuzzy/proximity searches, boosts.
 */

const COLUMN = (column: 'user_id' | 'email' | 'username' | 'connection' | 'created_at' | 'updated_at'): UserSearchField => ({ column });
const FIELDS: Readonly<Record<string, UserSearchField>> = {
  user_id: COLUMN('user_id'),
  email: COLUMN('email'),
  username: COLUMN('username'),
  'identities.connection': COLUMN('connection'),
  created_at: COLUMN('created_at'),
  updated_at: COLUMN('updated_at'),
  name: { text: 'name' },
  given_name: { text: 'given_name' },
  family_name: { text: 'family_name' },
  nickname: { text: 'nickname' },
  phone_number: { text: 'phone_number' },
  last_login: { text: 'last_login' },
  email_verified: { flag: 'email_verified' },
  blocked: { flag: 'blocked' },
  logins_count: { number: 'logins_count' },
  'identities.provider': { provider: true },
  'identities.user_id': { identityUserId: true },
};
const FIELD_LIST = [...Object.keys(FIELDS), 'app_metadata.<key>', 'user_metadata.<key>'].join(', ');
const DATES = new Set(['created_at', 'updated_at', 'last_login']);
export const MAX_TERMS = 32;

const invalid = invalidQuery;

function fieldNamed(name: string): UserSearchField {
  const known = FIELDS[name];
  if (known) return known;
  const metadata = /^(app_metadata|user_metadata)\.(.+)$/.exec(name);
  if (metadata) {
    const key = metadata[2] ?? '';
    if (!METADATA_KEY.test(key)) throw invalid(`names the metadata key "${key}"; keys searched are one level deep, of letters, digits, _ and -.`);
    return { metadata: metadata[1] as 'app_metadata' | 'user_metadata', key };
  }
  if (name === '<implicit>') throw invalid(`needs a field for every term, as in email:"jane@example.com". Searchable fields: ${FIELD_LIST}.`);
  throw invalid(`names a field that is not searched: "${name}". Searchable fields: ${FIELD_LIST}.`);
}

/** A date as stored (ISO 8601, UTC, milliseconds); a bare day is its start. */
function dateValue(text: string): string {
  const at = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw invalid(`has a date that is not ISO 8601: "${text}".`);
  return new Date(at).toISOString();
}

function scalar(name: string, field: UserSearchField, text: string): string | number | boolean {
  if ('flag' in field) {
    if (text !== 'true' && text !== 'false') throw invalid(`compares ${name} with "${text}"; it is true or false.`);
    return text === 'true';
  }
  if ('number' in field) {
    if (!/^-?\d{1,15}$/.test(text)) throw invalid(`compares ${name} with "${text}", which is not a whole number.`);
    return Number(text);
  }
  if (DATES.has(name)) return dateValue(text);
  // E-mails are stored lower-cased; the platform's e-mail search is case-insensitive.
  return name === 'email' ? text.toLowerCase() : text;
}

function rangeCondition(name: string, field: UserSearchField, node: NodeRangedTerm): UserCondition {
  if (!DATES.has(name) && !('number' in field)) throw invalid(`has a range on "${name}"; ranges apply to dates and numbers (created_at, updated_at, last_login, logins_count).`);
  const bound = (text: string, inclusive: boolean) => (text === '*' ? undefined : { value: scalar(name, field, term.unescape(text)) as string | number, inclusive });
  const from = bound(node.term_min, node.inclusive === 'both' || node.inclusive === 'left');
  const to = bound(node.term_max, node.inclusive === 'both' || node.inclusive === 'right');
  return { field, ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

function termCondition(name: string, node: NodeTerm): UserCondition {
  if (node.regex) throw invalid('has a regular expression, which user search does not run.');
  const proximity = (node as { proximity?: number | null }).proximity;
  if ((node.similarity ?? proximity ?? null) !== null) throw invalid('has a fuzzy or proximity search (~), which user search does not run.');
  if ((node.boost ?? null) !== null) throw invalid('has a boost (^), which has no meaning in user search.');
  if (name === '_exists_') return { field: fieldNamed(term.unescape(node.term)), exists: true };
  const field = fieldNamed(name);
  if (node.quoted) return { field, equals: scalar(name, field, phrase.unescape(node.term)) };
  const raw = node.term;
  const star = raw.endsWith('*') && !raw.endsWith('\\*');
  const body = star ? raw.slice(0, -1) : raw;
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === '\\') i += 1;
    else if (body[i] === '*' || body[i] === '?') throw invalid(`has a wildcard inside "${raw}"; only a * at the end of a term (a prefix) is searched.`);
  }
  if (!star) return { field, equals: scalar(name, field, term.unescape(raw)) };
  if (!('column' in field || 'text' in field) || DATES.has(name)) throw invalid(`has a prefix search on "${name}"; prefixes apply to text fields.`);
  const prefix = term.unescape(body);
  if (prefix.length < 1) throw invalid(`has a lone *; name a prefix of at least one character, or use _exists_:${name}.`);
  return { field, prefix: name === 'email' ? prefix.toLowerCase() : prefix };
}

function condition(node: AST | Node, inherited: string | undefined, count: { terms: number }): UserCondition {
  if (!isAst(node)) {
    count.terms += 1;
    if (count.terms > MAX_TERMS) throw invalid(`has more than ${MAX_TERMS} terms.`);
    const { name, negated } = fieldOf(node, inherited);
    const leaf = isRange(node) ? rangeCondition(name, fieldNamed(name), node) : termCondition(name, node);
    return negated ? { not: leaf } : leaf;
  }
  const field = node.field !== undefined && node.field !== '<implicit>' ? node.field : inherited;
  const left0 = condition(node.left, field, count);
  const left = 'start' in node && node.start === 'NOT' ? { not: left0 } : left0;
  if (!('operator' in node) || !node.right) return left;
  const right = condition(node.right, field, count);
  switch (node.operator as Operator | '&&' | '||') {
    case 'OR':
    case '||':
      return { any: [left, right] };
    case 'OR NOT':
      return { any: [left, { not: right }] };
    case 'AND NOT':
    case 'NOT':
      return { all: [left, { not: right }] };
    default:
      return { all: [left, right] };
  }
}

/** The condition of `q`; undefined for an empty one. Throws a ServiceError (400) when refused. */
export function parseUserQuery(query: string): UserCondition | undefined {
  const ast = parseQuery(query, 'email:"jane@example.com" OR name:jan*');
  if (!ast) return undefined;
  return condition(ast, undefined, { terms: 0 });
}

const SORTABLE = new Set<string>(['created_at', 'updated_at', 'last_login', 'logins_count', 'email', 'name', 'user_id']);

/** `sort=field:1` (ascending) or `field:-1` (descending). */
export function parseUserSort(sort: string): UserSort {
  const match = /^([a-z_]+):(1|-1)$/.exec(sort.trim());
  if (!match || !SORTABLE.has(match[1] ?? '')) {
    throw new ServiceError('invalid', `Query validation error: 'sort' must be field:1 or field:-1, with field one of ${[...SORTABLE].join(', ')}.`, 'invalid_query_string');
  }
  return { field: match[1] as UserSortField, descending: match[2] === '-1' };
}
