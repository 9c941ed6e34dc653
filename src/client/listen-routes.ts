/**
 * Listen streams on the wire, for the connection: sending
 * `subscriptions/listen` under a stream's id, cancelling it the way the
 * transport allows (stdio: `notifications/cancelled`; HTTP: aborting the
 * response stream), taking the listen's answer, and reporting a stream that
 * ended with no answer (what that means is the connection machine's verdict).
 */
import { HttpStatusError, RpcError, type StreamEndedError } from '../protocol/errors.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import { isFailure, type JsonObject, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.ts';
import type { ClientTransport } from '../transport/transport.ts';
import type { ListenHandle, ListenHandlers } from './ports.ts';

/** What the routes need of the connection they belong to. */
export interface ListenWireAccess {
  /** The current attempt's transport while the connection is ready, else undefined. */
  readyTransport(): ClientTransport | undefined;
  /** The current attempt's transport, ready or not. */
  transport(): ClientTransport | undefined;
  /** The connection's one outbound path, on `transport`: it applies the era's envelope and headers. */
  send(message: JsonRpcMessage, transport: ClientTransport): Promise<void>;
  report(error: Error): void;
  notConnected(): Error;
  /**
   * Reports a stream's unanswered end to the connection machine, whose
   * verdict is `endedAlone` for this stream or a lost transport (a reconnect
   * pauses every stream).
   */
  endedUnanswered(id: RequestId, cause: unknown): void;
}

export class ListenRoutes {
  /** Streams that ended unanswered, until the machine's verdict (or the transport's end) settles them. */
  readonly #awaitingVerdict = new Map<RequestId, ListenHandlers>();

  constructor(
    /** The router's table: subscription id → the stream's handlers. */
    private readonly streams: Map<RequestId, ListenHandlers>,
    private readonly access: ListenWireAccess,
  ) {}

  open(id: RequestId, filter: NotificationFilter, handlers: ListenHandlers): ListenHandle {
    this.streams.set(id, handlers);
    const transport = this.access.readyTransport();
    const handle = new RouteHandle(this, id, handlers, transport);
    if (!transport) {
      queueMicrotask(() => handle.open && handlers.ended(this.access.notConnected()));
      return handle;
    }
    const listen: JsonRpcMessage = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter as JsonObject } };
    this.access.send(listen, transport).catch((error: unknown) => {
      if (!handle.open) return;
      if (!(error instanceof HttpStatusError)) return this.#endedUnanswered(id, handlers, error);
      // The server answered the listen with an HTTP error: it refused the stream.
      handle.release();
      handlers.error(error.rpcError ? RpcError.of(error.rpcError, 'subscriptions/listen') : error);
    });
    return handle;
  }

  /** Drops a stream's route, if it is still that stream's. */
  drop(id: RequestId, handlers: ListenHandlers): void {
    if (this.streams.get(id) === handlers) this.streams.delete(id);
  }

  /** Cancels a listen on the transport it was sent on, if that is still the connection's: stdio tells the peer, HTTP aborts the response stream. */
  cancelOnWire(id: RequestId, transport: ClientTransport): void {
    if (this.access.transport() !== transport || transport.abortRequest(id)) return;
    const cancel: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'client closed the stream' } };
    this.access.send(cancel, transport).catch((error: unknown) => this.access.report(error as Error));
  }

  /** Takes a response that answers a listen; false when no stream has its id. */
  answer(response: JsonRpcResponse): boolean {
    const stream = response.id === null ? undefined : this.streams.get(response.id);
    if (!stream) return false;
    this.streams.delete(response.id!);
    if (isFailure(response)) stream.error(RpcError.of(response.error, 'subscriptions/listen'));
    else stream.result(response.result);
    return true;
  }

  /** A listen's own response stream ended with no answer; false when no stream has that id. */
  streamEnded(id: RequestId, error: StreamEndedError): boolean {
    const stream = this.streams.get(id);
    if (!stream) return false;
    this.#endedUnanswered(id, stream, error);
    return true;
  }

  /** A keep-alive arrived on a stream's response: handed to the stream, if one has that id. */
  keepAlive(id: RequestId): void {
    this.streams.get(id)?.keepAlive();
  }

  /** The machine's verdict: the stream ended alone (the server dropped it, not the transport). */
  endedAlone(id: RequestId, cause: unknown): void {
    const stream = this.#awaitingVerdict.get(id);
    if (!stream) return;
    this.#awaitingVerdict.delete(id);
    stream.ended(cause);
  }

  /** The transport is gone: streams awaiting a verdict pause with the rest, on the connection's loss. */
  forgetUnanswered(): void {
    this.#awaitingVerdict.clear();
  }

  #endedUnanswered(id: RequestId, stream: ListenHandlers, cause: unknown): void {
    if (this.streams.get(id) === stream) this.streams.delete(id);
    this.#awaitingVerdict.set(id, stream);
    this.access.endedUnanswered(id, cause);
  }
}

/** One open stream's hold on its route (a class, not closures: one per open stream). */
class RouteHandle implements ListenHandle {
  open = true;

  constructor(
    private readonly routes: ListenRoutes,
    private readonly id: RequestId,
    private readonly handlers: ListenHandlers,
    /** The transport the listen went out on; undefined when it could not be sent. */
    private readonly transport: ClientTransport | undefined,
  ) {}

  release(): void {
    if (this.open) this.routes.drop(this.id, this.handlers);
    this.open = false;
  }

  cancel(): void {
    if (!this.open) return;
    this.release();
    if (this.transport) this.routes.cancelOnWire(this.id, this.transport);
  }
}
