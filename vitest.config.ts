import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // CI machines have 2 cores; e2e tests spawn processes and servers of their own.
    testTimeout: 20_000,
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
