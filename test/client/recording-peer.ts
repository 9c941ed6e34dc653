import { AnnouncingOwner } from './announcing-owner.ts';
/**
 * An honest in-test legacy peer behind a RequestPort: it records every
 * `resources/subscribe` / `resources/unsubscribe`, keeps the server-side
 * subscription set of the current session, and lets the test decide when each
 * request completes and which URIs refuse to be subscribed. A dropped
 * connection fails pending requests and ends the session (a real server's
 * subscriptions die with its session); requests while down fail fast, as the
 * real client's do.
 */
import { ConnectionLostError, NotConnectedError, RpcError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import type { Era } from '../../src/protocol/versions.ts';
import type { RequestPort } from '../../src/client/ports.ts';

export interface RecordedRequest {
  method: string;
  uri: string;
  session: number;
}

interface Pending extends RecordedRequest {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
}

export class RecordingPeer extends AnnouncingOwner implements RequestPort {
  era: Era | undefined = 'legacy';
  readonly serverCapabilities: JsonObject | undefined = { resources: { subscribe: true } };
  /** Every request sent, in order, across sessions. */
  readonly sent: RecordedRequest[] = [];
  /** The server's subscriptions in the current session. */
  readonly subscriptions = new Set<string>();
  /** URIs whose `resources/subscribe` the server answers with an error. */
  readonly failing = new Set<string>();
  /** With `true`, requests complete on their own in a microtask. */
  autoComplete: boolean;
  /** Called synchronously whenever a request is sent; a test may inspect the state at that instant. */
  onSend: ((request: RecordedRequest) => void) | undefined;
  connected = true;
  session = 1;
  readonly #pending: Pending[] = [];
  #waiters: (() => void)[] = [];

  constructor({ autoComplete = true }: { autoComplete?: boolean } = {}) {
    super();
    this.autoComplete = autoComplete;
  }

  request(method: string, params?: JsonObject): Promise<JsonObject> {
    if (!this.connected) return Promise.reject(new NotConnectedError('reconnecting', method));
    const uri = String(params?.uri);
    const record: RecordedRequest = { method, uri, session: this.session };
    this.sent.push(record);
    this.onSend?.(record);
    return new Promise<JsonObject>((resolve, reject) => {
      this.#pending.push({ ...record, resolve, reject });
      for (const wake of this.#waiters.splice(0)) wake();
      if (this.autoComplete) queueMicrotask(() => this.completeNext());
    });
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Resolves once at least `count` requests are waiting for completion. */
  async waitForPending(count = 1): Promise<void> {
    while (this.#pending.length < count) await new Promise<void>((wake) => this.#waiters.push(wake));
  }

  /** The server processes the oldest pending request and answers it. */
  completeNext(): void {
    const request = this.#pending.shift();
    if (!request) return;
    if (request.method === 'resources/subscribe') {
      if (this.failing.has(request.uri)) {
        request.reject(new RpcError({ code: -32602, message: `cannot subscribe ${request.uri}` }, request.method));
        return;
      }
      this.subscriptions.add(request.uri);
    } else if (request.method === 'resources/unsubscribe') {
      this.subscriptions.delete(request.uri);
    }
    request.resolve({});
  }

  /** The transport dropped: pending requests fail and the server session ends. */
  drop(): void {
    this.connected = false;
    this.subscriptions.clear();
    for (const request of this.#pending.splice(0)) request.reject(new ConnectionLostError(request.method));
  }

  /** A new session with an empty subscription set. */
  reconnect(era: Era = 'legacy'): void {
    this.connected = true;
    this.era = era;
    this.session += 1;
  }

  log(): string[] {
    return this.sent.map((r) => `${r.method === 'resources/subscribe' ? 'sub' : 'unsub'} ${r.uri}`);
  }
}
