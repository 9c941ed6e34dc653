/**
 * `npm run test:cpu [-- vitest args]`: where the suite's CPU goes. Runs
 * `vitest run` with the per-file CPU counter (test/setup/cpu-profile.ts) and
 * prints the test files ranked by CPU seconds, each worker's own plus its
 * children's (the official peers, fixtures, Redis, tsc, the CLI the file
 * starts). Wall time on a shared machine is noisy; CPU is what a file costs.
 *
 *   npx tsx scripts/test-cpu.ts --project process
 *   npx tsx scripts/test-cpu.ts test/interop/inspector-cli.process.test.ts
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** One line of test/setup/cpu-profile.ts. */
interface FileCpu {
  file: string;
  selfSeconds: number;
  childrenSeconds: number;
  wallSeconds: number;
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-cpu-'));
const out = join(dir, 'cpu.jsonl');
try {
  const child = spawn(process.execPath, [VITEST, 'run', '--reporter=dot', ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, CPU_PROFILE_OUT: out },
  });
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  let lines: FileCpu[] = [];
  try {
    lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as FileCpu);
  } catch {
    process.stderr.write('no CPU profile was written (did vitest start any test file?)\n');
  }
  const total = (entry: FileCpu) => entry.selfSeconds + entry.childrenSeconds;
  lines.sort((a, b) => total(b) - total(a));
  const sum = (pick: (entry: FileCpu) => number) => lines.reduce((acc, entry) => acc + pick(entry), 0);
  const row = (cpu: number, self: number, children: number, wall: number, name: string) =>
    `${cpu.toFixed(1).padStart(7)} ${self.toFixed(1).padStart(7)} ${children.toFixed(1).padStart(9)} ${wall.toFixed(1).padStart(7)}  ${name}\n`;
  process.stdout.write(`${'cpu s'.padStart(7)} ${'self s'.padStart(7)} ${'children'.padStart(9)} ${'wall s'.padStart(7)}  file\n`);
  for (const entry of lines) {
    process.stdout.write(row(total(entry), entry.selfSeconds, entry.childrenSeconds, entry.wallSeconds, relative(ROOT, entry.file)));
  }
  process.stdout.write(row(sum(total), sum((e) => e.selfSeconds), sum((e) => e.childrenSeconds), sum((e) => e.wallSeconds), `${lines.length} files`));
  process.exitCode = exitCode ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
