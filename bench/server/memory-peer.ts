/**
 * A line peer for benchmarks: write lines into a server's stdin, count and
 * await lines from its stdout. In memory by default (no child process), or on
 * a child's pipes.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LineCounter } from './line-counter.ts';

export class MemoryPeer<In extends Writable = PassThrough, Out extends Readable = PassThrough> extends LineCounter {
  readonly stdin: In;
  readonly stdout: Out;

  constructor(stdin?: In, stdout?: Out) {
    super();
    this.stdin = stdin ?? (new PassThrough() as Writable as In);
    this.stdout = stdout ?? (new PassThrough() as Readable as Out);
    this.stdout.setEncoding('utf8');
    this.stdout.on('data', this.splitter());
  }

  send(message: unknown): void {
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }
}
