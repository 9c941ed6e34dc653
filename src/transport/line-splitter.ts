/**
 * Newline framing for byte streams (stdio, sockets): turns chunks into lines
 * without trusting the peer to keep them short.
 *
 * Works on bytes and decodes only complete lines, so a multi-byte UTF-8
 * character split across chunks arrives whole. A trailing `\r` is dropped
 * (CRLF peers) and empty lines are skipped. A line that grows past
 * `maxLineBytes` is never buffered: the splitter reports it once through
 * `oversized` and drops everything up to the next newline.
 *
 * The limit counts UTF-8 bytes, which bounds memory; for ASCII text that is
 * the same as the character limit `parseFrame` applies.
 */

export interface LineSink {
  /** One complete line, without its line ending. */
  line(text: string): void;
  /** A line passed the limit; `head` is its first bytes, decoded, for error reports. */
  oversized(head: string, maxLineBytes: number): void;
}

const LF = 0x0a;
const CR = 0x0d;
const HEAD_BYTES = 200;

export class LineSplitter {
  /** Pieces of the current unterminated line, oldest first. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while dropping the rest of an oversized line. */
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingBytes === 0) {
        this.emit(chunk, start, newline);
      } else {
        this.completePending(chunk.subarray(start, newline));
      }
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length && !this.discarding) this.keep(chunk.subarray(start));
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    if (this.pendingBytes > 0) this.completePending(Buffer.alloc(0));
    this.discarding = false;
  }

  /** Emits bytes [start, end) of one buffer as a line: the common case, no copying. */
  private emit(buffer: Buffer, start: number, end: number): void {
    let stop = end;
    if (stop > start && buffer[stop - 1] === CR) stop -= 1;
    if (stop === start) return;
    if (stop - start > this.maxLineBytes) {
      this.sink.oversized(buffer.toString('utf8', start, Math.min(stop, start + HEAD_BYTES)), this.maxLineBytes);
      return;
    }
    this.sink.line(buffer.toString('utf8', start, stop));
  }

  private completePending(last: Buffer): void {
    const pieces = this.pending;
    const total = this.pendingBytes + last.length;
    this.pending = [];
    this.pendingBytes = 0;
    pieces.push(last);
    const whole = Buffer.concat(pieces, total);
    this.emit(whole, 0, whole.length);
  }

  private keep(rest: Buffer): void {
    // +1 leaves room for a CR that the next chunk may show to be a CRLF.
    if (this.pendingBytes + rest.length > this.maxLineBytes + 1) {
      const head = this.headOf(rest);
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.sink.oversized(head, this.maxLineBytes);
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  /** The first bytes of the line being dropped, without copying all of it. */
  private headOf(rest: Buffer): string {
    const pieces: Buffer[] = [];
    let bytes = 0;
    for (const piece of [...this.pending, rest]) {
      if (bytes >= HEAD_BYTES) break;
      pieces.push(piece);
      bytes += piece.length;
    }
    return Buffer.concat(pieces).toString('utf8', 0, Math.min(bytes, HEAD_BYTES));
  }
}
