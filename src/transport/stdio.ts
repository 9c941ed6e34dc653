/**
 * The stdio client transport: spawns the server as a child process and
 * speaks newline-delimited JSON over its stdin and stdout.
 *
 * - Every stdout line is parsed and classified; invalid lines (garbage,
 *   truncated JSON, oversized lines) arrive as `invalid` frames and never end
 *   the transport.
 * - The child's exit is reported once, as `{ type: 'exited', code, signal }`.
 *   After `close()` has been called nothing is reported: the owner knows.
 * - `close()` ends stdin (the binding's graceful shutdown signal), sends
 *   SIGTERM after `closeGraceMs` (default 2000) and SIGKILL `killGraceMs`
 *   (default 2000) later, and resolves once the child has exited.
 * - On POSIX the child leads a process group of its own, and every signal
 *   goes to the whole group: a server started through a shell or a wrapper
 *   (`sh -c`, `npx`, `uvx`) is stopped with whatever it started. Once the
 *   child has exited, `close()` sends SIGTERM to what is left of its group,
 *   and SIGKILL `killGraceMs` later if anything still is (a timer that does
 *   not hold this process open). The group also keeps a terminal's Ctrl-C
 *   (and hangup) from reaching the server: its owner stops it, and when this
 *   process exits (`process.exit()` included) every group still running
 *   gets SIGTERM. Only a hard kill of this process leaves them to their
 *   closed stdin.
 * - stderr: `'inherit'` (default) shares the parent's stderr, `'ignore'`
 *   drops it, `'pipe'` hands each decoded chunk to `onStderr` and exposes the
 *   stream as `transport.stderr` (a piped stderr nobody reads eventually
 *   stalls the child, so give `onStderr` or read the stream).
 * - `env` is added to the parent's environment, not a replacement for it.
 * - A request from the server that arrives while more than `maxBacklogBytes`
 *   written to it are unread (it asks but does not read the answers) ends the
 *   transport as `failed` with PeerNotReadingError: the child's stdin is cut,
 *   its backlog dropped, and the child stopped as by `close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { messageOf } from '../../machines/errors.ts';
import type { JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { NotConnectedError, TransportStartError, type PeerNotReadingError } from '../protocol/errors.ts';
import { LineWriter, readFrames } from './line-stream.ts';
import { DEFAULT_MAX_BACKLOG_BYTES, DEFAULT_MAX_FRAME_BYTES, unreadBacklog, type ClientTransport, type TransportEvents } from './transport.ts';

export const DEFAULT_CLOSE_GRACE_MS = 2_000;
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** After the child exits, how long its stdout may stay open (held by a grandchild) before it is cut. */
const EXIT_DRAIN_MS = 500;

/**
 * The children still running, signalled when this process exits: one hook for the process, which has one exit
 * (a listener per transport would trip the max-listeners warning past ten servers).
 */
const runningChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function stopWithThisProcess(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of runningChildren) signalGroup(running, 'SIGTERM');
    });
  }
  runningChildren.add(child);
  child.once('exit', () => runningChildren.delete(child));
}

/** Options of `stdioTransport`: the server command, and how its process is run and stopped. */
export interface StdioTransportOptions {
  /** The server's executable, looked up on `PATH` as `child_process.spawn` does. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  /** Its working directory (default: this process's). */
  cwd?: string;
  /** What becomes of the child's stderr: shared with this process (`inherit`, the default), piped (`transport.stderr`, `onStderr`), or dropped. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** With `stderr: 'pipe'`: each chunk of the child's stderr, decoded as UTF-8. */
  onStderr?: (text: string) => void;
  /** Lines longer than this many UTF-8 bytes are refused (`oversized`). */
  maxFrameBytes?: number;
  /** Unread bytes written to the server past which a request from it drops the transport (PeerNotReadingError); default 8 MiB. */
  maxBacklogBytes?: number;
  /** How long `close()` waits after ending stdin before SIGTERM. */
  closeGraceMs?: number;
  /** How long `close()` waits after SIGTERM before SIGKILL. */
  killGraceMs?: number;
}

export interface StdioClientTransport extends ClientTransport {
  readonly kind: 'stdio';
  /** The child's process id once spawned. */
  readonly pid: number | undefined;
  /** The child's stderr with `stderr: 'pipe'`, otherwise null. */
  readonly stderr: Readable | null;
  /** How the child ended, once it has (also after a local close). */
  readonly exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

type Phase = 'idle' | 'starting' | 'open' | 'exited' | 'closing' | 'failed';

class StdioTransport implements StdioClientTransport {
  readonly kind = 'stdio';
  private phase: Phase = 'idle';
  private child: ChildProcess | undefined;
  private stdin: Writable | undefined;
  private writer: LineWriter | undefined;
  private events: TransportEvents | undefined;
  /** Settles when the child's stdio has closed after exit. */
  private exited: Promise<void> = Promise.resolve();
  private status: StdioClientTransport['exitStatus'];
  /** Set once a server that does not read was dropped: the rest of its output is ignored. */
  private peerDropped = false;

