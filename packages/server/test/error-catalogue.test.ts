import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
const catalogue = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

describe('docs/errors.md', () => {
  const code = sources(SRC).join('\n');

  it('documents every Management errorCode the server emits', () => {
    const literals = [
      ...code.matchAll(/new ManagementError\(\s*\d+,\s*[^,]+,\s*'([a-z_]+)'/g),
      ...code.matchAll(/errorCode\s*[:=]\s*'([a-z_]+)'/g),
      ...code.matchAll(/new ServiceError\([^)]*?'([a-z_]+)'\)/g),
      // The surface's tables from failure kinds and request parts to errorCodes.
      ...[...code.matchAll(/const CODE_BY_[A-Z]+[^{]*\{([^}]*)\}/g)].flatMap((table) => [...(table[1] ?? '').matchAll(/: '([a-z_]+)'/g)]),
    ].map((match) => match[1]);
    const emitted = new Set(literals.filter((value): value is string => value !== undefined && /_|^[a-z]+$/.test(value)));
    expect(emitted.size).toBeGreaterThan(10);
    const undocumented = [...emitted].filter((value) => !catalogue.includes(`\`${value}\``));
    expect(undocumented).toEqual([]);
  });

  it('documents every OAuth error code', () => {
    const oauthCodes = [...code.matchAll(/super\('([a-z_]+)'/g)].map((match) => match[1]);
    expect(oauthCodes.length).toBeGreaterThanOrEqual(7);
    for (const value of oauthCodes) expect(catalogue).toContain(`\`${value}\``);
  });
});
