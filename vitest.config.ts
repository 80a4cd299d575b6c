import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites share PostgreSQL and Redis; each suite isolates itself with its own schema or key prefix.
    pool: 'forks',
    reporters: ['default'],
  },
});
