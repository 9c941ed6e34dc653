/**
 * The HTTP transport's open fetches: every POST awaiting or streaming its
 * response, and the legacy GET stream, each with the AbortController that
 * ends it. A request's fetch is found by its id (a cancel aborts it), there
 * is at most one GET stream, and closing the transport aborts them all.
 */
import type { RequestId } from '../protocol/jsonrpc.ts';

/** The open fetches of one HTTP transport, by controller, by request id, and the GET stream. */
export class OpenFetches {
  /** Every open fetch, with the id of the request it carries (none for notifications, answers and the GET stream). */
  readonly #open = new Map<AbortController, RequestId | undefined>();
  readonly #byRequest = new Map<RequestId, AbortController>();
  #getStream: AbortController | undefined;

  /** A controller for a new fetch; one carrying request `id` is what `abortRequest(id)` aborts. */
  start(id?: RequestId): AbortController {
    const controller = new AbortController();
    this.#open.set(controller, id);
    if (id !== undefined) this.#byRequest.set(id, controller);
    return controller;
  }

  /** A controller for the GET stream, or undefined while one is open. */
  startGetStream(): AbortController | undefined {
    if (this.#getStream !== undefined) return undefined;
    this.#getStream = this.start();
    return this.#getStream;
  }

  /** Forgets a fetch that ended (its response read, refused or failed); it is no longer aborted by anything. */
  end(controller: AbortController): void {
    const id = this.#open.get(controller);
    this.#open.delete(controller);
    if (id !== undefined && this.#byRequest.get(id) === controller) this.#byRequest.delete(id);
    if (this.#getStream === controller) this.#getStream = undefined;
  }

  /** Aborts the fetch of request `id`; false when none is open. */
  abortRequest(id: RequestId): boolean {
    const controller = this.#byRequest.get(id);
    if (controller === undefined) return false;
    this.end(controller);
    controller.abort();
    return true;
  }

  /** Aborts every open fetch. */
  abortAll(): void {
    const open = [...this.#open.keys()];
    this.#open.clear();
    this.#byRequest.clear();
    this.#getStream = undefined;
    for (const controller of open) controller.abort();
  }
}
