/**
 * Smoke test of the side-by-side benchmark (bench/run.ts): its quick stdio
 * section runs to the end against both servers at 1,000 listen streams. The
 * benchmark waits for every acknowledgment and every fanned-out notification,
 * so finishing means each server opened all 1,000 streams and delivered each
 * publish to all of them and to the one it matched. Figures are not judged
 * here (they move with the machine's load); only that each was measured.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type { ListenLoadResult as LoadResult } from '../../bench/server/listen-load.ts';

const RUN = fileURLToPath(new URL('../../bench/run.ts', import.meta.url));

it('runs the quick stdio section against our server and the official one', { timeout: 180_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', RUN, '--quick', '--only', 'stdio', '--json'], { timeout: 170_000 });
  const lines = stdout.trim().split('\n');
  const result = JSON.parse(lines.at(-1)!) as { quick: boolean; loadAtStart: number[]; stdio: { streams: number; ours: LoadResult; official: LoadResult }[] };
  expect(result.quick).toBe(true);
  expect(result.loadAtStart).toHaveLength(3);
  expect(result.stdio.map((row) => row.streams)).toEqual([1_000]);
  for (const measured of [result.stdio[0]!.ours, result.stdio[0]!.official]) {
    for (const value of Object.values(measured)) expect(Number.isFinite(value)).toBe(true);
    expect(measured.openMs).toBeGreaterThan(0);
    expect(measured.fanoutAllMs).toBeGreaterThan(0);
  }
  // The table a reader sees, with the load average it was measured at.
  expect(stdout).toContain('| 1,000 |');
  expect(stdout).toMatch(/load average at start \d/);
});
