/**
 * The machine and lean-runtime tests (test/machines/, test/runtime/, among
 * them the lean runtime's differential test) against the newest xstate 5.x
 * in the registry, so a minor release that breaks the lean runtime's fence
 * (src/runtime/xstate-internals.ts) is seen the day it appears.
 *
 * It installs `xstate@5` into a scratch directory under the system's temp
 * directory (only the npm registry is needed), points the tests' `xstate`
 * imports at it (scripts/vitest.machines.config.ts, `XSTATE_DIR`), runs them,
 * prints the version, and removes the scratch directory. The repository's
 * node_modules and lockfile are not touched. Exit code: the tests'.
 *
 *   npm run test:xstate-latest
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const versionOf = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

const scratch = mkdtempSync(join(tmpdir(), 'xstate-latest-'));
let status = 1;
try {
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'xstate-latest-scratch', private: true }));
  // A registry connection can drop (a CI run once ended at one): the install is tried up to three times.
  for (let attempt = 1; ; attempt += 1) {
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', '--loglevel=error', 'xstate@5'], { cwd: scratch, stdio: 'inherit' });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`xstate-latest: npm install xstate@5 failed (attempt ${attempt} of 3); trying again`);
    }
  }
  const xstateDir = join(scratch, 'node_modules', 'xstate');
  const latest = versionOf(xstateDir);
  const locked = versionOf(join(root, 'node_modules', 'xstate'));
  console.log(`xstate-latest: the machine and lean-runtime tests against xstate ${latest} (locked: ${locked})`);
  const run = spawnSync('npx', ['vitest', 'run', '--config', 'scripts/vitest.machines.config.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, XSTATE_DIR: xstateDir },
  });
  status = run.status ?? 1;
  console.log(`xstate-latest: xstate ${latest}: ${status === 0 ? 'passed' : 'FAILED'}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(status);
