/**
 * `npm run test:loaded`: the suite on a busy machine. Runs two copies of the
 * full suite side by side while a CPU hog (one busy-loop process per core)
 * competes with them, and reports each copy's result, wall time and the load
 * average, and each copy's five slowest tests (what comes nearest its
 * timeout). Exits 1 unless both copies passed.
 *
 *   npx tsx scripts/test-loaded.ts [--copies N] [--runs N]   (defaults: 2 copies, 1 run)
 *
 * Each copy is a plain `vitest run` with the JSON reporter, so the counts
 * come from vitest itself. dist/ is built once first, so the copies' global
 * setups find it current instead of compiling into it at the same time (each
 * copy bundles its fixtures into a folder of its own). The hog is stopped (by
 * its pids) when the copies end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildDist } from './dist-build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

const { values } = parseArgs({ options: { copies: { type: 'string' }, runs: { type: 'string' } }, strict: true });
const copies = Number(values.copies ?? 2);
const runs = Number(values.runs ?? 1);

/** One copy's outcome, from vitest's JSON report. */
interface CopyResult {
  copy: number;
  exitCode: number | null;
  seconds: number;
  passed: number;
  failed: number;
  total: number;
  failures: string[];
  /** Its slowest tests, slowest first: what comes nearest its timeout on a loaded machine. */
  slowest: string[];
}

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  testResults: { name: string; assertionResults: { status: string; fullName: string; duration?: number }[] }[];
}

/** How many of a copy's slowest tests each run lists. */
const SLOWEST = 5;

function startHog(): ChildProcess[] {
  const busyLoop = 'for (;;) {}';
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', busyLoop], { stdio: 'ignore' }));
}

async function runCopy(copy: number, dir: string): Promise<CopyResult> {
  const report = join(dir, `copy-${copy}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, [VITEST, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  let parsed: JsonReport | undefined;
  try {
    parsed = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
  } catch {
    parsed = undefined; // vitest failed before writing a report: the exit code says so
  }
  const failures = parsed?.testResults.flatMap((file) =>
    file.assertionResults.filter((test) => test.status === 'failed').map((test) => `${file.name.slice(ROOT.length)}: ${test.fullName}`)) ?? [];
  const slowest = (parsed?.testResults.flatMap((file) => file.assertionResults.map((test) => ({ file: file.name.slice(ROOT.length), test }))) ?? [])
    .sort((a, b) => (b.test.duration ?? 0) - (a.test.duration ?? 0))
    .slice(0, SLOWEST)
    .map(({ file, test }) => `${((test.duration ?? 0) / 1000).toFixed(1)} s ${file}: ${test.fullName}`);
  return {
    copy,
    exitCode,
    seconds,
    passed: parsed?.numPassedTests ?? 0,
    failed: parsed?.numFailedTests ?? 0,
    total: parsed?.numTotalTests ?? 0,
    failures,
    slowest,
  };
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

if (!buildDist()) {
  process.stderr.write('build failed: see the errors above\n');
  process.exit(1);
}

let allPassed = true;
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-loaded-'));
  const loadBefore = load();
  const hog = startHog();
  const peakLoad = { value: loadavg()[0]! };
  const sampler = setInterval(() => (peakLoad.value = Math.max(peakLoad.value, loadavg()[0]!)), 5_000);
  const started = performance.now();
  let results: CopyResult[];
  try {
    results = await Promise.all(Array.from({ length: copies }, (_, index) => runCopy(index + 1, dir)));
  } finally {
    clearInterval(sampler);
    for (const child of hog) child.kill('SIGKILL');
    await Promise.all(hog.map((child) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
  const wall = (performance.now() - started) / 1000;
  process.stdout.write(`run ${run}/${runs}: ${copies} copies beside ${hog.length} busy loops, wall ${wall.toFixed(1)} s, load before ${loadBefore}, peak 1-min load ${peakLoad.value.toFixed(2)}, after ${load()}\n`);
  for (const result of results) {
    const ok = result.exitCode === 0 && result.failed === 0;
    allPassed &&= ok;
    process.stdout.write(`  copy ${result.copy}: ${ok ? 'PASS' : 'FAIL'} ${result.passed}/${result.total} passed, ${result.failed} failed, exit ${result.exitCode}, ${result.seconds.toFixed(1)} s\n`);
    for (const failure of result.failures) process.stdout.write(`    ✗ ${failure}\n`);
    for (const test of result.slowest) process.stdout.write(`    slow: ${test}\n`);
  }
}
process.exitCode = allPassed ? 0 : 1;
