/**
 * Reads a stdio connection's input and holds it back while the output is
 * under pressure. Holding does not stop reading at once: up to `holdBytes`
 * more are read and kept (not parsed), because a stream reports its end only
 * after it was read to the end, so a client closing its input while the
 * server waits for it to drain is still noticed. Past `holdBytes` the input
 * is paused for real; a client that sent that much and then closed its input
 * is noticed once output drains, or when writing to it fails.
 */
import type { Readable } from 'node:stream';

export class InputGate {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private holding = false;
  private stopped = false;
  private readonly onData = (data: Buffer | string): void => {
    // A stream set to an encoding (or one made from strings) hands over text: lines are split as bytes.
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (!this.holding) return this.deliver(chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes >= this.holdBytes) this.input.pause();
  };

  constructor(
    private readonly input: Readable,
    private readonly holdBytes: number,
    private readonly deliver: (chunk: Buffer) => void,
  ) {
    input.on('data', this.onData);
  }

  /** Whether input read is kept back, not yet passed on. */
  get holdsInput(): boolean {
    return this.held.length > 0;
  }

  /** Stops passing input on; what arrives meanwhile is kept, up to `holdBytes`. */
  hold(): void {
    this.holding = true;
  }

  /** Passes the kept input on, in order, until told to hold again; then reads on. */
  release(): void {
    if (!this.holding || this.stopped) return;
    this.holding = false;
    while (this.held.length > 0 && !this.holding && !this.stopped) {
      const chunk = this.held.shift()!;
      this.heldBytes -= chunk.length;
      this.deliver(chunk);
    }
    if (!this.stopped && this.heldBytes < this.holdBytes) this.input.resume();
  }

  /** Drops whatever is kept and stops reading for good. */
  stop(): void {
    this.stopped = true;
    this.held = [];
    this.heldBytes = 0;
    this.input.off('data', this.onData);
    this.input.pause();
  }
}
