/**
 * The answers to one JSON-RPC batch (legacy sessions of revisions that have
 * batches: `acceptsBatches`), over stdio and legacy HTTP alike, written as one
 * array once every request in it is done, as JSON-RPC 2.0 asks of a server. A
 * batch with no answer (only notifications and responses, or every request
 * cancelled) is never answered with an empty array: its writer is told there
 * is none (stdio then writes nothing, HTTP answers 202).
 */

/** Where one request's answer goes: the connection's outbox, or the batch it came in. */
export interface AnswerSink {
  /** A response or error, written after the request's own notification number `after`. */
  answer(json: string, after?: number): void;
  /** A batch answers once the requests it was handed are served; the outbox writes each answer as it comes. */
  track?(served: Promise<void>): void;
}

export class BatchReply implements AnswerSink {
  private readonly answers: string[] = [];
  /** The latest notification any answered request sent: the array goes after all of them. */
  private after = 0;
  private pending = 0;
  private sealed = false;

  /** `write` is called once: with the array, or with undefined when no element was answered. */
  constructor(private readonly write: (json: string | undefined, after: number) => void) {}

  answer(json: string, after = 0): void {
    this.answers.push(json);
    this.after = Math.max(this.after, after);
  }

  /** A request of the batch being served; the batch is answered once every tracked one settled. */
  track(served: Promise<void>): void {
    this.pending++;
    void served.finally(() => {
      this.pending--;
      this.flushWhenDone();
    });
  }

  /** Every element was read: the batch is answered once its requests are done (at once if none is pending). */
  seal(): void {
    this.sealed = true;
    this.flushWhenDone();
  }

  private flushWhenDone(): void {
    // After seal() nothing more is tracked, so this passes once.
    if (!this.sealed || this.pending > 0) return;
    this.write(this.answers.length > 0 ? `[${this.answers.join(',')}]` : undefined, this.after);
  }
}
