import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests run the compiled bin and demo (dist/), as users do.
    globalSetup: ['test/package/build-dist.setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Real peers are child processes; two cores are shared between them and the suite.
    maxWorkers: 2,
  },
});
