/**
 * Requests waiting for their response: correlation by id, the per-request
 * timeout and AbortSignal cancellation. A request settles exactly once; a
 * response for an id that is not pending is reported, never guessed at.
 */
import { RequestAbortedError, RequestTimeoutError, RpcError } from '../protocol/errors.ts';
import { isFailure, type JsonObject, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.ts';

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Restarts the timeout (`extend`); undefined when the request has none. */
  restart: (() => void) | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export interface TrackOptions {
  timeoutMs: number;
  /** However often `extend` restarts the timeout, the request gives up this long after it was sent. */
  maxTotalTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called when the caller gave up (abort or timeout), so the peer can be told. */
  onGiveUp(id: RequestId, reason: Error): void;
}

export class PendingRequests {
  readonly #pending = new Map<RequestId, Pending>();
  #nextId = 0;

  nextId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  /** Registers a request before it is sent; the promise settles on response, timeout, abort or failure. */
  track(id: RequestId, method: string, options: TrackOptions): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined, restart: undefined, signal: options.signal, onAbort: undefined };
      const giveUp = (reason: Error) => {
        if (this.#settle(id)) {
          options.onGiveUp(id, reason);
          reject(reason);
        }
      };
      const { timeoutMs, maxTotalTimeoutMs = Infinity } = options;
      if (Number.isFinite(timeoutMs)) {
        const deadline = Date.now() + maxTotalTimeoutMs;
        entry.restart = () => {
          clearTimeout(entry.timer);
          const left = deadline - Date.now();
          // The total bound is the nearer one: it ends the request as a timeout of its own length.
          entry.timer =
            left <= timeoutMs
              ? setTimeout(() => giveUp(new RequestTimeoutError(method, maxTotalTimeoutMs)), Math.max(left, 0))
              : setTimeout(() => giveUp(new RequestTimeoutError(method, timeoutMs)), timeoutMs);
        };
        entry.restart();
      }
      if (options.signal) {
        entry.onAbort = () => giveUp(new RequestAbortedError(method, { cause: options.signal?.reason }));
        options.signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.#pending.set(id, entry);
    });
  }

  /** Restarts a pending request's timeout (its server reported progress), within its `maxTotalTimeoutMs`. */
  extend(id: RequestId): void {
    this.#pending.get(id)?.restart?.();
  }

  /** Settles the request a response answers. Returns false when no request with that id is pending. */
  resolve(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    const entry = this.#pending.get(response.id);
    if (!entry || !this.#settle(response.id)) return false;
    if (isFailure(response)) entry.reject(RpcError.of(response.error, entry.method));
    else entry.resolve(response.result);
    return true;
  }

  /** Fails one pending request (a send that could not be delivered, a stream that ended). */
  fail(id: RequestId, error: Error): boolean {
    const entry = this.#pending.get(id);
    if (!entry || !this.#settle(id)) return false;
    entry.reject(error);
    return true;
  }

  /** Fails every pending request, e.g. when the transport is lost. */
  failAll(makeError: (method: string) => Error): void {
    for (const [id, entry] of [...this.#pending]) {
      if (this.#settle(id)) entry.reject(makeError(entry.method));
    }
  }

  #settle(id: RequestId): boolean {
    const entry = this.#pending.get(id);
    if (!entry) return false;
    this.#pending.delete(id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort);
    return true;
  }
}
