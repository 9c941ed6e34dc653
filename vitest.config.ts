import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import WaitsBesideWork from './test/setup/waits-beside-work.ts';

/**
 * Two projects, both run by `npm test`:
 *
 * - `process`: files named `*.process.test.ts`, anywhere under test/. They
 *   start real child processes or listen on loopback HTTP (official peers,
 *   fixture servers, the compiled CLI), so they are about process boundaries.
 * - `unit`: every other `*.test.ts`: pure machines and functions, and our
 *   client against our server over the in-memory linked pair
 *   (src/transport/in-memory.ts).
 *
 * A new test that starts a process or a socket takes the `.process.test.ts`
 * suffix. Either way the global setup's teardown fails the run if a process
 * a test started outlives it (test/setup/fixtures.setup.ts).
 *
 * Neither project isolates its files (`isolate: false`): each worker runs
 * file after file of its project and imports src/, the official SDK and
 * vitest itself once, instead of a fresh process per file doing it again. That was a
 * third of the suite's CPU outside the child processes. Every file cleans up
 * after itself anyway (children, servers, fake timers, spies), as the
 * teardown's leak check requires.
 */
const PROCESS_TESTS = 'test/**/*.process.test.ts';

/**
 * The two projects run as one group (vitest wants one `maxWorkers` for a group) of four workers on the two cores:
 * two run the files that work, unit files first, and the other two the few process files that spend most of their
 * time waiting, so that their waits overlap the work instead of leaving a core idle (waits-beside-work.ts). One
 * waiting worker ran them one after another for ~57 s, longer than the rest of a run on a quiet machine.
 */
const WORKERS = 4;

export default defineConfig({
  // typescript.js loaded with require() rather than import (test/setup/typescript-require.ts).
  resolve: { alias: [{ find: /^typescript$/, replacement: fileURLToPath(new URL('./test/setup/typescript-require.ts', import.meta.url)) }] },
  test: {
    // The CLI tests run the compiled bin and demo (dist/), as users do; fixture
    // children start from esbuild bundles (reused while their inputs are unchanged), not through tsx.
    globalSetup: ['test/package/build-dist.setup.ts', 'test/setup/fixtures.setup.ts'],
    // `npm run test:cpu` (scripts/test-cpu.ts) counts each file's CPU, its children's included.
    setupFiles: process.env.CPU_PROFILE_OUT ? ['test/setup/cpu-profile.ts'] : [],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    isolate: false,
    // Transformed modules are kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by each
    // file's content): a second run skips vite's transforms, ~12 s of the unit project's 62 s CPU when measured.
    experimental: { fsModuleCache: true },
    // Two workers run the files that mostly wait (start delays, outages) beside the two that run the files that
    // work, from the start of the run (waits-beside-work.ts).
    sequence: { sequencer: WaitsBesideWork },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [PROCESS_TESTS], maxWorkers: WORKERS, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'process', include: [PROCESS_TESTS], maxWorkers: WORKERS, sequence: { groupOrder: 0 } } },
    ],
  },
});
