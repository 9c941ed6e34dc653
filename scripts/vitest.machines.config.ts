import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The pure machine and lean-runtime tests alone (test/machines/, test/runtime/):
 * no global setup (no dist build, no fixture bundles, no processes), so they
 * run in seconds. With XSTATE_DIR set to an installed xstate package, every
 * `import 'xstate'` of the code under test resolves to that copy instead of
 * the locked one: scripts/xstate-latest.ts runs them against the newest 5.x.
 */
const xstateDir = process.env.XSTATE_DIR;

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  resolve: xstateDir ? { alias: [{ find: /^xstate$/, replacement: xstateDir }] } : {},
  test: {
    include: ['test/machines/**/*.test.ts', 'test/runtime/**/*.test.ts'],
    exclude: ['test/**/*.process.test.ts'],
    testTimeout: 20_000,
    maxWorkers: 2,
  },
});
