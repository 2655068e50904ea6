import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // CI machines have 2 cores; e2e tests spawn processes and servers of their own.
    testTimeout: 20_000,
    // At least two files at a time (vitest's default is one fewer than the cores: one on 2 cores). Most of a
    // test's time is waiting on the processes and servers it started, so two overlap well: the whole suite took
    // ~300 s with one worker, ~150 s with two, on a 2-core machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    hookTimeout: 30_000,
    // One temporary directory per run, removed at its end (test/helpers/global-tmp.ts).
    globalSetup: ['test/helpers/global-tmp.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 60_000 },
      },
    ],
  },
});
