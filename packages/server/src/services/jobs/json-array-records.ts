/** Why an import file is not a JSON array of records (the whole job fails with this). */
export class ImportFileError extends Error {}

type ReadState = 'before' | 'inside' | 'after';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * The elements of a JSON array read in chunks, each as its own JSON text (the caller parses it), so that a file
 * is never held whole in memory: only the element being read is. `maxRecordChars` bounds one element.
 * Syntax inside an element is left to JSON.parse; this only follows strings and nesting to find where each
 * top-level element ends.
 */
export async function* jsonArrayRecords(chunks: AsyncIterable<string>, maxRecordChars: number): AsyncGenerator<string> {
  let state = 'before' as ReadState;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let current = '';
  for await (const chunk of chunks) {
    let start = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const char = chunk[index] as string;
      if (state === 'before') {
        if (char === '[') {
          state = 'inside';
          start = index + 1;
        } else if (!WHITESPACE.has(char) && char !== '\uFEFF') throw new ImportFileError('The users file must be a JSON array.');
        continue;
      }
      if (state === 'after') {
        if (!WHITESPACE.has(char)) throw new ImportFileError('Unexpected content after the JSON array.');
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (char === '\\') escaped = true;
        else if (char === '"') inString = false;
        continue;
      }
      if (char === '"') inString = true;
      else if (char === '{' || char === '[') depth += 1;
      else if (char === '}' || char === ']') {
        if (depth === 0) {
          // The array's own closing bracket.
          current += chunk.slice(start, index);
          const last = current.trim();
          if (last !== '') yield last;
          current = '';
          state = 'after';
          continue;
        }
        depth -= 1;
      } else if (char === ',' && depth === 0) {
        current += chunk.slice(start, index);
        const element = current.trim();
        if (element === '') throw new ImportFileError('The users file has an empty element in its array.');
        yield element;
        current = '';
        start = index + 1;
      }
    }
    if (state === 'inside') {
      current += chunk.slice(start);
      if (current.length > maxRecordChars) throw new ImportFileError(`A record of the users file is longer than ${maxRecordChars} characters.`);
    }
  }
  // Read through a function: the compiler's narrowing does not see the assignments inside the loop above.
  const where = (): ReadState => state;
  if (where() !== 'after') throw new ImportFileError(where() === 'before' ? 'The users file is empty.' : 'The users file ends before its JSON array does.');
}
