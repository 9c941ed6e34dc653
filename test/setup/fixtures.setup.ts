/**
 * The run's global setup: bundles the fixture entries and builds the
 * official-server snapshot (see fixture-bundle.ts) and marks the run (see process-leaks.ts). Its teardown
 * fails the run when a process a test started is still alive: tests must
 * end their children and wait for them to exit. A process found is killed
 * and named, so one leak cannot outlive the run that reported it.
 * It also serves the run's one chromium (shared-chromium.ts), closed by its
 * teardown before the leak check.
 */
import { randomUUID } from 'node:crypto';
import { bundleFixtures, removeFixtureBundles, snapshotFixtures } from './fixture-bundle.ts';
import type { TestProject } from 'vitest/node';
import { markedProcesses, RUN_MARKER } from './process-leaks.ts';
import { serveChromiumBroker } from './shared-chromium.ts';

/** Vitest's own workers carry the marker too; teardown runs after they stopped, and these are left out anyway. */
const isVitestWorker = (commandLine: string) => /node_modules\/vitest\/dist\/workers\//.test(commandLine);

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // Vitest runs a global setup once per project (unit, process) and once more for the root project, last; the
  // projects share one run: one marker, one set of bundles (each bundling is ~1.8 s of CPU), one browser, one check.
  if (!project.isRootProject()) return undefined;
  // Every process the run starts talks loopback only, and Node reads this CA bundle at every start (~40 ms CPU each
  // on the 2-core CI machine, where a proxy's CA is set for the npm registry), hundreds of starts per run.
  delete process.env['NODE_EXTRA_CA_CERTS'];
  const runId = randomUUID();
  process.env[RUN_MARKER] = runId;
  await bundleFixtures(runId);
  await snapshotFixtures(runId);
  // The root project's provided values reach every project's tests.
  const chromium = await serveChromiumBroker();
  project.provide('chromiumBroker', chromium.url);
  return async () => {
    await chromium.close();
    removeFixtureBundles(runId);
    const leaked = markedProcesses(runId, new Set([process.pid])).filter((found) => !isVitestWorker(found.commandLine));
    if (leaked.length === 0) return;
    for (const { pid } of leaked) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // it exited between the scan and the kill
      }
    }
    const list = leaked.map(({ pid, commandLine }) => `  ${pid} ${commandLine}`).join('\n');
    // Vitest reports an error thrown here but keeps the exit code of the tests; the run must fail.
    process.exitCode = 1;
    throw new Error(`${leaked.length} process(es) started by this test run outlived it (killed now):\n${list}`);
  };
}
