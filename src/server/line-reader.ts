/**
 * Splits a byte stream into newline-delimited frames without ever holding
 * more than `maxBytes` of one frame: a longer line is skipped up to its
 * newline and reported once as oversized.
 */
export type LineEvent = { type: 'line'; text: string } | { type: 'oversized'; length: number };

export class LineReader {
  private partial = '';
  private skipping = false;
  private skipped = 0;

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
        this.emit({ type: 'oversized', length: this.skipped + piece.length });
        this.skipped = 0;
        continue;
      }
      const text = this.partial + piece;
      this.partial = '';
      if (text.length > this.maxBytes) this.emit({ type: 'oversized', length: text.length });
      else this.emit({ type: 'line', text });
    }
    const rest = chunk.slice(start);
    if (this.skipping) {
      this.skipped += rest.length;
    } else if (this.partial.length + rest.length > this.maxBytes) {
      this.skipping = true;
      this.skipped = this.partial.length + rest.length;
      this.partial = '';
    } else {
      this.partial += rest;
    }
  }
}
