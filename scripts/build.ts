/**
 * `npm run build`: compiles `src/` and `machines/` into `dist/` (see
 * dist-build.ts). Exits 1 on any type error.
 *
 *   npx tsx scripts/build.ts [--clean]   (--clean: remove dist/ first, so a tarball has no stale files)
 */
import { buildDist } from './dist-build.ts';

if (!buildDist({ clean: process.argv.includes('--clean') })) {
  process.stderr.write('build failed: see the errors above\n');
  process.exitCode = 1;
}
