/**
 * The MCP conformance suites, whole, against our server and our client:
 *
 *   npx tsx .ci/conformance.ts [--server-only]
 *
 * (`--server-only` skips the client runs: a quicker check while working on
 * the server; CI runs both.)
 *
 * Every run below is one suite version with one revision selector, for the
 * server side (against test/fixtures/conformance/server.ts, one fixture
 * server per run) and the client side (the suite drives
 * test/fixtures/conformance/client.ts, bundled once with esbuild so that the
 * dozens of client processes a run starts in parallel do not each pay for a
 * TypeScript loader). The suite itself compares each run with its section of
 * .ci/conformance-baseline.yaml (`--expected-failures`): an unexpected failure
 * and a baseline entry that now passes both make it exit non-zero, and so
 * does this script. It prints one line per run and side,
 * `N passed, M failed, K expected failures` over the scenarios the run scores,
 * and writes the totals to .tmp/conformance.json for .ci/run's closing line.
 *
 * On Node 20 the suites need test/fixtures/conformance-node20.mjs (fs.globSync).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { parse } from 'yaml';

type Side = 'server' | 'client';

interface Run {
  /** The baseline section: package version and revision selector. */
  key: string;
  /** The package directory under node_modules. */
  suite: string;
  /** Which scenarios run: `--requirements R` (0.2) or `--spec-version R` (0.1, which has no requirement sets). */
  select: string[];
  sides: Side[];
}

// 0.1.16 tags scenarios by revision; 2025-06-18's set is a subset of
// 2025-11-25's (same scenarios, same wire), so it is not run twice. 2025-03-26
// has client scenarios only; 2024-11-05 is not a version either suite knows.
const RUNS: Run[] = [
  { key: '0.1.16 --spec-version 2025-11-25', suite: 'conformance-2025', select: ['--spec-version', '2025-11-25'], sides: ['server', 'client'] },
  { key: '0.1.16 --spec-version 2025-03-26', suite: 'conformance-2025', select: ['--spec-version', '2025-03-26'], sides: ['client'] },
  { key: '0.2.0-alpha.12 --requirements 2025-11-25', suite: 'conformance-2026', select: ['--requirements', '2025-11-25'], sides: ['server', 'client'] },
  { key: '0.2.0-alpha.12 --requirements 2026-07-28', suite: 'conformance-2026', select: ['--requirements', '2026-07-28'], sides: ['server', 'client'] },
];

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = join(ROOT, '.ci', 'conformance-baseline.yaml');
const NODE20_SHIM = './test/fixtures/conformance-node20.mjs';
// Scenario patience: the suites start every client scenario at once, which on
// a busy 2-core machine takes far longer than their 30 s default.
const SCENARIO_TIMEOUT_MS = 120_000;
// Client scenarios that judge wall-clock timing run by themselves, after the
// run that starts every other scenario at once: 0.1.16's sse-retry requires
// the reconnect to land within 200 ms after the server's `retry`, which on two
// cores busy starting eighteen scenario clients measures the machine, not the
// client. Their result in the all-at-once run is ignored; the solo run decides.
const RUN_ALONE: Partial<Record<Side, string[]>> = { client: ['sse-retry'] };

interface Outcome {
  key: string;
  side: Side;
  passed: number;
  failed: number;
  expected: number;
  /** Baseline entries whose scenario now passes. */
  stale: number;
  exitCode: number;
}

type Baseline = Record<string, Partial<Record<Side, string[]>>>;

// Every child still running when this script ends, however it ends, is ended with it.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('close', () => children.delete(child));
  return child;
}

