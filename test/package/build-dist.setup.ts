/**
 * Global setup: builds dist/ before any test runs, because tests run the
 * compiled `mcp-actors` bin and demo server with plain node, as a user does.
 * Incremental: with nothing changed since the last build it only compares
 * timestamps.
 */
import { buildDist } from '../../scripts/dist-build.ts';

export default function setup(): void {
  if (!buildDist()) throw new Error('npm run build failed (errors above): the tests need a compiled dist/');
}
