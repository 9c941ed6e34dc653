/**
 * A scripted stdio peer for what the official client cannot produce
 * (malformed frames, floods, a client that stops reading): it spawns the
 * own-server fixture, writes raw lines and waits for matching messages.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { STDIO_FIXTURE } from './official-peers.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

export type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown }; result?: Record<string, unknown> };

export const modernMeta = (extra: Record<string, unknown> = {}) => ({
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
  ...extra,
});

export class RawStdioPeer {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly received: Message[] = [];
  private partial = '';
  private waiters: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];

  /** `launch`: Node flags before the fixture (e.g. a preloaded module) and extra environment. */
  constructor(args: string[] = [], launch: { nodeArgs?: string[]; env?: Record<string, string> } = {}) {
    this.child = spawn(process.execPath, [...(launch.nodeArgs ?? []), fixtureBundle(STDIO_FIXTURE), ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      ...(launch.env ? { env: { ...process.env, ...launch.env } } : {}),
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onChunk(chunk));
  }

  send(message: Message | string): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  request(id: string | number, method: string, params: Record<string, unknown> = {}): void {
    this.send({ jsonrpc: '2.0', id, method, params: { _meta: modernMeta(), ...params } });
  }

  /** Resolves with the first message received (past or future) matching; past ones from index `from` of `received` on. */
  next(match: (message: Message) => boolean, from = 0): Promise<Message> {
    const seen = this.received.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  response(id: unknown, from = 0): Promise<Message> {
    return this.next((message) => message.id === id && ('result' in message || 'error' in message), from);
  }

  /**
   * This connection as seen from now: what it waits for is matched only
   * among messages received from here on, so a test on a connection an
   * earlier test used never takes that test's answers for its own.
   */
  fromNow(): Pick<RawStdioPeer, 'send' | 'request' | 'next' | 'response'> {
    const from = this.received.length;
    return {
      send: (message) => this.send(message),
      request: (id, method, params) => this.request(id, method, params),
      next: (match) => this.next(match, from),
      response: (id) => this.response(id, from),
    };
  }

  /** Stops reading stdout, so the pipe fills and the server's writes back up. */
  stopReading(): void {
    this.child.stdout.pause();
  }

  resumeReading(): void {
    this.child.stdout.resume();
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Kills the server and resolves once it exited. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.kill();
    await exited;
  }

  private onChunk(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const message = JSON.parse(line) as Message;
      this.received.push(message);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.match(message)) return true;
        waiter.resolve(message);
        return false;
      });
    }
  }
}
