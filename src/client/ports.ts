/**
 * The seams between the client connection and the actors that build on it
 * (listen streams, legacy listeners, the cache). The connection implements
 * these; the actors' I/O bridges in src/ call them. Nothing here is public API.
 */
import type { AnyActorRef } from 'xstate';
import type { RelistenPolicy } from '../../machines/subscription.machine.ts';
import type { FilterError, NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { HttpStatusError, RpcError } from '../protocol/errors.ts';
import type { RequestMeta } from '../protocol/request-meta.ts';
import type { Era } from '../protocol/versions.ts';

export type { ConnectionLifecycleEvent } from '../../machines/connection.machine.ts';

/**
 * The connection actor as the actors built on it see it: it adopts each as
 * its child when it starts and releases it when it ends, and in between the
 * connection machine sends it every lifecycle event (machines/connection-children.ts).
 */
export interface ChildOwner {
  /** The connection actor: a child's parent in inspection events; undefined for an owner that is no actor (unit tests). */
  readonly parent: AnyActorRef | undefined;
  /** Registers `child` under `systemId` (`URI_WORKER_ID`, or `memberId(id)` for a stream or a listener). */
  adopt(child: AnyActorRef, systemId: string): void;
  release(child: AnyActorRef): void;
}

/** Options of one request: cancellation, timeout, progress and `_meta`. */
export interface RequestOptions {
  /** Aborting it cancels the request (`notifications/cancelled`) and rejects with RequestAbortedError. */
  signal?: AbortSignal;
  /** Overrides the client's default request timeout; `Infinity` disables it. */
  timeoutMs?: number;
  /** Called with each `notifications/progress` params of this request (a progress token is sent when this is given). */
  onProgress?: (progress: JsonObject) => void;
  /**
   * Each progress notification of this request restarts its timeout, for work that takes long but reports as it
   * goes (a progress token is sent). Default false.
   */
  resetTimeoutOnProgress?: boolean;
  /** With `resetTimeoutOnProgress`: the request gives up this long after it was sent, whatever its progress. */
  maxTotalTimeoutMs?: number;
  /**
   * Keys added to the request's `_meta`, in both eras: OpenTelemetry's trace context (`traceparent`, `tracestate`,
   * `baggage`), a vendor's own prefixed keys, or `io.modelcontextprotocol/logLevel` (2026-07-28: the server sends
   * this request's log messages at or above it, and none without it). Keys the client writes itself (its envelope,
   * `progressToken`: use `onProgress`) and keys the spec's format does not allow reject with
   * InvalidRequestMetaError before anything is sent.
   */
  meta?: RequestMeta;
}

/** Sends requests on the current connection; fails fast with NotConnectedError when it is not ready. */
export interface RequestPort {
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  readonly era: Era | undefined;
  readonly serverCapabilities: JsonObject | undefined;
}

/** What the peer sends for one `subscriptions/listen` stream. */
export interface ListenHandlers {
  acknowledged(honored: NotificationFilter): void;
  /** An acknowledgment whose honored filter is malformed (the filter is untrusted input too). */
  malformedAcknowledgment(error: FilterError): void;
  /** A notification tagged with this stream's id (not the acknowledgment). */
  notification(method: string, params: JsonObject): void;
  /** The server answered the listen request: a graceful end. */
  result(result: JsonObject): void;
  /** The server answered with an error (a JSON-RPC error, or an HTTP status with none). */
  error(error: RpcError | HttpStatusError): void;
  /** The server sent `notifications/cancelled` for the listen request. */
  cancelled(reason: string | undefined): void;
  /** The stream ended with no answer (an HTTP response stream closed, the transport dropped). */
  ended(cause: unknown): void;
  /** A keep-alive comment arrived on the stream's response (HTTP). */
  keepAlive(): void;
}

export interface ListenHandle {
  /** Cancels on the wire (stdio: `notifications/cancelled`; HTTP: aborts the response stream) and drops the route. Idempotent. */
  cancel(): void;
  /** Drops the route without telling the peer (the stream is already over). Idempotent. */
  release(): void;
}

export interface ListenPort extends RequestPort {
  /**
   * Sends `subscriptions/listen` under `id` (no request timeout applies) and
   * routes everything the peer sends for that id to `handlers`, ahead of any
   * fallback notification handler.
   */
  openListen(id: RequestId, filter: NotificationFilter, handlers: ListenHandlers): ListenHandle;
  /** A fresh id for a new stream; a reopened stream keeps its first id. */
  nextRequestId(): RequestId;
  /** How a stream the server ended unanswered listens again: the connection's reconnect backoff, or `false` while reconnection is off. */
  readonly relisten: RelistenPolicy | false;
}
