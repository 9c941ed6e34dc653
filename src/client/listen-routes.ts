/**
 * Listen streams on the wire, for the connection: sending
 * `subscriptions/listen` under a stream's id, cancelling it the way the
 * transport allows (stdio: `notifications/cancelled`; HTTP: aborting the
 * response stream), taking the listen's answer, and deciding what a stream
 * that ended with no answer means.
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
  withEnvelope(params: JsonObject): JsonObject;
  send(message: JsonRpcMessage): Promise<void>;
  report(error: Error): void;
  notConnected(): Error;
  /**
   * Whether the peer still answers a request; when it does not, the
   * connection treats its transport as lost (a reconnect pauses every stream).
   */
  peerAnswers(): Promise<boolean>;
}

export class ListenRoutes {
  constructor(
    /** The router's table: subscription id → the stream's handlers. */
    private readonly streams: Map<RequestId, ListenHandlers>,
    private readonly access: ListenWireAccess,
  ) {}

  open(id: RequestId, filter: NotificationFilter, handlers: ListenHandlers): ListenHandle {
    this.streams.set(id, handlers);
    const transport = this.access.readyTransport();
    let open = true;
    // Methods, not arrow properties: one handle per open stream, and under tsx each named arrow costs ~0.3 KB more.
    const routes = this;
    const handle: ListenHandle = {
      release() {
        if (open && routes.streams.get(id) === handlers) routes.streams.delete(id);
        open = false;
      },
      cancel() {
        if (!open) return;
        handle.release();
        if (!transport || routes.access.transport() !== transport || transport.abortRequest(id)) return;
        routes.access
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'client closed the stream' } })
          .catch((error: unknown) => routes.access.report(error as Error));
      },
    };
    if (!transport) {
      queueMicrotask(() => open && handlers.ended(this.access.notConnected()));
      return handle;
    }
    const params = this.access.withEnvelope({ notifications: filter as JsonObject });
    transport.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }).catch((error: unknown) => {
      if (!open) return;
      if (!(error instanceof HttpStatusError)) return this.#endedUnanswered(id, handlers, error);
      // The server answered the listen with an HTTP error: it refused the stream.
      handle.release();
      handlers.error(error.rpcError ? new RpcError(error.rpcError, 'subscriptions/listen') : error);
    });
    return handle;
  }

  /** Takes a response that answers a listen; false when no stream has its id. */
  answer(response: JsonRpcResponse): boolean {
    const stream = response.id === null ? undefined : this.streams.get(response.id);
    if (!stream) return false;
    this.streams.delete(response.id!);
    if (isFailure(response)) stream.error(new RpcError(response.error, 'subscriptions/listen'));
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

  /**
   * Whether that is the server going away or the server dropping this one
   * stream is a question for the server: an answered probe means it is
   * there, so the stream alone ended; a failed probe is a lost transport.
   */
  #endedUnanswered(id: RequestId, stream: ListenHandlers, cause: unknown): void {
    if (this.streams.get(id) === stream) this.streams.delete(id);
    void this.access.peerAnswers().then((answers) => answers && stream.ended(cause));
  }
}
