/**
 * Global setup: builds dist/ before any test runs, because tests run the
 * compiled `mcp-actors` bin and demo server with plain node, as a user does.
 * Incremental: with nothing changed since the last build it only compares
 * timestamps.
 */
import type { TestProject } from 'vitest/node';
import { buildDist } from '../../scripts/dist-build.ts';

export default function setup(project: TestProject): void {
  // Once per run: vitest calls a global setup for each project and for the root.
  if (!project.isRootProject()) return;
  if (!buildDist()) throw new Error('npm run build failed (errors above): the tests need a compiled dist/');
}
