/**
 * Messages a test receives from a live stream (the inspector's feed, the
 * Stately relay), and a way to wait until they show something: each arrival
 * re-checks the waiting conditions, so tests wait for content, not time.
 */
export class ReceivedMessages<T> {
  /** Every message so far, in arrival order. */
  readonly seen: T[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(private readonly source: string) {}

  /** Records one message and wakes the waiters. */
  push(message: T): void {
    this.seen.push(message);
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Resolves once `check` holds for the messages so far; rejects, naming `what`, after 15 s without it. */
  until(check: (messages: T[]) => boolean, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.source} never showed ${what}`)), 15_000);
      const waiter = () => {
        if (!check(this.seen)) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve();
      };
      this.#waiters.add(waiter);
      waiter();
    });
  }
}
