import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites share PostgreSQL and Redis; each suite isolates itself with its own schema or key prefix.
    pool: 'forks',
    // Vitest's default on this 2-core machine is one worker. Most suites wait on sockets, child processes and
    // Chromium rather than compute: two workers took the suite from about 12.5 to 8 minutes (71 files); with 95
    // files, three workers run `npm test` in about 7 minutes on a quiet machine (vitest 400 s), where two took
    // over 10 minutes on a busy one.
    maxWorkers: 3,
    reporters: ['default'],
  },
});
