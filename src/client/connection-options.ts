/**
 * A connection's options and what it tells its watchers (lifecycle facts and
 * non-fatal errors, delivered so that one throwing watcher costs the others
 * nothing).
 */
import { asError } from '../../machines/errors.ts';
import type { Backoff, ConnectionEmitted, FirstConnectPolicy } from '../../machines/connection.machine.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { EraPreference, Implementation } from '../protocol/versions.ts';
import type { Clock, Inspector } from '../runtime/actor-options.ts';
import type { TransportFactory } from '../transport/transport.ts';

/** Documented default for every request except `subscriptions/listen`, which has no deadline. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** What a connection is made with; the client's options are these less the test seams (`clock`, `random`). */
export interface ConnectionOptions {
  transport: TransportFactory;
  era?: EraPreference;
  clientInfo?: Implementation;
  capabilities?: JsonObject;
  /** Every request's deadline unless it gives its own (default 30 s); also how long a negotiation step waits for an answer (at least `probeTimeoutMs`). */
  requestTimeoutMs?: number;
  /**
   * How long a first `server/discover` probe on stdio waits alone before `initialize` goes out beside it
   * (default 2 s). The probe's answer still counts after it; over HTTP and with `era: 'modern'` it does not apply.
   */
  probeTimeoutMs?: number;
  /**
   * Legacy server requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) answered at once
   * (default 256, DEFAULT_MAX_SERVER_REQUESTS_IN_FLIGHT); past it one is refused with -32000
   * (`data.limit = 'maxServerRequestsInFlight'`) without running its handler, and reported (ServerRequestRefusedError).
   */
  maxServerRequestsInFlight?: number;
  /** `false` disables reconnection; otherwise overrides parts of DEFAULT_BACKOFF. */
  reconnect?: Partial<Backoff> | false;
  /**
   * A first connect that fails: `fail` (default) rejects `connect()` at once; `retry` retries it with the
   * `reconnect` backoff (emitting `connection.reconnecting`) and rejects only when those attempts are spent.
   */
  firstConnect?: FirstConnectPolicy;
  /** Passed to every actor the client creates (e.g. a `@statelyai/inspect` inspector's `inspect`). */
  inspect?: Inspector;
  /** A test seam (`mcp-actors/testing`): drives the reconnect backoff, the probe timeout and every stream's delays. */
  clock?: Clock;
  /** A test seam (`mcp-actors/testing`): the backoff's jitter source. */
  random?: () => number;
}

/** Trouble that does not end the connection: a refused frame, an unmatched response, a throwing handler. */
export type ConnectionProblem = { type: 'error'; error: Error };

/** What the connection tells whoever watches it (`client.on`). */
export type ConnectionNotice = ConnectionEmitted | ConnectionProblem;

/** The watchers of one connection. */
export class ConnectionNotices {
  readonly #listeners = new Set<(notice: ConnectionNotice) => void>();

  /** Adds a watcher; returns its removal. */
  add(listener: (notice: ConnectionNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A watcher that throws is reported to the others (as an error notice) and never stops delivery or the actor. */
  notify(notice: ConnectionNotice): void {
    for (const listener of this.#listeners) {
      try {
        listener(notice);
      } catch (error) {
        if (notice.type !== 'error') this.notify({ type: 'error', error: asError(error) });
      }
    }
  }
}