  constructor(private readonly options: StdioTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  get exitStatus(): StdioClientTransport['exitStatus'] {
    return this.status;
  }

  start(events: TransportEvents): Promise<void> {
    if (this.phase !== 'idle') {
      return Promise.reject(new TransportStartError('this stdio transport was already started; make a new one per connection'));
    }
    this.phase = 'starting';
    this.events = events;
    const { command, args = [], env, cwd } = this.options;
    const stderrMode = this.options.stderr ?? 'inherit';
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env: env ? { ...process.env, ...env } : process.env,
        stdio: ['pipe', 'pipe', stderrMode],
        // Its own process group on POSIX, so that signalGroup reaches what a wrapper started. Not unref'd: the
        // child still holds this process open as long as it runs.
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
    } catch (cause) {
      this.phase = 'failed';
      return Promise.reject(new TransportStartError(`cannot start ${command}: ${messageOf(cause)}`, { cause }));
    }
    this.child = child;
    // Both are 'pipe' above, so both exist.
    const stdin = child.stdin as Writable;
    const stdout = child.stdout as Readable;
    this.stdin = stdin;
    this.writer = new LineWriter(stdin);
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));

    const maxBacklogBytes = this.options.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES;
    readFrames(stdout, this.options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, (frame) => {
      if (this.peerDropped) return;
      const refusal = unreadBacklog(frame, this.writer!.backlogBytes, maxBacklogBytes);
      if (refusal) return this.dropUnreadPeer(refusal);
      events.frame(frame);
    });
    stdout.on('error', (error) => this.reportError(error));
    // EPIPE and friends after the child died: reported, never thrown.
    stdin.on('error', (error) => this.reportError(error));
    if (stderrMode === 'pipe' && child.stderr && this.options.onStderr) {
      const onStderr = this.options.onStderr;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => onStderr(text));
    }

    child.once('exit', () => {
      // A grandchild may hold stdout open; do not wait for it forever.
      const cut = setTimeout(() => {
        stdout.destroy();
        stdin.destroy();
        child.stderr?.destroy();
      }, EXIT_DRAIN_MS);
      child.once('close', () => clearTimeout(cut));
    });
    child.once('close', (code, signal) => {
      if (this.phase !== 'failed') this.status = { code, signal };
      if (this.phase !== 'open') return; // a failed start or a local close: nothing to report
      this.phase = 'exited';
      events.closed({ type: 'exited', code, signal });
    });

    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        // Only a spawned child is sure to emit the 'exit' that forgets it.
        stopWithThisProcess(child);
        if (this.phase === 'starting') this.phase = 'open';
        child.on('error', (error) => this.reportError(error));
        resolve();
      });
      child.once('error', (cause) => {
        if (this.phase !== 'starting' && this.phase !== 'closing') return;
        this.phase = 'failed';
        reject(new TransportStartError(`cannot start ${command}: ${messageOf(cause)}`, { cause }));
      });
    });
  }

  send(message: JsonRpcMessage): Promise<void> {
    const stdin = this.stdin;
    if (this.phase !== 'open' || !stdin || !stdin.writable || !this.writer) {
      return Promise.reject(new NotConnectedError(this.phase));
    }
    return this.writer.send(message);
  }

  abortRequest(): boolean {
    return false;
  }

  setProtocol(): void {
    // stdio framing does not depend on the protocol.
  }

  async close(): Promise<void> {
    const child = this.child;
    const wasRunning = this.phase === 'open' || this.phase === 'starting';
    if (this.phase !== 'failed') this.phase = 'closing';
    const killGraceMs = this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    if (!child || !wasRunning) {
      await this.exited;
      if (child) this.sweepGroup(child, killGraceMs);
      return;
    }
    const graceMs = this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.stdin?.end();
    const term = setTimeout(() => signalGroup(child, 'SIGTERM'), graceMs);
    const kill = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs + killGraceMs);
    // The child gone, what it started must not wait for the timers above (or outlive them).
    const onExit = () => this.sweepGroup(child, killGraceMs);
    child.once('exit', onExit);
    try {
      await this.exited;
    } finally {
      child.off('exit', onExit);
      clearTimeout(term);
      clearTimeout(kill);
    }
  }

  /** After the child's exit: SIGTERM to what is left of its group, SIGKILL after `killGraceMs` to what still is. */
  private sweepGroup(child: ChildProcess, killGraceMs: number): void {
    if (!signalGroup(child, 'SIGTERM')) return;
    // Unref'd: the owner's process may end meanwhile; then the SIGTERM is all the stragglers get.
    setTimeout(() => {
      if (signalGroup(child, 0)) signalGroup(child, 'SIGKILL');
    }, killGraceMs).unref();
  }

  /** The server asks without reading: its backlog goes, it is stopped as by `close()`, and the failure is reported once. */
  private dropUnreadPeer(cause: PeerNotReadingError): void {
    this.peerDropped = true;
    const events = this.events!;
    void this.close();
    this.stdin?.destroy();
    this.child?.stdout?.destroy();
    events.closed({ type: 'failed', cause });
  }

  private reportError(error: Error): void {
    if (this.phase === 'open') this.events?.error(error);
  }
}

/**
 * Sends `signal` to the child's process group on POSIX (it leads one, see `detached` above), to the child alone
 * elsewhere; signal 0 only checks. Returns whether anything of it was still there.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  if (process.platform === 'win32') return child.kill(signal);
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    // ESRCH: the whole group is gone. Anything else (EPERM) means something is there that we may not signal.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A TransportFactory of stdio transports: each connection attempt spawns a fresh child. */
export function stdioTransport(options: StdioTransportOptions): () => StdioClientTransport {
  return () => new StdioTransport(options);
}
