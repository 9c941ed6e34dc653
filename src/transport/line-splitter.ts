/**
 * Newline framing for byte streams (stdio, sockets): turns chunks into lines
 * without trusting the peer to keep them short.
 *
 * Works on bytes and decodes only complete lines, so a multi-byte UTF-8
 * character split across chunks arrives whole. A trailing `\r` is dropped
 * (CRLF peers) and empty lines are skipped. A line that grows past
 * `maxLineBytes` is never buffered: the splitter drops everything up to the
 * next newline and then reports it once through `oversized`, with its first
 * and last bytes (a response names its id at one end or the other).
 *
 * The limit counts UTF-8 bytes, which bounds memory; for ASCII text that is
 * the same as the character limit `parseFrame` applies.
 */

export interface LineSink {
  /** One complete line, without its line ending. */
  line(text: string): void;
  /** A line passed the limit and was dropped; `head` and `tail` are its first and last bytes, decoded. */
  oversized(head: string, tail: string, maxLineBytes: number): void;
}

const LF = 0x0a;
const CR = 0x0d;
const HEAD_BYTES = 200;
const TAIL_BYTES = 200;

export class LineSplitter {
  /** Pieces of the current unterminated line, oldest first. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while dropping the rest of an oversized line. */
  private discarding = false;
  /** The first bytes of the line being dropped, and its last bytes so far. */
  private droppedHead = '';
  private droppedTail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      if (this.discarding) {
        this.dropped(chunk.subarray(start, newline));
        this.reportDropped();
      } else if (this.pendingBytes === 0) {
        this.emit(chunk, start, newline);
      } else {
        this.completePending(chunk.subarray(start, newline));
      }
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start >= chunk.length) return;
    if (this.discarding) this.dropped(chunk.subarray(start));
    else this.keep(chunk.subarray(start));
  }

  /** The stream ended: a last line without a newline is still a line (or a dropped one, reported). */
  end(): void {
    if (this.pendingBytes > 0) this.completePending(Buffer.alloc(0));
    if (this.discarding) this.reportDropped();
  }

  /** Emits bytes [start, end) of one buffer as a line: the common case, no copying. */
  private emit(buffer: Buffer, start: number, end: number): void {
    let stop = end;
    if (stop > start && buffer[stop - 1] === CR) stop -= 1;
    if (stop === start) return;
    if (stop - start > this.maxLineBytes) {
      const head = buffer.toString('utf8', start, Math.min(stop, start + HEAD_BYTES));
      this.sink.oversized(head, buffer.toString('utf8', Math.max(start, stop - TAIL_BYTES), stop), this.maxLineBytes);
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
      this.droppedHead = this.headOf(rest);
      this.droppedTail = Buffer.alloc(0);
      // The tail so far: as many of the last pieces as make TAIL_BYTES.
      const pieces = [...this.pending, rest];
      let first = pieces.length;
      for (let bytes = 0; first > 0 && bytes <= TAIL_BYTES; ) bytes += pieces[--first]!.length;
      for (const piece of pieces.slice(first)) this.dropped(piece);
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  /** More bytes of the line being dropped: only its last TAIL_BYTES are kept, and one more for a CR that may end it. */
  private dropped(piece: Buffer): void {
    const keep = TAIL_BYTES + 1;
    const joined = piece.length >= keep ? piece : Buffer.concat([this.droppedTail, piece]);
    this.droppedTail = Buffer.from(joined.subarray(Math.max(0, joined.length - keep)));
  }

  /** The dropped line ended: reported once, without a CR that ended it. */
  private reportDropped(): void {
    let tail = this.droppedTail;
    if (tail.at(-1) === CR) tail = tail.subarray(0, -1);
    tail = tail.subarray(Math.max(0, tail.length - TAIL_BYTES));
    // Cut at a byte boundary, the tail may start inside a character: its replacement character is harmless here.
    this.sink.oversized(this.droppedHead, tail.toString('utf8'), this.maxLineBytes);
    this.discarding = false;
    this.droppedHead = '';
    this.droppedTail = Buffer.alloc(0);
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
