/**
 * One value that tries every way out of every place a placeholder of a configured script can stand: each
 * quote, a template's `${`, a backslash, line breaks (also U+2028/9), comment ends, a regular expression's
 * slash and the end of the script element. Whatever escapes sets `globalThis.pwned`.
 */
export const HOSTILE_SCRIPT_VALUE = [
  `';globalThis.pwned='single';//`,
  `";globalThis.pwned='double';//`,
  '`;globalThis.pwned=`template`;//',
  '${globalThis.pwned="expression"}',
  `\\';globalThis.pwned="backslash";//`,
  '\nglobalThis.pwned="newline";',
  '\u2028globalThis.pwned="separator";\u2029',
  '*/globalThis.pwned="comment";/*',
  '/;globalThis.pwned="regex";//',
  '</script><script>globalThis.pwned="tag"</script><!--',
  ' \u00e9\u{1F511}',
].join('');
