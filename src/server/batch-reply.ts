/**
 * The answers to one JSON-RPC batch (legacy sessions of revisions that have
 * batches: `acceptsBatches`), written as one array once every request in it
 * is done, as JSON-RPC 2.0 asks of a server. A batch with no answer (only
 * notifications and responses, or every request cancelled) is answered with
 * nothing at all, never an empty array.
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

  constructor(private readonly write: (json: string, after: number) => void) {}

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
    if (this.answers.length > 0) this.write(`[${this.answers.join(',')}]`, this.after);
  }
}
