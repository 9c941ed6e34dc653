import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Real peers are child processes; two cores are shared between them and the suite.
    maxWorkers: 2,
  },
});