function readBaseline(): Baseline {
  const parsed: unknown = parse(readFileSync(BASELINE, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${BASELINE}: expected a mapping of run keys`);
  const unknown = Object.keys(parsed).filter((key) => !RUNS.some((run) => run.key === key));
  if (unknown.length > 0) throw new Error(`${BASELINE}: sections for no run: ${unknown.join(', ')}`);
  return parsed as Baseline;
}

function suiteCommand(run: Run, args: string[]): string[] {
  return ['--import', NODE20_SHIM, join('node_modules', run.suite, 'dist', 'index.js'), ...args];
}

/** Runs a child to its end; its output goes to `log` and, when `echo`, to ours. */
function runChild(args: string[], log: string[], echo: boolean): Promise<number> {
  const child = track(spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  const collect = (chunk: Buffer) => {
    log.push(chunk.toString());
    if (echo) process.stdout.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** The scenarios a run scores: with --requirements, what `list` names as required; else all it ran. */
async function scoredScenarios(run: Run, side: Side): Promise<Set<string> | undefined> {
  if (run.select[0] !== '--requirements') return undefined;
  const log: string[] = [];
  await runChild(suiteCommand(run, ['list', ...run.select]), log, false);
  const scored = new Set<string>();
  let inSide = false;
  for (const line of log.join('').split('\n')) {
    if (line.startsWith('Server scenarios')) inSide = side === 'server';
    else if (line.startsWith('Client scenarios')) inSide = side === 'client';
    else if (!line.startsWith('  - ')) inSide = false;
    else if (inSide) scored.add(line.slice(4).trim());
  }
  return scored;
}

/** Starts one fixture server and resolves with its URL once it prints its port. */
async function startFixtureServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = track(spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/conformance/server.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('close', (code) => reject(new Error(`the conformance fixture server exited (${code}) before it listened`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function runSide(run: Run, side: Side, baseline: Baseline, work: string, clientCommand: string): Promise<Outcome> {
  const expectedFailures = baseline[run.key]?.[side] ?? [];
  const baselineFile = join(work, `${run.suite}-${run.select[1]}-${side}.yaml`);
  writeFileSync(baselineFile, JSON.stringify({ [side]: expectedFailures }));
  const outputDir = join(work, `${run.suite}-${run.select[1]}-${side}`);
  const common = [...run.select, '--expected-failures', baselineFile, '-o', outputDir];
  // 0.1's server command has no --timeout (its scenarios bring their own).
  const timeout = side === 'client' || run.select[0] === '--requirements' ? ['--timeout', String(SCENARIO_TIMEOUT_MS)] : [];
  const log: string[] = [];
  let exitCode: number;
  if (side === 'server') {
    const server = await startFixtureServer();
    try {
      exitCode = await runChild(suiteCommand(run, ['server', '--url', server.url, ...common, ...timeout]), log, false);
    } finally {
      await server.stop();
    }
  } else {
    // 0.1's client command needs a suite to run more than one scenario; --spec-version then filters it.
    const suite = run.select[0] === '--spec-version' ? ['--suite', 'all'] : [];
    exitCode = await runChild(suiteCommand(run, ['client', '--command', clientCommand, ...suite, ...common, ...timeout]), log, false);
  }
  const scored = await scoredScenarios(run, side);
  const alone = (RUN_ALONE[side] ?? []).filter((scenario) => scored === undefined || scored.has(scenario));
  let results = readChecks(outputDir, side).filter((result) => scored === undefined || scored.has(result.scenario));
  if (alone.length > 0) {
    // The suite's own verdict on the all-at-once run counted the solo scenarios
    // too; ours below does not, so a crash is the only exit code kept from it.
    if (results.length > 0) exitCode = 0;
    const ran = new Set(results.map((result) => result.scenario));
    results = results.filter((result) => !alone.includes(result.scenario));
    for (const scenario of alone.filter((name) => ran.has(name))) {
      const soloDir = `${outputDir}-${scenario.replaceAll('/', '_')}`;
      const soloBaseline = join(work, `${run.suite}-${run.select[1]}-${side}-${scenario.replaceAll('/', '_')}.yaml`);
      writeFileSync(soloBaseline, JSON.stringify({ [side]: expectedFailures.filter((name) => name === scenario) }));
      // 0.2 refuses --requirements beside --scenario (the set fixes the scenarios); the scenario is scored all the same.
      const solo = ['client', '--command', clientCommand, '--scenario', scenario, ...(run.select[0] === '--spec-version' ? run.select : []), '--expected-failures', soloBaseline, '-o', soloDir, ...timeout];
      const soloExit = await runChild(suiteCommand(run, solo), log, false);
      if (soloExit !== 0) exitCode = soloExit;
      results.push(...readChecks(soloDir, side));
    }
  }
  const failing = results.filter((result) => !result.passed).map((result) => result.scenario);
  const expected = failing.filter((scenario) => expectedFailures.includes(scenario)).length;
  const stale = results.filter((result) => result.passed && expectedFailures.includes(result.scenario)).length;
  if (failing.length - expected > 0 || stale > 0) exitCode ||= 1;
  const outcome = { key: run.key, side, passed: results.length - failing.length, failed: failing.length - expected, expected, stale, exitCode };
  if (exitCode !== 0) process.stdout.write(`\n---- ${run.key} ${side}: the suite's output ----\n${log.join('')}\n`);
  return outcome;
}

interface ScenarioResult {
  scenario: string;
  passed: boolean;
}

/**
 * Each scenario's verdict from the suite's output directory, where it writes
 * `[server-]<scenario>-<timestamp>/checks.json` (auth/… scenarios nest one
 * folder deeper). A scenario passes when no check is a FAILURE or a WARNING,
 * the rule the suite's own baseline comparison applies.
 */
function readChecks(outputDir: string, side: Side): ScenarioResult[] {
  if (!existsSync(outputDir)) return [];
  const files = readdirSync(outputDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith(`${sep}checks.json`));
  return files.map((file) => {
    const folder = relative(outputDir, join(outputDir, file, '..')).split(sep).join('/');
    const scenario = folder.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '').replace(side === 'server' ? /^server-/ : /^$/, '');
    const checks = JSON.parse(readFileSync(join(outputDir, file), 'utf8')) as { status: string }[];
    return { scenario, passed: !checks.some((check) => check.status === 'FAILURE' || check.status === 'WARNING') };
  });
}

function bundleClient(work: string): string {
  const outfile = join(work, 'conformance-client.mjs');
  buildSync({ entryPoints: [join(ROOT, 'test/fixtures/conformance/client.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'error' });
  return `${process.execPath} ${outfile}`;
}

async function main(): Promise<number> {
  const started = performance.now();
  const baseline = readBaseline();
  const work = mkdtempSync(join(tmpdir(), 'mcp-actors-conformance-'));
  try {
    const clientCommand = bundleClient(work);
    // The server runs go side by side, one fixture server each; the client
    // runs one after another, since each already starts all its scenarios at once.
    const serverRuns = RUNS.filter((run) => run.sides.includes('server')).map((run) => runSide(run, 'server', baseline, work, clientCommand));
    const outcomes = await Promise.all(serverRuns);
    const clientRuns = process.argv.includes('--server-only') ? [] : RUNS.filter((candidate) => candidate.sides.includes('client'));
    for (const run of clientRuns) outcomes.push(await runSide(run, 'client', baseline, work, clientCommand));
    for (const o of outcomes) {
      const staleNote = o.stale > 0 ? `, ${o.stale} baseline entries now passing` : '';
      const verdict = o.exitCode === 0 ? 'ok' : 'FAILED (see the suite\'s output above)';
      console.log(`conformance ${o.key} ${o.side}: ${o.passed} passed, ${o.failed} failed, ${o.expected} expected failures${staleNote} — ${verdict}`);
    }
    const total = (field: 'passed' | 'failed' | 'expected' | 'stale') => outcomes.reduce((sum, o) => sum + o[field], 0);
    const failedRuns = outcomes.filter((o) => o.exitCode !== 0).length;
    // For .ci/run's closing line: a stale entry fails the run as an unexpected failure does.
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    writeFileSync(join(ROOT, '.tmp', 'conformance.json'), JSON.stringify({
      passed: total('passed'),
      failed: Math.max(total('failed') + total('stale'), failedRuns > 0 ? 1 : 0),
      expected: total('expected'),
    }));
    console.log(`conformance: ${total('passed')} passed, ${total('failed')} failed, ${total('expected')} expected failures in ${outcomes.length} runs, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return failedRuns === 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
