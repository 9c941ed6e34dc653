/**
 * `npm run test:ab`: the suite's quiet wall time beside an earlier revision's, measured the one way that means
 * anything on a shared machine: interleaved pairs, each `npm test` of the baseline next to one of this checkout (the
 * baseline first in odd pairs, second in even ones), so that both runs of a pair see the same machine. A machine's speed drifts by tens of percent within an
 * hour, so absolute times of different hours do not compare; a pair's ratio does, and the median of the pairs is the
 * figure to report (issue 12 asks for at most 0.5 against b1bb809, the revision it was measured on).
 *
 *   npx tsx scripts/test-ab.ts [--baseline REV] [--pairs N] [--warmup] [--same-files]   (defaults: b1bb809, 3 pairs)
 *
 * The baseline is checked out as a detached git worktree under .tmp/ab/ (kept for the next measurement) and gets
 * its own `npm ci` the first time. `--warmup` runs each side once first, uncounted, so that neither pays for
 * building its caches (dist/, fixture bundles, vite's transform cache) inside a counted pair. Each line gives the
 * wall time, the CPU seconds of the run and everything it waited for (Linux: this process's cutime + cstime), and
 * the 1-minute load average just before the run. Run it on an otherwise idle machine; exits 1 if any run failed.
 *
 * `--same-files` asks the other question: how long today's versions of the baseline's own test files take. This
 * checkout then runs `vitest run` with only the files that are the baseline's test files today (followed through
 * git's rename detection, or renamed to `.process.test.ts`), not the files added since; the baseline still runs its
 * whole `npm test`, which is exactly its files. The baseline files that have no counterpart today are listed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../bench/median.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Kernel clock ticks per second, the unit of /proc's cutime and cstime (USER_HZ, 100 on every Linux build Node supports). */
const USER_HZ = 100;

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, pairs: { type: 'string' }, warmup: { type: 'boolean' }, 'same-files': { type: 'boolean' } },
  strict: true,
});
const baseline = values.baseline ?? 'b1bb809';
const pairs = Number(values.pairs ?? 3);
if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--pairs must be a positive integer, not ${values.pairs}`);

/** One `npm test` run of one side. */
interface Run {
  exitCode: number | null;
  wallSeconds: number;
  /** Undefined where /proc is missing (not Linux). */
  cpuSeconds: number | undefined;
  load: number;
}

/** CPU seconds of this process's waited-for descendants so far, from /proc/self/stat (fields 16 and 17). */
function childrenCpuSeconds(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name, which is parenthesised and may hold spaces: field 3 is the first of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / USER_HZ;
}

/** The baseline's worktree, made and installed on first use. */
function baselineCheckout(): string {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${baseline}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, '.tmp', 'ab', commit.slice(0, 12));
  if (!existsSync(join(dir, 'package.json'))) {
    execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: ROOT, stdio: 'inherit' });
  }
  if (!existsSync(join(dir, 'node_modules'))) {
    // The baseline's own lockfile; puppeteer-core never downloads a browser (the suites use Debian's chromium).
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' } });
  }
  return dir;
}

/**
 * Today's paths of the baseline's test files: git's rename detection first (a file moved or renamed with its
 * content), then the `.process.test.ts` name that files starting processes took (issue 12). `gone` are those with
 * neither.
 */
function baselineFilesToday(commit: string): { files: string[]; gone: string[] } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const isTest = (path: string) => path.startsWith('test/') && path.endsWith('.test.ts');
  const renamed = new Map<string, string>();
  for (const line of git('diff', '--name-status', '-M', commit, 'HEAD', '--', 'test').split('\n')) {
    const [status, from, to] = line.split('\t');
    if (status?.startsWith('R') && from && to && isTest(to)) renamed.set(from, to);
  }
  const files: string[] = [];
  const gone: string[] = [];
  for (const path of git('ls-tree', '-r', '--name-only', commit, '--', 'test').split('\n').filter(isTest)) {
    const today = [renamed.get(path), path, path.replace(/\.test\.ts$/, '.process.test.ts')].find((candidate) => candidate !== undefined && existsSync(join(ROOT, candidate)));
    if (today === undefined) gone.push(path);
    else files.push(today);
  }
  return { files, gone };
}

/** One side of a pair: where it runs, and what (`npm test`, or for `--same-files` vitest on the baseline's files). */
interface Side {
  dir: string;
  command: [string, ...string[]];
}

async function runSuite({ dir, command: [command, ...args] }: Side): Promise<Run> {
  const load = loadavg()[0]!;
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  // Output is not shown: a pair is compared by its numbers; a failing run is reported and fails the measurement.
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // 'close', not 'exit': the last of its stderr may still be on the way when it exits, and a failure quotes it.
  const [exitCode] = (await once(child, 'close')) as [number | null];
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpuSeconds();
  if (exitCode !== 0) process.stderr.write(`${command} ${args.join(' ')} in ${dir} exited ${exitCode}; its last output:\n${stderr}\n`);
  return { exitCode, wallSeconds, cpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore, load };
}

const describeRun = (run: Run) =>
  `${run.wallSeconds.toFixed(1)} s wall, ${run.cpuSeconds === undefined ? '?' : run.cpuSeconds.toFixed(0)} s CPU, load ${run.load.toFixed(2)}${run.exitCode === 0 ? '' : `, exit ${run.exitCode}`}`;

const old: Side = { dir: baselineCheckout(), command: ['npm', 'test'] };
const own: Side = { dir: ROOT, command: ['npm', 'test'] };
if (values['same-files']) {
  const { files, gone } = baselineFilesToday(baseline);
  own.command = [process.execPath, join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files];
  console.log(`this checkout runs the ${files.length} files that are ${baseline}'s test files today${gone.length === 0 ? '' : `; gone since: ${gone.join(', ')}`}`);
}
let failed = false;
if (values.warmup) {
  for (const side of [old, own]) failed = (await runSuite(side)).exitCode !== 0 || failed;
}
const ratios: number[] = [];
for (let pair = 1; pair <= pairs; pair++) {
  // The order alternates: a machine slowing down under sustained load would otherwise always count against the
  // side that runs second.
  const baselineFirst = pair % 2 === 1;
  let before: Run;
  let now: Run;
  if (baselineFirst) {
    before = await runSuite(old);
    now = await runSuite(own);
  } else {
    now = await runSuite(own);
    before = await runSuite(old);
  }
  failed = failed || before.exitCode !== 0 || now.exitCode !== 0;
  const ratio = now.wallSeconds / before.wallSeconds;
  ratios.push(ratio);
  const order = baselineFirst ? `${baseline} first` : 'this checkout first';
  console.log(`pair ${pair} (${order}): ${baseline} ${describeRun(before)} | this checkout${values['same-files'] ? ', same files' : ''} ${describeRun(now)} | ratio ${ratio.toFixed(3)}`);
}
console.log(`median wall ratio over ${pairs} pair(s): ${median(ratios).toFixed(3)} (range ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`);
process.exitCode = failed ? 1 : 0;
