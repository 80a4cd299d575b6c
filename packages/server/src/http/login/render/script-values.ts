/**
 * Filling `{{ path }}` placeholders inside a configured `<script>`. A value must stay data whatever surrounds the
 * placeholder, so each one is written according to where it stands in the script's own syntax:
 *   - as an expression (`var c = {{ x }};`, `` `${ {{ x }} }` ``): a JavaScript literal of the value;
 *   - inside a string, a template literal, a regular expression or a comment: the value's text.
 * Both forms write every character other than an ASCII letter or digit as a `\uXXXX` escape, so neither ever
 * holds a quote, backtick, `$`, backslash, slash, `<`, line break or U+2028/9 as such. That makes each form inert
 * even where the scan below misreads the script: text read as code is then one identifier or a syntax error,
 * never a call, and a literal read as text cannot end the string it sits in.
 */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Lookup = (path: string) => unknown;

const PLACEHOLDER_AT = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/y;

/** Words after which a `/` starts a regular expression rather than a division. */
const KEYWORDS_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

const unicodeEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text for inside a string, template, regular expression or comment: letters and digits, everything else escaped. */
export function scriptText(value: unknown): string {
  const text = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/[^A-Za-z0-9]/g, unicodeEscape);
}

/** A JavaScript literal of a context value, its strings written as `scriptText`. */
export function scriptLiteral(value: unknown): string {
  const json = value as Json | undefined;
  if (json === undefined || json === null) return 'null';
  if (typeof json === 'string') return `"${scriptText(json)}"`;
  if (typeof json === 'number' || typeof json === 'boolean') return JSON.stringify(json);
  if (Array.isArray(json)) return `[${json.map(scriptLiteral).join(',')}]`;
  return `{${Object.entries(json)
    .map(([key, item]) => `"${scriptText(key)}":${scriptLiteral(item)}`)
    .join(',')}}`;
}

/** Code (top level, or inside a template's `${ }` with its own brace depth) or the text of a template literal. */
type Frame = { kind: 'code'; braces: number } | { kind: 'template' };
/** Lexical states that do not nest. */
type Inner = 'single' | 'double' | 'line-comment' | 'block-comment' | 'regex' | 'regex-class';

/** Whether a `/` at this point of code starts a regular expression, judged by what precedes it. */
function startsRegex(before: string): boolean {
  const trimmed = before.trimEnd();
  const last = trimmed.at(-1);
  if (last === undefined) return true;
  const word = /[A-Za-z_$][\w$]*$/.exec(trimmed)?.[0];
  if (word) return KEYWORDS_BEFORE_EXPRESSION.has(word);
  return !/[\w$)\]}'"`]/.test(last);
}

/** The configured script text with every placeholder filled as its position requires. */
export function fillScript(content: string, lookup: Lookup): string {
  const frames: Frame[] = [{ kind: 'code', braces: 0 }];
  let inner: Inner | undefined;
  let out = '';
  let index = 0;
  while (index < content.length) {
    PLACEHOLDER_AT.lastIndex = index;
    const placeholder = PLACEHOLDER_AT.exec(content);
    if (placeholder) {
      const value = lookup(placeholder[1] ?? '');
      out += inner === undefined && frames.at(-1)?.kind === 'code' ? scriptLiteral(value) : scriptText(value);
      index += placeholder[0].length;
      continue;
    }
    const char = content[index] ?? '';
    const next = content[index + 1] ?? '';
    const frame = frames.at(-1);
    let take = 1;
    if (inner === 'single' || inner === 'double') {
      if (char === '\\') take = 2;
      else if (char === (inner === 'single' ? "'" : '"') || char === '\n') inner = undefined;
    } else if (inner === 'line-comment') {
      if (char === '\n' || char === '\u2028' || char === '\u2029') inner = undefined;
    } else if (inner === 'block-comment') {
      if (char === '*' && next === '/') [inner, take] = [undefined, 2];
    } else if (inner === 'regex' || inner === 'regex-class') {
      if (char === '\\') take = 2;
      else if (char === '[') inner = 'regex-class';
      else if (char === ']' && inner === 'regex-class') inner = 'regex';
      else if ((char === '/' && inner === 'regex') || char === '\n') inner = undefined;
    } else if (frame?.kind === 'template') {
      if (char === '\\') take = 2;
      else if (char === '`') frames.pop();
      else if (char === '$' && next === '{') {
        frames.push({ kind: 'code', braces: 0 });
        take = 2;
      }
    } else if (frame) {
      if (char === "'") inner = 'single';
      else if (char === '"') inner = 'double';
      else if (char === '`') frames.push({ kind: 'template' });
      else if (char === '{') frame.braces += 1;
      else if (char === '}') {
        if (frame.braces > 0) frame.braces -= 1;
        else if (frames.length > 1) frames.pop();
      } else if (char === '/' && next === '/') [inner, take] = ['line-comment', 2];
      else if (char === '/' && next === '*') [inner, take] = ['block-comment', 2];
      else if (char === '/' && startsRegex(out.slice(-32))) inner = 'regex';
    }
    out += content.slice(index, index + take);
    index += take;
  }
  return out;
}
