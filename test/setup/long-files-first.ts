/**
 * The order in which vitest hands out test files: the files known to take
 * longest start first, so that on a clean clone (no duration cache yet) a
 * 30 s file cannot start last and run alone while the other worker idles.
 * Everything else keeps vitest's own order (its duration cache when there is
 * one, else larger files first).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files by their wall time on a quiet 2-core machine, longest first
 * (measured on the whole suite; a file that grows long belongs here too).
 */
export const LONG_FILES: readonly string[] = [
  'test/client/slow-restart-official.process.test.ts',
  'test/interop/inspector-cli.process.test.ts',
  'test/cli/watch-outage.process.test.ts',
  'test/cache/change-cache-real.process.test.ts',
  'test/cli/watch-official.process.test.ts',
  'test/client/listen-real.process.test.ts',
  'test/cli/demo-slow-start.process.test.ts',
  'test/cli/watch-actionable-errors.process.test.ts',
  'test/cli/watch-inspect-page.process.test.ts',
  'test/client/listeners-real.process.test.ts',
  'test/transport/oauth.process.test.ts',
  'test/interop/our-client.process.test.ts',
  'test/cli/watch-demo.process.test.ts',
  'test/client/client-stdio.process.test.ts',
  'test/types/type-tests.test.ts',
  'test/readme/examples.test.ts',
];

/** A file's place in LONG_FILES, or past its end when it is not listed. */
function rank(spec: TestSpecification): number {
  const root = spec.project.config.root;
  const relative = spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
  const index = LONG_FILES.indexOf(relative);
  return index === -1 ? LONG_FILES.length : index;
}

/** Vitest's sequencer, with the files of LONG_FILES moved to the front of their project, longest first. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    // Projects run as ordered groups (BaseSequencer keeps each project's files together); the ranking applies within one.
    return sorted.sort((a, b) => {
      if (a.project !== b.project) return position.get(a)! - position.get(b)!;
      return rank(a) - rank(b) || position.get(a)! - position.get(b)!;
    });
  }
}
