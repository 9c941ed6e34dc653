/**
 * A reader that goes away (`mcp-actors watch … | head -1`): the watcher
 * stops as it does on Ctrl-C, so the server it started is stopped too (even
 * one that outlives its stdin), and it exits 0 without a word on stderr.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { alive, fixture, killAllCliRuns, watchCli } from './cli-process.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

afterEach(killAllCliRuns);

describe('watch with its stdout closed early', () => {
  it.for(['--json', '--tools'])('%s: stops the server it started and exits 0, with no stack trace', async (flag, { onTestFinished }) => {
    const run = watchCli([flag, '--', process.execPath, fixtureBundle(fixture('lingering-server.ts'))]);
    // The first line names the server's pid; the reader goes away after it, as `head -1` does.
    await run.until(() => (run.lines.length > 0 ? true : undefined), 'the first line');
    const pid = Number(/pid"?:? ?\(?(\d+)/.exec(run.lines[0]!)?.[1]);
    expect(pid).toBeGreaterThan(0);
    // A server left behind is not the next test's (the human timeline's pid is not in the runs' bookkeeping).
    onTestFinished(() => void (alive(pid) && process.kill(pid, 'SIGKILL')));
    run.child.stdout!.destroy();
    // The server announces a change every 50 ms, so the watcher's next line meets the closed pipe.
    await run.ended;
    expect(alive(pid)).toBe(false);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr).toBe('');
  });
});
