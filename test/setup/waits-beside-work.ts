/**
 * The order in which vitest hands out test files. Both projects run as one
 * group of workers (vitest.config.ts), and a few process files spend
 * most of their time waiting (start delays, reconnect backoffs, outages):
 * run on their own they leave a core idle, and three of them at once leave
 * both idle. So as many workers as there are cores run the files that work,
 * and the group's other worker (or workers) the waiting files one after
 * another:
 *
 * - the working files: the unit project's, then the process project's, the
 *   longest first within each (LONG_FILES, then vitest's own order: its
 *   duration cache when there is one, else larger files first), so that none
 *   of them is the tail of the run;
 * - the waiting files (WAITING_FILES) go into that stream where the one
 *   before them is expected to have ended: the first at the start, the next
 *   after as many working files as the other workers get through meanwhile.
 *
 * Vitest's pool takes files in this order as workers free up, so the
 * positions are what places them in time; the estimates are the durations
 * vitest cached from the last run, or the listed seconds on a clean clone.
 */
import { availableParallelism } from 'node:os';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that spend most of their wall time waiting, with the seconds they take on a quiet 2-core machine, longest
 * first. A file only goes here when its waiting is its subject (a slow restart, an outage, a backoff).
 */
export const WAITING_FILES: ReadonlyMap<string, number> = new Map([
  ['test/client/slow-restart-official.process.test.ts', 23],
  ['test/cli/watch-outage.process.test.ts', 14],
  ['test/cli/demo-slow-start.process.test.ts', 9],
  ['test/cli/watch-official.process.test.ts', 7],
]);

/** Working files that take longest, longest first: they start first in their project (see the note at the top). */
export const LONG_FILES: readonly string[] = [
  'test/interop/inspector-cli.process.test.ts',
  'test/redis/huge-entry.process.test.ts',
  'test/cache/change-cache-real.process.test.ts',
  'test/client/listen-real.process.test.ts',
  'test/cli/watch-actionable-errors.process.test.ts',
  'test/cli/watch-inspect-page.process.test.ts',
  'test/client/listeners-real.process.test.ts',
  'test/transport/oauth.process.test.ts',
  'test/interop/our-client.process.test.ts',
  'test/cli/watch-demo.process.test.ts',
  'test/client/client-stdio.process.test.ts',
  'test/types/type-tests.test.ts',
];

/** The estimate for a working file vitest has no duration of (a clean clone): most files take well under a second. */
const UNKNOWN_FILE_SECONDS = 0.7;

/** The index of the smallest number. */
const earliest = (times: readonly number[]): number => times.indexOf(Math.min(...times));

/** Vitest's sequencer, with the waiting files placed beside the working ones (see the note at the top). */
export default class WaitsBesideWork extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const position = new Map(byVitest.map((spec, index) => [spec, index]));
    const longRank = (spec: TestSpecification) => {
      const index = LONG_FILES.indexOf(this.relativePath(spec));
      return index === -1 ? LONG_FILES.length : index;
    };
    const projectRank = (spec: TestSpecification) => (spec.project.name === 'unit' ? 0 : 1);
    const working = byVitest
      .filter((spec) => !WAITING_FILES.has(this.relativePath(spec)))
      .sort((a, b) => projectRank(a) - projectRank(b) || longRank(a) - longRank(b) || position.get(a)! - position.get(b)!);
    const waiting = [...WAITING_FILES.keys()].flatMap((path) => byVitest.filter((spec) => this.relativePath(spec) === path));

    // As many workers as there are cores run the working files; the rest of the group's workers, the waiting ones.
    const workers = files[0]?.project.config.maxWorkers ?? 1;
    const workingWorkers = Math.max(1, Math.min(this.cores(), workers - 1));
    const waitingFreeAt = Array.from({ length: Math.max(1, workers - workingWorkers) }, () => 0);
    const ordered: TestSpecification[] = [];
    let clock = 0;
    for (const spec of working) {
      for (let lane = earliest(waitingFreeAt); waiting.length > 0 && clock >= waitingFreeAt[lane]!; lane = earliest(waitingFreeAt)) {
        const next = waiting.shift()!;
        ordered.push(next);
        waitingFreeAt[lane] = clock + this.seconds(next);
      }
      ordered.push(spec);
      clock += this.seconds(spec) / workingWorkers;
    }
    return [...ordered, ...waiting];
  }

  /** The cores the working files share. */
  protected cores(): number {
    return availableParallelism();
  }

  /** The file's path from the project root, as the lists above name it. */
  private relativePath(spec: TestSpecification): string {
    const root = spec.project.config.root;
    return spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
  }

  /** How long the file took in vitest's last run, else its listed or a default estimate. */
  private seconds(spec: TestSpecification): number {
    const path = this.relativePath(spec);
    const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)?.duration;
    if (cached !== undefined) return cached / 1000;
    return WAITING_FILES.get(path) ?? UNKNOWN_FILE_SECONDS;
  }
}
