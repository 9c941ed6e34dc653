/**
 * Child processes for the consumer test: each runs in its own process group
 * with a deadline, so a hung install or server is killed with everything it
 * started, and the test says which command it was.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** The environment without npm's `npm_*` variables, which would point a nested npm at this repository. */
export const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));

/** A running command whose output is collected; `lines` wakes waiters on every chunk. */
export class Child {
  readonly process: ChildProcess;
  stdout = '';
  stderr = '';
  readonly finished: Promise<Finished>;
  readonly #waiters = new Set<() => void>();
  readonly #label: string;
  #closed = false;

  constructor(command: string, args: readonly string[], options: ChildOptions) {
    this.#label = [command, ...args].join(' ');
    this.process = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.process.stdout!.setEncoding('utf8').on('data', (text: string) => this.#append('stdout', text));
    this.process.stderr!.setEncoding('utf8').on('data', (text: string) => this.#append('stderr', text));
    const deadline = setTimeout(() => {
      this.stderr += `\n[consumer test] ${this.#label}: killed after ${options.timeoutMs} ms\n`;
      this.kill('SIGKILL');
    }, options.timeoutMs);
    this.finished = new Promise((resolve) => {
      this.process.once('error', (error) => {
        this.stderr += String(error);
      });
      this.process.once('close', (code, signal) => {
        clearTimeout(deadline);
        this.#closed = true;
        this.#wake();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Signals the whole process group (the command and whatever it started). */
  kill(signal: NodeJS.Signals): void {
    if (this.process.pid === undefined || this.process.exitCode !== null || this.process.signalCode !== null) return;
    try {
      process.kill(-this.process.pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Resolves once stdout matches `pattern`; rejects if the command ends first. */
  async waitFor(pattern: RegExp): Promise<void> {
    while (!pattern.test(this.stdout)) {
      if (this.#closed) throw new Error(`${this.#label} ended before printing ${pattern}`);
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
  }

  #append(stream: 'stdout' | 'stderr', text: string): void {
    this[stream] += text;
    this.#wake();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) waiter();
  }
}

/** Runs a command to its end. */
export const runToEnd = (command: string, args: readonly string[], options: ChildOptions): Promise<Finished> =>
  new Child(command, args, options).finished;

/** What npm and pnpm print when the registry dropped or refused a connection, as against an install that failed on its merits. */
const NETWORK_FAILURE = /\b(ECONNRESET|ETIMEDOUT|EAI_AGAIN|ECONNREFUSED|ENOTFOUND|ENETUNREACH|ERR_SOCKET_TIMEOUT|socket hang up|network aborted)\b/i;

/**
 * Runs an install to its end; one that failed for the network is run again, up to three times in all, and the
 * log says so. A CI run once ended at a dropped registry connection, which says nothing about the package.
 */
export async function runInstall(command: string, args: readonly string[], options: ChildOptions): Promise<Finished> {
  const attempts = 3;
  for (let attempt = 1; ; attempt += 1) {
    const finished = await runToEnd(command, args, options);
    if (finished.code === 0 || attempt === attempts || !NETWORK_FAILURE.test(`${finished.stdout}\n${finished.stderr}`)) return finished;
    console.log(`     ${command} ${args[0] ?? ''}: the registry connection failed (attempt ${attempt} of ${attempts}); retrying`);
    await new Promise((resolve) => setTimeout(resolve, attempt * 10_000));
  }
}

/** Throws with the command's output unless it exited 0. */
export function assertSucceeded(finished: Finished, what: string): Finished {
  if (finished.code === 0) return finished;
  const output = `${finished.stdout}\n${finished.stderr}`.trim().split('\n').slice(-40).join('\n');
  throw new Error(`${what} exited ${finished.code ?? finished.signal}:\n${output}`);
}
