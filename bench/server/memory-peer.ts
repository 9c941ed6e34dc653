/**
 * An in-memory stdio pair for benchmarks: write lines into a server's stdin,
 * count and await lines from its stdout, without a child process.
 */
import { PassThrough } from 'node:stream';

export class MemoryPeer {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  private partial = '';
  private counters: { match: (line: string) => boolean; left: number; resolve: () => void }[] = [];

  constructor() {
    this.stdout.setEncoding('utf8');
    this.stdout.on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.onLine(line);
    });
  }

  send(message: unknown): void {
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves once `count` lines matching have arrived from now on. */
  expect(count: number, match: (line: string) => boolean): Promise<void> {
    if (count === 0) return Promise.resolve();
    return new Promise((resolve) => this.counters.push({ match, left: count, resolve }));
  }

  private onLine(line: string): void {
    if (this.counters.length === 0) return;
    this.counters = this.counters.filter((counter) => {
      if (!counter.match(line)) return true;
      counter.left -= 1;
      if (counter.left > 0) return true;
      counter.resolve();
      return false;
    });
  }
}
