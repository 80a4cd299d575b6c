import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suites that take longest, longest first. Vitest orders files by the durations it cached on an earlier run;
 * a fresh clone (CI) has none, and a long suite that happens to start last makes the whole run wait for it.
 */
const LONGEST = [
  'web-auth-chromium',
  'log-streams',
  'deploy-cli',
  'actions-triggers',
  'users-import',
  'actions-triggers-chromium',
  'acul-login-chromium',
  'trust-proxy',
  'health-and-metrics',
  'config-and-cli',
  'attack-protection',
  'users-export',
  'database-outage',
  'auth-rate-limit',
  'management-surface',
  'multi-node',
  'artifact-sweeper',
  'client-authentication-methods',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}.test.ts`));
      return index === -1 ? LONGEST.length : index;
    };
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  // The repository's root wherever vitest starts: `npx vitest run test/x.test.ts` in packages/server finds this
  // file by looking upwards, and without a fixed root its include patterns would be read from there and match nothing.
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Timeouts only end tests that would hang: generous, because a test that spawns `latchkey` processes or
    // Chromium can take several times its usual time on a busy 2-core machine, and that is no failure of it.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites share PostgreSQL and Redis; each suite isolates itself with its own schema or key prefix.
    pool: 'forks',
    // Vitest's default on this 2-core machine is one worker. Most suites wait on sockets, child processes and
    // Chromium rather than compute: two workers took the suite from about 12.5 to 8 minutes (71 files); with 95
    // files, three workers run `npm test` in about 7 minutes on a quiet machine (vitest 400 s), where two took
    // over 10 minutes on a busy one. With 107 files three workers took 616 s (1.5 of the 2 cores busy on
    // average) and four took 658 s. Since an app builds in a fraction of its former CPU (compiled schemas reused),
    // the suite leaves a core partly idle: with 134 files, three workers took 634 s and four 530 s.
    maxWorkers: 4,
    isolate: false,
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
  },
});
