/**
 * The requests a server is answering, over every transport, so that `close()` lets them finish: a rolling deploy
 * that stops a node should not cut the tool calls it is in the middle of. Each exchange is tracked from its
 * admission until its answer was handed to the transport, or until its signal aborted (the client cancelled it or
 * left: no answer will be sent, so there is nothing to wait for, whether or not its handler heeds the signal). On
 * close the server admits no more (ServerClosingError, HTTP 503 with Retry-After) and waits for the running ones up
 * to `drainTimeoutMs`; those still running then have their signals aborted, and the transports' close cuts whatever
 * they did not answer.
 */
import { ServerClosingError } from './errors.ts';
import { settledWithin } from './settled-within.ts';

const settle = (): void => undefined;

export class RunningRequests {
  /** Each running exchange's settling, with the controller whose signal its handler sees. */
  readonly #running = new Map<Promise<void>, AbortController>();

  /** How many are running. */
  get size(): number {
    return this.#running.size;
  }

  /** Runs one admitted exchange (its answer written at the end) as one `drain` waits for. */
  track<T>(controller: AbortController, exchange: Promise<T>): Promise<T> {
    const { signal } = controller;
    let onAbort = settle;
    const abandoned = new Promise<void>((resolve) => (onAbort = () => resolve()));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const settled = Promise.race([exchange.then(settle, settle), abandoned]);
    this.#running.set(settled, controller);
    void settled.then(() => {
      signal.removeEventListener('abort', onAbort);
      this.#running.delete(settled);
    });
    return exchange;
  }

  /**
   * Resolves once every exchange running now has settled, or after `timeoutMs`, when those still running are
   * aborted (their handlers' signals, with a ServerClosingError as the reason). Resolves to how many were.
   */
  async drain(timeoutMs: number): Promise<number> {
    if (this.#running.size === 0) return 0;
    if (await settledWithin(Promise.all(this.#running.keys()), timeoutMs)) return 0;
    const late = [...this.#running.values()];
    const reason = new ServerClosingError(`Server is shutting down: the request ran past drainTimeoutMs (${timeoutMs} ms)`);
    for (const controller of late) controller.abort(reason);
    return late.length;
  }
}
