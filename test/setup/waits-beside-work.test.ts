/**
 * The run's file order (waits-beside-work.ts): waiting files start beside the
 * working ones, each where the one before it is expected to have ended, and
 * the working files keep their order, the unit project's first.
 */
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import WaitsBesideWork, { WAITING_FILES } from './waits-beside-work.ts';

const ROOT = '/repo';
const [SLOW_RESTART, OUTAGE] = [...WAITING_FILES.keys()] as [string, string];

/** A file of a project, and what vitest cached of its last run. */
interface FakeFile {
  project: 'unit' | 'process';
  path: string;
  seconds?: number;
}

/** The sequencer on two cores, over a results cache holding the given durations. */
function sequencerFor(files: readonly FakeFile[]): WaitsBesideWork {
  const durations = new Map<string, number>(files.flatMap((file) => (file.seconds === undefined ? [] : [[`${file.project}:${file.path}`, file.seconds * 1000] as const])));
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (durations.has(key) ? { duration: durations.get(key)!, failed: false } : undefined),
      getFileStats: () => ({ size: 1 }),
    },
  } as unknown as Vitest;
  return new (class extends WaitsBesideWork {
    protected override cores(): number {
      return 2;
    }
  })(ctx);
}

/** The files as vitest hands them to the sequencer, both projects in one group of `workers` workers. */
function specsOf(files: readonly FakeFile[], workers: number): TestSpecification[] {
  const projects = new Map(
    (['unit', 'process'] as const).map((name) => [name, { name, config: { root: ROOT, maxWorkers: workers, isolate: false, sequence: { groupOrder: 0 } } }]),
  );
  return files.map((file) => ({ project: projects.get(file.project)!, moduleId: `${ROOT}/${file.path}` }) as unknown as TestSpecification);
}

async function order(files: readonly FakeFile[], workers = 3): Promise<string[]> {
  const sorted = await sequencerFor(files).sort(specsOf(files, workers));
  return sorted.map((spec) => spec.moduleId.slice(ROOT.length + 1));
}

describe('the order vitest hands out files in', () => {
  it('starts the first waiting file first and the next where two workers have got through its length of work', async () => {
    const working = Array.from({ length: 8 }, (_, index): FakeFile => ({ project: 'process', path: `test/p${index}.process.test.ts`, seconds: 2 }));
    const files: FakeFile[] = [...working, { project: 'process', path: OUTAGE, seconds: 4 }, { project: 'process', path: SLOW_RESTART, seconds: 5 }];
    // Two workers take 1 s of the clock per 2 s file: the 5 s slow restart has ended after five of them.
    expect(await order(files)).toEqual([SLOW_RESTART, ...working.slice(0, 5).map((file) => file.path), OUTAGE, ...working.slice(5).map((file) => file.path)]);
  });

  it('with four workers on two cores, starts two waiting files at once and the third where the first lane frees', async () => {
    const [, , SLOW_START] = [...WAITING_FILES.keys()] as [string, string, string];
    const working = Array.from({ length: 8 }, (_, index): FakeFile => ({ project: 'process', path: `test/p${index}.process.test.ts`, seconds: 2 }));
    const files: FakeFile[] = [
      ...working,
      { project: 'process', path: SLOW_START, seconds: 3 },
      { project: 'process', path: OUTAGE, seconds: 2 },
      { project: 'process', path: SLOW_RESTART, seconds: 5 },
    ];
    // The outage's lane frees after two working files (1 s of the clock each): the slow start goes there.
    expect(await order(files, 4)).toEqual([SLOW_RESTART, OUTAGE, ...working.slice(0, 2).map((file) => file.path), SLOW_START, ...working.slice(2).map((file) => file.path)]);
  });

  it("puts the unit project's working files before the process project's, and a waiting file that does not fit last", async () => {
    const files: FakeFile[] = [
      { project: 'process', path: 'test/a.process.test.ts', seconds: 1 },
      { project: 'unit', path: 'test/b.test.ts', seconds: 1 },
      { project: 'process', path: SLOW_RESTART, seconds: 30 },
      { project: 'process', path: OUTAGE, seconds: 10 },
    ];
    expect(await order(files)).toEqual([SLOW_RESTART, 'test/b.test.ts', 'test/a.process.test.ts', OUTAGE]);
  });

  it('estimates a file vitest has no duration of by its listed seconds (a clean clone)', async () => {
    const working = Array.from({ length: 80 }, (_, index): FakeFile => ({ project: 'unit', path: `test/u${index}.test.ts` }));
    const sorted = await order([...working, { project: 'process', path: OUTAGE }, { project: 'process', path: SLOW_RESTART }]);
    // 0.7 s per unknown file over two workers is 0.35 s of the clock each: the slow restart's listed seconds pass after `after`.
    const after = Math.ceil(WAITING_FILES.get(SLOW_RESTART)! / (0.7 / 2));
    expect(sorted.indexOf(SLOW_RESTART)).toBe(0);
    expect(sorted.indexOf(OUTAGE)).toBe(after + 1);
  });
});
