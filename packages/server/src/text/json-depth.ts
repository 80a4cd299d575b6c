/**
 * Whether `value` nests objects and arrays more than `maxDepth` levels deep (`{}` and `[]` are one level,
 * `{"a": []}` two). Iterative, so that any depth a parser accepted can be measured; JSON.stringify and every
 * recursive walk over a value overflow the stack a few thousand levels down.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
