/**
 * The connection's I/O: it provides the connection machine's transport and
 * negotiation actors, correlates requests with responses, and hands inbound
 * frames to the router and the listen routes. Lifecycle decisions stay in
 * the machine; this class mirrors whether it is ready (for the hot path)
 * and reports to it what the wire shows.
 */
import { createActor, type Actor, type AnyActorRef } from 'xstate';
import { asError } from '../../machines/errors.ts';
import { connectionMachine, DEFAULT_BACKOFF, type Negotiated } from '../../machines/connection.machine.ts';
import { registerChild, unregisterChild } from '../runtime/xstate-internals.ts';
import type { RelistenPolicy } from '../../machines/subscription.machine.ts';
import { ConnectionLostError, NotConnectedError, RequestAbortedError, StreamEndedError, UnexpectedResponseError } from '../protocol/errors.ts';
import { withRequestMeta } from '../protocol/request-meta.ts';
import { ErrorCode, type ClassifiedFrame, type FrameError, type JsonObject, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { Era } from '../protocol/versions.ts';
import type { ClientTransport } from '../transport/transport.ts';
import { dottedState, type ClientState } from './client-status.ts';
import { InboundRouter } from './inbound-router.ts';
import { ListenRoutes } from './listen-routes.ts';
import { DEFAULT_PROBE_TIMEOUT_MS, negotiationWithWire, type NegotiationWire } from './negotiation.ts';
import { Outbound } from './outbound.ts';
import { PendingRequests } from './pending-requests.ts';
import { ServerRequestHandlers } from './server-requests.ts';
import type { Clock } from '../runtime/actor-options.ts';
import type { ChildOwner, ListenHandle, ListenHandlers, ListenPort, RequestOptions } from './ports.ts';
import { livenessProbe } from './liveness-probe.ts';
import { ConnectionNotices, DEFAULT_REQUEST_TIMEOUT_MS, type ConnectionNotice, type ConnectionOptions } from './connection-options.ts';
import { transportActor } from './transport-actor.ts';
import { traceClientRequest } from './request-trace.ts';

export { DEFAULT_REQUEST_TIMEOUT_MS, type ConnectionNotice, type ConnectionOptions, type ConnectionProblem } from './connection-options.ts';

export class Connection implements ListenPort, ChildOwner {
  readonly actor: Actor<typeof connectionMachine>;
  readonly router: InboundRouter;
  readonly relisten: RelistenPolicy | false;
  /** Handlers for the server's requests; their capabilities join the `capabilities` option at each negotiation. */
  readonly serverRequests: ServerRequestHandlers;
  /** Drives the connection's and its streams' delays; the real timers when undefined. */
  readonly clock: Clock | undefined;
  readonly #options: Required<Pick<ConnectionOptions, 'era' | 'clientInfo' | 'capabilities' | 'requestTimeoutMs' | 'probeTimeoutMs'>>;
  readonly #pending = new PendingRequests();
  readonly #listenRoutes: ListenRoutes;
  readonly #notices = new ConnectionNotices();
  /** Negotiation watching for output that is no JSON-RPC (a peer that prints garbage fails within a probe timeout). */
  readonly #unreadableListeners = new Set<(sample: string) => void>();
  #transport: ClientTransport | undefined;
  readonly #outbound: Outbound;
  #negotiated: Negotiated | undefined;
  #ready = false;
  #closing: Promise<void> = Promise.resolve();

  constructor(options: ConnectionOptions) {
    const serverRequests = new ServerRequestHandlers(options.maxServerRequestsInFlight);
    this.serverRequests = serverRequests;
    this.#options = {
      era: options.era ?? 'auto',
      clientInfo: options.clientInfo ?? { name: 'mcp-actors', version: '0.1.0' },
      // Read when a negotiation starts, so a handler registered after connect counts from the next one.
      get capabilities() {
        return { ...serverRequests.capabilities(), ...options.capabilities };
      },
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      probeTimeoutMs: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    };
    this.clock = options.clock;
    this.#outbound = new Outbound(this.#options);
    this.router = new InboundRouter((error) => this.report(error));
    this.router.onNotification('notifications/cancelled', (params) => this.serverRequests.cancel(params.requestId, params.reason));
    this.#listenRoutes = new ListenRoutes(this.router.streams, {
      readyTransport: () => (this.#ready ? this.#transport : undefined),
      transport: () => this.#transport,
      send: (message, transport) => this.#transmit(message, transport),
      report: (error) => this.report(error),
      notConnected: () => new NotConnectedError(this.stateName(), 'subscriptions/listen'),
      endedUnanswered: (id, cause) => this.actor.send({ type: 'listen.ended_unanswered', id, cause }),
    });
    const machine = connectionMachine.provide({
      actors: {
        transport: transportActor(options.transport, {
          opened: (transport) => (this.#transport = transport),
          frame: (frame) => this.#onFrame(frame),
          streamEnded: (id, error) => this.#onStreamEnded(id, error),
          keepAlive: (id) => this.#listenRoutes.keepAlive(id),
          report: (error) => this.report(error),
          dropped: (transport) => this.#drop(transport),
        }),
        probe: livenessProbe((method, params, options) => this.#request(method, params, options), this.#negotiationPatienceMs()),
        negotiate: negotiationWithWire(() => this.#negotiationWire(), this.#options, this.#negotiationPatienceMs()),
      },
    });
    const backoff = options.reconnect === false ? false : { ...DEFAULT_BACKOFF, ...options.reconnect };
    const random = options.random ?? Math.random;
    this.relisten = backoff === false ? false : { backoff, random };
    this.actor = createActor(machine, {
      input: {
        backoff,
        ...(options.firstConnect ? { firstConnect: options.firstConnect } : {}),
        random,
        negotiation: { era: this.#options.era, probeTimeoutMs: this.#options.probeTimeoutMs, patienceMs: this.#negotiationPatienceMs() },
      },
      ...(options.inspect ? { inspect: options.inspect } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    this.actor.on('*', (event) => {
      if (event.type === 'listen.ended_alone') return this.#listenRoutes.endedAlone(event.id, event.cause);
      if (event.type === 'connection.ready') {
        this.#negotiated = event.negotiated;
        this.#ready = true;
      }
      this.#notices.notify(event);
    });
  }

  get era(): Era | undefined {
    return this.#negotiated?.era;
  }

  /** ChildOwner: the connection actor is the parent of every actor built on it. */
  get parent(): AnyActorRef {
    return this.actor;
  }

  /** ChildOwner: from now on the connection machine sends `child` its lifecycle events (a registration, not a transition). */
  adopt(child: AnyActorRef, systemId: string): void {
    registerChild(this.actor, systemId, child);
  }

  /** ChildOwner: `child` ended. */
  release(child: AnyActorRef): void {
    unregisterChild(this.actor, child);
  }

  get negotiated(): Negotiated | undefined {
    return this.#negotiated;
  }

  get serverCapabilities(): JsonObject | undefined {
    return this.#negotiated?.capabilities;
  }

  get ready(): boolean {
    return this.#ready;
  }

  get transportKind() {
    return this.#transport?.kind;
  }

  /** Settles once the transport of the last connection attempt has closed. */
  get closing(): Promise<void> {
    return this.#closing;
  }

  /** Every notice (lifecycle facts and non-fatal errors) until the returned function is called. */
  onNotice(listener: (notice: ConnectionNotice) => void): () => void {
    return this.#notices.add(listener);
  }

  nextRequestId(): RequestId {
    return this.#pending.nextId();
  }

  request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    if (!this.#ready) return Promise.reject(new NotConnectedError(this.stateName(), method));
    // Async, so that a refused `meta` rejects; everything up to the send still runs synchronously, as before.
    return traceClientRequest(method, this.era, async (traced) =>
      normalizeResultType(await this.#request(method, withRequestMeta(method, params, { ...traced, ...options.meta }), options)),
    );
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    if (!this.#ready) throw new NotConnectedError(this.stateName(), method);
    await this.#transmit({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  openListen(id: RequestId, filter: NotificationFilter, handlers: ListenHandlers): ListenHandle {
    return this.#listenRoutes.open(id, filter, handlers);
  }

  /** The machine's state as a dotted name, for errors and display. */
  stateName(): ClientState {
    return dottedState(this.actor.getSnapshot().value);
  }

  /** The attempt on `transport` is over: nothing tied to it outlives it. */
  #drop(transport: ClientTransport): void {
    this.#ready = false;
    this.#transport = undefined;
    this.#outbound.forget();
    this.#listenRoutes.forgetUnanswered();
    this.serverRequests.abortAll('connection lost');
    this.#pending.failAll((method) => new ConnectionLostError(method));
    this.#closing = transport.close().catch((error: unknown) => this.report(error as Error));
  }

  /** An ordinary request's patience, and never less than the probe timeout: how long a negotiation step waits for an answer. */
  #negotiationPatienceMs(): number {
    return Math.max(this.#options.requestTimeoutMs, this.#options.probeTimeoutMs);
  }

  /** The current transport as negotiation needs it; switching the era goes through here so the envelope follows. */
  #negotiationWire(): NegotiationWire {
    const transport = this.#transport;
    return {
      request: (method, params, options) => this.#request(method, params, options),
      notify: (method) => this.#transmit({ jsonrpc: '2.0', method }),
      speak: (protocol) => {
        if (transport !== undefined && this.#transport === transport) this.#outbound.speak(transport, protocol);
      },
      onUnreadable: (listener) => {
        this.#unreadableListeners.add(listener);
        return () => this.#unreadableListeners.delete(listener);
      },
    };
  }

  /** Everything the client sends goes this way (outbound.ts), on the current transport unless told which. */
  #transmit(message: JsonRpcMessage, transport: ClientTransport | undefined = this.#transport): Promise<void> {
    if (!transport) return Promise.reject(new NotConnectedError(this.stateName(), 'method' in message ? message.method : undefined));
    try {
      return this.#outbound.send(message, transport);
    } catch (error) {
      // A transport that throws instead of rejecting fails the one message, as a rejection does.
      return Promise.reject(error);
    }
  }

  #request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    const transport = this.#transport;
    if (!transport) return Promise.reject(new NotConnectedError(this.stateName(), method));
    if (options.signal?.aborted) return Promise.reject(new RequestAbortedError(method, { cause: options.signal.reason }));
    const id = this.#pending.nextId();
    let outgoing = params;
    const { onProgress, resetTimeoutOnProgress = false } = options;
    const tracksProgress = onProgress !== undefined || resetTimeoutOnProgress;
    if (tracksProgress) {
      this.router.progress.set(id, (progress) => {
        if (resetTimeoutOnProgress) this.#pending.extend(id);
        onProgress?.(progress);
      });
      outgoing = { ...params, _meta: { ...(params?._meta as JsonObject | undefined), progressToken: id } };
    }
    const settled = this.#pending.track(id, method, {
      timeoutMs: options.timeoutMs ?? this.#options.requestTimeoutMs,
      ...(resetTimeoutOnProgress && options.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: options.maxTotalTimeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onGiveUp: (requestId, reason) => {
        // The legacy lifecycle forbids cancelling initialize: its late answer is simply dropped.
        if (method === 'initialize' || this.#transport !== transport || transport.abortRequest(requestId)) return;
        const cancel: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: reason.message } };
        this.#transmit(cancel, transport).catch(() => {});
      },
    });
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, ...(outgoing ? { params: outgoing } : {}) };
    this.#transmit(message, transport).catch((error: unknown) => this.#pending.fail(id, error as Error));
    if (!tracksProgress) return settled;
    const forget = () => this.router.progress.delete(id);
    return settled.finally(forget);
  }

  /** One inbound frame; whatever handling it throws is reported, so it cannot cost the frames after it. */
  #onFrame(frame: ClassifiedFrame): void {
    try {
      switch (frame.kind) {
        case 'notification':
          return this.router.route(frame.message);
        case 'response':
          return this.#onResponse(frame.message);
        case 'request':
          return this.#answerPeerRequest(frame.message);
        case 'invalid':
          for (const listener of this.#unreadableListeners) listener(frame.error.frame ?? frame.error.message);
          // A response too large to read fails its own request at once, rather than leaving it to time out; a request
          // that cannot be read (too deep, params not an object) is refused under its id, so its asker does not wait.
          if (frame.error.responseId !== undefined) this.#pending.fail(frame.error.responseId, frame.error);
          if (frame.error.requestId !== undefined) this.#refusePeerRequest(frame.error.requestId, frame.error);
          return this.report(frame.error);
      }
    } catch (error) {
      this.report(asError(error));
    }
  }

  #onResponse(response: JsonRpcResponse): void {
    if (this.#listenRoutes.answer(response)) return;
    if (!this.#pending.resolve(response)) this.report(new UnexpectedResponseError(response));
  }

  #onStreamEnded(id: RequestId, error: StreamEndedError): void {
    if (!this.#listenRoutes.streamEnded(id, error)) this.#pending.fail(id, error);
  }

  /**
   * `ping` is answered here; the rest by the registered handlers (server-requests.ts), on the transport that asked.
   * An answer that transport could not take before it was dropped is not reported: the connection's own
   * `connection.lost` says why, once, where a server that flooded before being dropped would leave thousands.
   */
  #answerPeerRequest(request: JsonRpcRequest): void {
    const reply = this.#replyOnCurrentTransport();
    if (request.method !== 'ping') return this.serverRequests.answer(request, this.era ?? 'legacy', reply, (error) => this.report(error));
    reply({ jsonrpc: '2.0', id: request.id, result: {} }).catch((error: unknown) => this.report(asError(error)));
  }

  /** A server request that could not be read: -32600 under its id (the FrameError itself is reported by the caller). */
  #refusePeerRequest(id: RequestId, error: FrameError): void {
    const refusal: JsonRpcMessage = { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid request: ${error.message}` } };
    this.#replyOnCurrentTransport()(refusal).catch((failure: unknown) => this.report(asError(failure)));
  }

  /** Sends an answer on the transport the request came on, and not on a later one (where its id means nothing). */
  #replyOnCurrentTransport(): (message: JsonRpcMessage) => Promise<void> {
    const transport = this.#transport;
    return (message) =>
      this.#transport === transport
        ? this.#transmit(message, transport).catch((error: unknown) => {
            if (this.#transport === transport) throw error;
          })
        : Promise.resolve();
  }

  /** Reports a problem that does not end the connection (`client.onError`). */
  report(error: Error): void {
    this.#notices.notify({ type: 'error', error });
  }
}

/** Legacy servers send no `resultType`; such a result counts as complete. */
function normalizeResultType(result: JsonObject): JsonObject {
  if (result.resultType === undefined) result.resultType = 'complete';
  return result;
}
