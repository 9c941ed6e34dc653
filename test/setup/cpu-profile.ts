/**
 * Setup file of `npm run test:cpu` (scripts/test-cpu.ts), loaded only when
 * CPU_PROFILE_OUT names a file: appends one JSON line per test file with the
 * CPU seconds its worker spent on it, its own and its children's.
 *
 * The children's part is Linux's cutime/cstime (/proc/self/stat): the CPU of
 * every child the worker has waited for, grandchildren included once their
 * parent waited for them. Tests wait for their children to exit (the global
 * teardown fails the run otherwise), so a file's children are counted with
 * that file. The workers do not isolate files (vitest.config.ts), so the
 * counters are read before and after each file in the same process.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

/** Clock ticks per second of /proc/self/stat on Linux (USER_HZ, 100 on every architecture Node supports). */
const TICKS_PER_SECOND = 100;

interface CpuTicks {
  self: number;
  children: number;
}

function readTicks(): CpuTicks {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name may hold spaces and parentheses; the fields after its last ')' start with the state (field 3).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
  return { self: utime + stime, children: cutime + cstime };
}

const out = process.env.CPU_PROFILE_OUT;
if (out) {
  let start: CpuTicks = { self: 0, children: 0 };
  let startedAt = 0;
  let file = '';
  // The first argument is the suite context (vitest requires it destructured); the second is the file-level suite.
  beforeAll(({}, suite) => {
    file = suite.file.filepath;
    startedAt = performance.now();
    start = readTicks();
  });
  afterAll(() => {
    const end = readTicks();
    const line = {
      file,
      selfSeconds: (end.self - start.self) / TICKS_PER_SECOND,
      childrenSeconds: (end.children - start.children) / TICKS_PER_SECOND,
      wallSeconds: (performance.now() - startedAt) / 1000,
      pid: process.pid,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
