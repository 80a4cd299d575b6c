/**
 * The import graph of packages/server/src: no file reaches itself through its imports, and imports only point
 * down the floors of the project's ARCHITECTURE.md ("Layers"; it lives beside the repository, in ../shared). Every edge counts: static `import … from` and
 * `export … from`, `import type` included (a type circle is still a circle a reader must untangle, and an upward
 * type import is how upward runtime imports begin), and `import('…')` with a string literal.
 *
 * Floors, top to bottom; a file may import its own floor and any floor below it:
 *
 *   | floor | what                                                                                   |
 *   |-------|----------------------------------------------------------------------------------------|
 *   | 0     | http/, app.ts, main.ts, cli.ts (the surfaces and the entry points)                     |
 *   | 1     | registry.ts (the composition root)                                                     |
 *   | 2     | oauth/ (the protocol core)                                                             |
 *   | 3     | services/, keys/ (keys/ imports only storage and crypto, and oauth/ and http/ use it) |
 *   | 4     | storage/ (records.ts holds the stored shapes the services write)                       |
 *   | 5     | config/, crypto/, log.ts, text/ (text/ imports nothing of ours)                        |
 *
 * A new top-level file or folder fails here until it is given a floor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

const FLOORS: Record<string, number> = {
  http: 0,
  'app.ts': 0,
  'main.ts': 0,
  'cli.ts': 0,
  'registry.ts': 1,
  oauth: 2,
  services: 3,
  keys: 3,
  storage: 4,
  config: 5,
  crypto: 5,
  'log.ts': 5,
  text: 5,
};

/**
 * Known debt: edges (`from -> to`, paths under src/) that break a rule and are tolerated until fixed. This list
 * only shrinks: an entry that no longer occurs fails the test, so it is removed with the fix.
 */
const KNOWN_DEBT: readonly string[] = [];

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** Each file's imports of other files under src/ (the TypeScript scanner skips comments and strings). */
function importGraph(): { graph: Graph; unresolved: string[] } {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const graph: Graph = new Map();
  const unresolved: string[] = [];
  for (const file of files) {
    const scanned = ts.preProcessFile(readFileSync(path.join(SRC, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of scanned.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName)).replace(/\.js$/, '.ts');
      if (known.has(target)) targets.add(target);
      else if (target.endsWith('.ts')) unresolved.push(`${file} -> ${fileName}`);
    }
    graph.set(file, [...targets].sort());
  }
  return { graph, unresolved };
}

const floorOf = (file: string): number | undefined => FLOORS[file.split('/')[0] ?? file];

function upwardEdges(graph: Graph): string[] {
  const edges: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [floorOf(from), floorOf(to)];
      if (a !== undefined && b !== undefined && b < a) edges.push(`${from} (floor ${a}) -> ${to} (floor ${b})`);
    }
  }
  return edges;
}

/** The strongly connected components with more than one file (Tarjan), each a set of files in a circle. */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components;
}

/** One concrete circle through a component's first file (shortest, by breadth-first search), as `a -> b -> a`. */
function oneCircle(graph: Graph, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const file = queue[i]!;
    for (const to of graph.get(file) ?? []) {
      if (to === start) {
        const route = [start];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = cameFrom.get(at)) route.splice(1, 0, at);
        return [...route, start].join(' -> ');
      }
      if (members.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return component.join(', ');
}

const edgeOf = (report: string) => report.replace(/ \(floor \d\)/g, '');

describe('import graph of packages/server/src', () => {
  const { graph, unresolved } = importGraph();
  const upward = upwardEdges(graph);
  const found = circles(graph);

  it('resolves every relative import to a file', () => {
    expect(unresolved, `imports of files that do not exist:\n${unresolved.join('\n')}`).toEqual([]);
  });

  it('gives every file a floor', () => {
    const homeless = [...graph.keys()].filter((file) => floorOf(file) === undefined);
    expect(homeless, `files outside every floor (add them to FLOORS):\n${homeless.join('\n')}`).toEqual([]);
  });

  it('has no import circle', () => {
    const reports = found.map((component) => ({ component, text: oneCircle(graph, component) }));
    const news = reports.filter(({ text }) => !KNOWN_DEBT.includes(text));
    const message = news.map(({ component, text }) => `one path: ${text}\n  all ${component.length} files in it: ${component.join(', ')}`).join('\n');
    expect(news.map(({ text }) => text), `import circles:\n${message}`).toEqual([]);
  });

  it('has no import pointing up a floor', () => {
    const news = upward.filter((report) => !KNOWN_DEBT.includes(edgeOf(report)));
    expect(news, `upward imports:\n${news.join('\n')}`).toEqual([]);
  });

  it('keeps the known-debt list to edges that still occur (it only shrinks)', () => {
    const occurring = new Set([...upward.map(edgeOf), ...found.map((component) => oneCircle(graph, component))]);
    const stale = KNOWN_DEBT.filter((entry) => !occurring.has(entry));
    expect(stale, `fixed, remove from KNOWN_DEBT:\n${stale.join('\n')}`).toEqual([]);
  });
});
