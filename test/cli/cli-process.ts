/**
 * Runs the watcher CLI as a child process and reads its output line by line,
 * so tests wait for what the CLI prints instead of sleeping. Every process a
 * run started (the CLI and the servers it reported as spawned) is killed by
 * `killAllCliRuns()` in afterEach, or when its test finishes (`watchCliOfTest`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/mcp-actors.js', import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** One NDJSON line of `watch --json`. */
export type JsonLine = { type: string; time: string } & Record<string, unknown>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const WAIT_MS = 15_000;

export class CliRun {
  readonly child: ChildProcess;
  /** Complete stdout lines so far. */
  readonly lines: string[] = [];
  stdout = '';
  stderr = '';
  /** The CLI's exit with all its output read. */
  readonly exited: Promise<Exit>;
  /** The CLI's exit alone (a server it started may still hold the inherited stderr open). */
  readonly ended: Promise<void>;
  readonly #waiters = new Set<() => void>();

  /** Whether the CLI leads a process group of its own (as a terminal's foreground job does). */
  readonly group: boolean;

  constructor(
    command: string,
    args: string[],
    options: { env?: Record<string, string>; cwd?: string; stdin?: 'pipe' | 'ignore'; group?: boolean } = {},
  ) {
    this.group = options.group === true;
    this.child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
      detached: this.group,
    });
    runs.add(this);
    let partial = '';
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.stdout += text;
      partial += text;
      const parts = partial.split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
      this.#wake();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
      this.#wake();
    });
    this.ended = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => {
      this.#wake();
      resolve({ code, signal });
    }));
  }

  /** The NDJSON events so far. */
  get events(): JsonLine[] {
    return this.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonLine);
  }

  /** Waits until `check` returns something other than undefined, re-checking after every output chunk. */
  until<T>(check: () => T | undefined, what: string, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return false;
        done();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
      };
      const waiter = () => void attempt();
      if (!attempt()) this.#waiters.add(waiter);
    });
  }

  /** The first NDJSON event at or after index `from` that matches. */
  event(match: (event: JsonLine) => boolean, what: string, from = 0): Promise<{ event: JsonLine; index: number }> {
    return this.until(() => {
      const events = this.events;
      for (let index = from; index < events.length; index++) if (match(events[index]!)) return { event: events[index]!, index };
      return undefined;
    }, what);
  }

  /** Ctrl-C as a terminal sends it: SIGINT to every process of the group (npm, its shell and the CLI alike). */
  interruptGroup(): void {
    process.kill(-this.child.pid!, 'SIGINT');
  }

  /** Pids of every server process the CLI reported starting. */
  get serverPids(): number[] {
    return this.events.filter((event) => event.type === 'spawned').map((event) => event.pid as number);
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

const runs = new Set<CliRun>();

/** `watch` through the compiled bin with plain node, as a user runs it (the suite's global setup builds dist/). */
export const watchCli = (args: string[], env?: Record<string, string>) =>
  new CliRun(process.execPath, [BIN, 'watch', ...args], env ? { env } : {});

/**
 * `watch` as `watchCli` starts it, ended (with what it started) when the calling test finishes: for files whose tests
 * run concurrently, where an afterEach ending every run would end the other tests' too.
 */
export function watchCliOfTest(onTestFinished: TestContext['onTestFinished'], args: string[]): CliRun {
  const run = watchCli(args);
  onTestFinished(() => killCliRuns([run]));
  return run;
}

/** Fast demo settings: a change every 100 ms and the built-in crash after `restartAfterMs`. */
export const fastDemoEnv = (restartAfterMs: number): Record<string, string> => ({
  MCP_ACTORS_DEMO_INTERVAL_MS: '100',
  MCP_ACTORS_DEMO_RESTART_AFTER_MS: String(restartAfterMs),
});

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Kills every CLI run (and the servers it started) that is still going. */
export const killAllCliRuns = (): Promise<void> => killCliRuns([...runs]);

/** Kills every CLI run but `kept` (a watcher that several tests of a file share, ended after the last of them). */
export const killCliRunsExcept = (kept: ReadonlySet<CliRun | undefined>): Promise<void> => killCliRuns([...runs].filter((run) => !kept.has(run)));

/** Kills these CLI runs and what they started, if still going (a test's own runs, when the file's tests run concurrently). */
export async function killCliRuns(which: readonly CliRun[]): Promise<void> {
  for (const run of which) runs.delete(run);
  await Promise.all(
    which.map(async (run) => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.ended;
      // What the group leader started (npm's shell and the CLI under it) goes with it.
      if (run.group) {
        try {
          process.kill(-run.child.pid!, 'SIGKILL');
        } catch {
          // The group is gone already.
        }
      }
      for (const pid of run.serverPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }),
  );
}

/**
 * `watch --json --inspect` of the demo on any free loopback port, with one change a minute (the inspector's view is the
 * actors, not the traffic); resolves with the run and the page, feed and Stately relay addresses it announced.
 */
export async function watchInspected(era: 'auto' | 'legacy' | 'modern'): Promise<{ run: CliRun; url: string; feed: string; statelySocket: string }> {
  const run = watchCli(['--json', '--era', era, '--inspect-port', '0'], { ...fastDemoEnv(0), MCP_ACTORS_DEMO_INTERVAL_MS: '60000' });
  const { event } = await run.event((candidate) => candidate.type === 'inspector', 'the inspector line');
  if (event.loopback !== true || !/^http:\/\/127\.0\.0\.1:\d+\/$/.test(String(event.url))) throw new Error(`expected a loopback inspector, got ${JSON.stringify(event)}`);
  return { run, url: event.url as string, feed: event.feed as string, statelySocket: event.statelySocket as string };
}
