/**
 * The client facade: `createClient(options)` gives a connection to one MCP
 * server in either era, with typed calls of its features (feature-calls.ts),
 * streams and listeners of its change notifications (change-notifications.ts),
 * fallback notification handlers and lifecycle events. The connection and its
 * actor are private: the package's own modules reach them through
 * connection-of.ts, and an inspector sees them through the `inspect` option.
 */
import { toPromise, type Subscription } from 'xstate';
import type { ConnectionClosedReason } from '../../machines/closed-reason.ts';
import { NotConnectedError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { Era } from '../protocol/versions.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import { Connection, type ConnectionOptions } from './connection.ts';
import { registerConnection } from './connection-of.ts';
import { statusStream, type ClientEventOf, type ClientEventType, type ClientState, type ClientStatus } from './client-status.ts';
import type { NotificationHandler } from './inbound-router.ts';
import type {
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  ServerInfo,
  Tool,
} from '../protocol/mcp-types.ts';
import type { ServerRequestMethod } from './server-request-types.ts';
import type { OnRequestOptions, ServerRequestHandler } from './server-requests.ts';
import type { IterableListenerRef, ListenerRef, SubscribeNotificationsOptions } from './listeners.ts';
import type { Subscriber } from './mailbox.ts';
import { changeNotifications, type ChangeNotificationCalls, type ChangeNotifications } from './change-notifications.ts';
import type { Inspector } from '../runtime/actor-options.ts';
import type { RequestOptions } from './ports.ts';
import { featureCalls, type FeatureCalls } from './feature-calls.ts';
import type { IterableListenStream, ListenOptions, ListenStream } from './subscription.ts';

export type { ClientEvent } from './client-status.ts';

/** Options of `createClient`. */
export interface ClientOptions extends Omit<ConnectionOptions, 'clock' | 'random'> {
  /** Most deliveries in flight per stream or listener before it closes with `delivery_dropped` (default 1024). */
  mailboxCap?: number;
  /**
   * Modern era: how many times one `callTool`, `getPrompt` or `readResource` retries with `inputResponses`
   * before it fails with InputRoundsExceededError (default DEFAULT_MAX_INPUT_ROUNDS, 8).
   */
  maxInputRounds?: number;
}

/** A connection to one MCP server, in either era: see `createClient`. */
export class McpClient implements FeatureCalls, ChangeNotifications {
  /** Resolves once, with why the connection ended for good. */
  readonly closed: Promise<ConnectionClosedReason>;

  readonly #connection: Connection;
  readonly #notifications: ChangeNotificationCalls;
  readonly #options: ClientOptions;
  readonly #features: FeatureCalls;

  /** `options` may carry the test seams of `mcp-actors/testing` (createTestClient); ClientOptions does not name them. */
  constructor(options: ClientOptions) {
    this.#options = options;
    const connection = new Connection(options);
    this.#connection = connection;
    registerConnection(this, connection);
    // Started first: the listeners' URI worker is adopted as the connection actor's child at once.
    connection.actor.start();
    this.#notifications = changeNotifications(connection, options);
    // Through the client's own request and listTools, which a subclass may override.
    this.#features = featureCalls(
      { request: this.request.bind(this), listTools: this.listTools.bind(this), serverRequests: connection.serverRequests, report: (error) => connection.report(error) },
      { maxInputRounds: options.maxInputRounds },
    );
    this.closed = toPromise(connection.actor);
  }

  /** The `inspect` option the client was created with, for actors built on it (the change cache). */
  get inspect(): Inspector | undefined {
    return this.#options.inspect;
  }

  /** The negotiated era (`legacy` or `modern`); undefined before the first negotiation. */
  get era(): Era | undefined {
    return this.#connection.era;
  }

  /** The negotiated protocol revision, e.g. `2025-11-25` or `2026-07-28`; undefined before the first negotiation. */
  get protocolVersion(): string | undefined {
    return this.#connection.negotiated?.protocolVersion;
  }

  /** What the server said it can do, as negotiated (checked then: a malformed one fails the negotiation with InvalidResultError). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#connection.serverCapabilities as ServerCapabilities | undefined;
  }

  /** The server's name and version, as negotiated (checked then, as `serverCapabilities` is); a modern server may send none. */
  get serverInfo(): ServerInfo | undefined {
    return this.#connection.negotiated?.serverInfo as ServerInfo | undefined;
  }

  /** The server's `instructions` for the model, as negotiated, if it sent any. */
  get instructions(): string | undefined {
    return this.#connection.negotiated?.instructions;
  }

  /** The connection's state, e.g. `online.ready.modern` or `reconnecting` (one of the connection machine's states). */
  get state(): ClientState {
    return this.#connection.stateName();
  }

  /**
   * The connection's status as an async iterable: the current one first,
   * then every change of state (with the era and generation once ready, the
   * reason once closed); it ends after `closed`. Each loop is independent;
   * breaking out of it stops listening.
   */
  status(): AsyncIterable<ClientStatus> {
    return statusStream(this.#connection.actor);
  }

  /** Connects and negotiates; rejects with the cause when the first connect fails (at once, or with `firstConnect: 'retry'` once its retries are spent). */
  connect(): Promise<void> {
    if (this.#connection.ready) return Promise.resolve();
    if (this.#connection.actor.getSnapshot().status !== 'active') {
      return Promise.reject(new NotConnectedError('closed', 'connect'));
    }
    return new Promise<void>((resolve, reject) => {
      const stop = this.#connection.onNotice((notice) => {
        if (notice.type === 'connection.ready') resolve();
        else if (notice.type === 'connection.failed') reject(notice.cause);
        else if (notice.type === 'connection.closed') reject(new NotConnectedError(`closed (${notice.reason.type})`, 'connect'));
        else return;
        stop();
      });
      this.#connection.actor.send({ type: 'connect' });
    });
  }

  /**
   * Closes the connection (reason `disconnected`) and waits for the transport to close.
   * `shutdown()` is the other way to close: its reason differs (see there).
   */
  close(): Promise<void> {
    return this.#end({ type: 'disconnect' });
  }

  /** `close()`: `await using client = createClient(…)` closes the connection at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Closes the connection because its owner is stopping (reason `shutdown`
   * carrying `cause`). A second name beside `close()` because what is built
   * on the client tells the two apart: streams, listeners and the change
   * cache end with the client's reason, so a consumer sees a deliberate
   * close (`disconnected`) apart from the service going down (`shutdown`, and why).
   */
  shutdown(cause: unknown = 'client shutdown'): Promise<void> {
    return this.#end({ type: 'shutdown', cause });
  }

  /** Ends a connection that is still running, then waits for its transport to close. */
  async #end(event: { type: 'disconnect' } | { type: 'shutdown'; cause: unknown }): Promise<void> {
    if (this.#connection.actor.getSnapshot().status === 'active') this.#connection.actor.send(event);
    await this.#connection.closing;
  }

  /**
   * Calls `handler` with every lifecycle event of `type` (`*`: all of them),
   * typed per type, like xstate's `actor.on`. A handler that throws is
   * reported through `onError` and does not stop the others.
   */
  on<T extends ClientEventType>(type: T, handler: (event: ClientEventOf<T>) => void): Subscription {
    const unsubscribe = this.#connection.onNotice((notice) => {
      if (notice.type === 'error' || (type !== '*' && notice.type !== type)) return;
      handler(notice as ClientEventOf<T>);
    });
    return { unsubscribe };
  }

  /**
   * Calls `handler` with every problem that does not end the connection: a
   * refused frame (FrameError), a response nobody asked for
   * (UnexpectedResponseError), a throwing handler. Kept apart from `on`:
   * these are reports about traffic, not states of the connection, and a
   * failure that does end it arrives as `connection.closed` with its reason.
   */
  onError(handler: (error: Error) => void): Subscription {
    const unsubscribe = this.#connection.onNotice((notice) => {
      if (notice.type === 'error') handler(notice.error);
    });
    return { unsubscribe };
  }

  /** A fallback handler for notifications of one method (`*`: all) that no stream or call claimed. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    return this.#connection.router.onNotification(method, handler);
  }

  /**
   * Registers the handler that answers the server's `elicitation/create`,
   * `sampling/createMessage` or `roots/list` (one per method; a later one
   * replaces it) and returns its removal. While registered, its capability
   * is advertised (`elicitation`, `sampling`, `roots`; the `capabilities`
   * option overrides a key it names). Capabilities are sent when the
   * connection negotiates: register before `connect`; a registration after
   * it is advertised from the next negotiation (a reconnect), though the
   * handler answers at once. Legacy era: it answers server requests;
   * modern era: the input requests of input-required results.
   */
  onRequest<M extends ServerRequestMethod>(method: M, handler: ServerRequestHandler<M>, options?: OnRequestOptions): () => void {
    return this.#connection.serverRequests.register(method, handler, options);
  }

  /** Legacy era: tells the server the roots changed (`notifications/roots/list_changed`); the modern era has no such notification. */
  notifyRootsListChanged(): Promise<void> {
    return this.notify('notifications/roots/list_changed');
  }

  /**
   * Sends any request in the negotiated era's envelope and resolves with its result (unchecked: the typed helpers
   * below check theirs); an error response rejects with RpcError, a timeout with RequestTimeoutError.
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.#connection.request(method, params, options);
  }

  /** Sends a notification in the negotiated era's envelope; resolves once the transport took it. */
  notify(method: string, params?: JsonObject): Promise<void> {
    return this.#connection.notify(method, params);
  }

  // The typed calls of the server's features: documented on FeatureCalls (feature-calls.ts), whose TSDoc they show.
  listTools(options?: RequestOptions): Promise<Tool[]> {
    return this.#features.listTools(options);
  }

  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.#features.listPrompts(options);
  }

  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.#features.listResources(options);
  }

  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.#features.listResourceTemplates(options);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.#features.readResource(uri, options);
  }

  complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return this.#features.complete(params, options);
  }

  callTool(name: string, args: JsonObject = {}, options?: RequestOptions): Promise<CallToolResult> {
    return this.#features.callTool(name, args, options);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: RequestOptions): Promise<GetPromptResult> {
    return this.#features.getPrompt(name, args, options);
  }

  subscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.#features.subscribeResource(uri, options);
  }

  unsubscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.#features.unsubscribeResource(uri, options);
  }

  // Streams and listeners: documented on ChangeNotifications (change-notifications.ts), whose TSDoc they show.
  listen(filter: NotificationFilter, subscriber: Subscriber, options?: ListenOptions): Promise<ListenStream>;
  listen(filter: NotificationFilter, options?: ListenOptions): Promise<IterableListenStream>;
  listen(filter: NotificationFilter, second?: Subscriber | ListenOptions, third?: ListenOptions): Promise<ListenStream> {
    return this.#notifications.listen(filter, second, third);
  }

  subscribeNotifications(filter: NotificationFilter, subscriber: Subscriber, options?: SubscribeNotificationsOptions): Promise<ListenerRef>;
  subscribeNotifications(filter: NotificationFilter, options?: SubscribeNotificationsOptions): Promise<IterableListenerRef>;
  subscribeNotifications(filter: NotificationFilter, second?: Subscriber | SubscribeNotificationsOptions, third?: SubscribeNotificationsOptions): Promise<ListenerRef> {
    return this.#notifications.subscribeNotifications(filter, second, third);
  }

  unsubscribeNotifications(ref: Pick<ListenerRef, 'id'>): Promise<void> {
    return this.#notifications.unsubscribeNotifications(ref);
  }
}

/** Creates a client; call `connect()` to connect. */
export function createClient(options: ClientOptions): McpClient {
  return new McpClient(options);
}
