/**
 * Finds the processes one test run started and left alive. The global setup
 * marks the run with a unique value in RUN_MARKER; every child a test starts
 * inherits the environment (stdio transports, fixtures and the CLI pass it
 * on), so a process whose initial environment carries the marker belongs to
 * this run, however deep it is in the tree and whoever its parent is now.
 * Two runs side by side have different markers and never see each other's.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks one test run's processes. */
export const RUN_MARKER = 'MCP_ACTORS_TEST_RUN';

/** A live process of the run. */
export interface MarkedProcess {
  pid: number;
  commandLine: string;
}

const readProc = (pid: string, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
};

/** A zombie has exited already; only its parent's wait is missing. */
const isZombie = (pid: string): boolean => /^\d+ \(.*\) Z/s.test(readProc(pid, 'stat') ?? '');

/** Live processes (zombies aside) whose initial environment has `RUN_MARKER=runId`, except `exclude`. */
export function markedProcesses(runId: string, exclude: ReadonlySet<number>): MarkedProcess[] {
  const entry = `${RUN_MARKER}=${runId}`;
  const found: MarkedProcess[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (exclude.has(Number(pid))) continue;
    const environ = readProc(pid, 'environ');
    if (!environ?.split('\0').includes(entry) || isZombie(pid)) continue;
    found.push({ pid: Number(pid), commandLine: (readProc(pid, 'cmdline') ?? '').split('\0').join(' ').trim() });
  }
  return found;
}
