/**
 * The human timeline in a real pseudo-terminal (util-linux `script`): legible
 * lines with ANSI colours on a TTY, none when piped or with --json, and a
 * Ctrl-C typed into the terminal ends the watch with exit 0.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, CliRun, fastDemoEnv, killAllCliRuns, watchCli } from './cli-process.ts';

afterEach(killAllCliRuns);

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const ANSI = /\x1b\[\d+m/;
const plain = (text: string) => text.replace(/\x1b\[\d+m/g, '').replace(/\r/g, '');

/**
 * `watch ARGS` on a pseudo-terminal; what the terminal shows arrives on stdout,
 * keystrokes go to stdin. `script` runs the command through $SHELL; `exec`
 * replaces that shell, because a shell that stays in the foreground (dash
 * does) dies of the Ctrl-C itself and `script` reports its 130, not ours.
 */
const watchOnTerminal = (args: string[]) =>
  new CliRun('script', ['-qfec', ['exec', process.execPath, BIN, 'watch', ...args].join(' '), '/dev/null'], {
    env: fastDemoEnv(0),
    stdin: 'pipe',
  });

describe.skipIf(!hasScript)('watch on a terminal', () => {
  it('prints a coloured, legible timeline and exits 0 on Ctrl-C', async () => {
    const run = watchOnTerminal([]);
    await run.until(() => (/Δ tools .*forecast/.test(plain(run.stdout)) ? true : undefined), 'a tools diff line');
    const screen = plain(run.stdout);
    expect(run.stdout).toMatch(ANSI);
    expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}● connected era modern \(2026-07-28\) to mcp-actors-demo 0\.1\.0$/m);
    expect(screen).toMatch(/^ {14}changes advertised: tools yes, prompts yes, resources yes, subscribe yes$/m);
    expect(screen).toMatch(/^ {14}watching: tools, prompts, resources, demo:\/\/clock, demo:\/\/readme$/m);
    expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}↘ notification notifications\/tools\/list_changed$/m);
    // Which diff comes first depends on where the demo's schedule is when the first list lands.
    expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}Δ tools (\+forecast \(3 in all\)|-forecast \(2 in all\))$/m);

    run.child.stdin!.write('\x03'); // Ctrl-C, through the terminal's line discipline
    expect((await run.exited).code).toBe(0);
    expect(plain(run.stdout)).toMatch(/■ closed disconnected/);
  });

  it('prints no colours with --json, even on a terminal', async () => {
    const run = watchOnTerminal(['--json', '--tools']);
    await run.until(() => (run.stdout.includes('"list_diff"') ? true : undefined), 'a diff line');
    expect(run.stdout).not.toMatch(ANSI);
    run.child.stdin!.write('\x03');
    expect((await run.exited).code).toBe(0);
  });
});

describe('watch piped', () => {
  it('prints the human timeline without colours', async () => {
    const run = watchCli(['--tools'], fastDemoEnv(0));
    await run.until(() => (/Δ tools /.test(run.stdout) ? true : undefined), 'a tools diff line');
    expect(run.stdout).toMatch(/● connected era modern/);
    expect(run.stdout).not.toMatch(ANSI);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });
});
