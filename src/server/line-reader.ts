/**
 * Splits a byte stream into newline-delimited frames without ever holding
 * more than `maxBytes` of one frame: a longer line is skipped up to its
 * newline and reported once as oversized, with its first and last
 * characters (a request names its id at one end or the other).
 */
export type LineEvent = { type: 'line'; text: string } | { type: 'oversized'; length: number; head: string; tail: string };

/** How much of each end of a skipped line is kept. */
const END_CHARS = 200;

export class LineReader {
  private partial = '';
  private skipping = false;
  private skipped = 0;
  private head = '';
  private tail = '';

  constructor(private readonly maxBytes: number, private readonly emit: (event: LineEvent) => void) {}

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf('\n', start);
      if (newline === -1) break;
      const piece = chunk.slice(start, newline);
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        this.keepTail(piece);
        this.emit({ type: 'oversized', length: this.skipped + piece.length, head: this.head, tail: this.tail });
        this.skipped = 0;
        continue;
      }
      const text = this.partial + piece;
      this.partial = '';
      if (text.length > this.maxBytes) this.emit({ type: 'oversized', length: text.length, head: text.slice(0, END_CHARS), tail: text.slice(-END_CHARS) });
      else this.emit({ type: 'line', text });
    }
    const rest = chunk.slice(start);
    if (this.skipping) {
      this.skipped += rest.length;
      this.keepTail(rest);
    } else if (this.partial.length + rest.length > this.maxBytes) {
      this.skipping = true;
      this.skipped = this.partial.length + rest.length;
      this.head = (this.partial.slice(0, END_CHARS) + rest.slice(0, END_CHARS)).slice(0, END_CHARS);
      this.tail = (this.partial.slice(-END_CHARS) + rest).slice(-END_CHARS);
      this.partial = '';
    } else {
      this.partial += rest;
    }
  }

  /** More of the line being skipped: its last END_CHARS characters so far. */
  private keepTail(piece: string): void {
    this.tail = piece.length >= END_CHARS ? piece.slice(-END_CHARS) : (this.tail + piece).slice(-END_CHARS);
  }
}
