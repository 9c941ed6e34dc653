/**
 * The client facade: `createClient(options)` gives a connection to one MCP
 * server in either era, with typed helpers, fallback notification handlers
 * and lifecycle events. The connection and its actor are private: the
 * package's own modules reach them through connection-of.ts, and an
 * inspector sees them through the `inspect` option.
 */
import { toPromise, type Subscription } from 'xstate';
import type { ConnectionClosedReason } from '../../machines/closed-reason.ts';
import { HttpStatusError, NotConnectedError } from '../protocol/errors.ts';
import { ErrorCode, type JsonObject } from '../protocol/jsonrpc.ts';
import type { Era } from '../protocol/versions.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import { Connection, type ConnectionOptions } from './connection.ts';
import { registerConnection } from './connection-of.ts';
import { statusStream, type ClientEventOf, type ClientEventType, type ClientState, type ClientStatus } from './client-status.ts';
import type { NotificationHandler } from './inbound-router.ts';
import { DEFAULT_MAX_INPUT_ROUNDS, requestWithInputs } from './input-required.ts';
import { collectPages, LIST_METHODS, type ListName } from './pages.ts';
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
import { checkedList, checkedResult, type ListItems } from '../protocol/result-shapes.ts';
import type { ServerRequestMethod } from './server-request-types.ts';
import type { OnRequestOptions, ServerRequestHandler } from './server-requests.ts';
import { NotificationListeners, type IterableListenerRef, type ListenerRef, type SubscribeNotificationsOptions } from './listeners.ts';
import { isSubscriber, type DeliveryTarget, type Subscriber } from './mailbox.ts';
import type { Inspector } from '../runtime/actor-options.ts';
import type { RequestOptions } from './ports.ts';
import { openSubscription } from './open-subscription.ts';
import { ToolOutputChecks } from './tool-output-checks.ts';
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
export class McpClient {
  /** Resolves once, with why the connection ended for good. */
  readonly closed: Promise<ConnectionClosedReason>;

  readonly #connection: Connection;
  readonly #listeners: NotificationListeners;
  readonly #options: ClientOptions;
  readonly #toolOutputs: ToolOutputChecks;

  /** `options` may carry the test seams of `mcp-actors/testing` (createTestClient); ClientOptions does not name them. */
  constructor(options: ClientOptions) {
    this.#options = options;
    const connection = new Connection(options);
    this.#connection = connection;
    registerConnection(this, connection);
    // Started first: the registry's URI worker is adopted as the connection actor's child at once.
    connection.actor.start();
    this.#listeners = new NotificationListeners(connection, {
      ...(options.mailboxCap !== undefined ? { mailboxCap: options.mailboxCap } : {}),
    });
    connection.router.onNotification('*', (params, method) => {
      if (connection.era === 'legacy') this.#listeners.dispatch(method, params);
    });
    this.#toolOutputs = new ToolOutputChecks((error) => connection.report(error));
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

  /**
   * Every tool, all pages; rejects with InvalidResultError when one lacks what MCP defines (extra fields pass
   * through), a page lacks its list or a cursor comes twice, and with ListTooLongError or TooManyPagesError past
   * 1,000,000 items or 10,000 pages. The tools' output schemas are what `callTool` checks structured results against from then on.
   */
  async listTools(options?: RequestOptions): Promise<Tool[]> {
    const tools = await this.#listAll('tools', options);
    this.#toolOutputs.learn(tools);
    return tools;
  }

  /** Every prompt, all pages, checked as `listTools` checks tools. */
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.#listAll('prompts', options);
  }

  /** Every resource, all pages, checked as `listTools` checks tools. */
  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.#listAll('resources', options);
  }

  /** Every resource template, all pages, checked as `listTools` checks tools. */
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.#listAll('resourceTemplates', options);
  }

  /**
   * Reads a resource; an input-required result is answered and retried (see `callTool`).
   * Rejects with InvalidResultError when the result lacks what MCP defines.
   */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    const result = await this.#withInputs('resources/read', { uri }, options, (params) => this.request('resources/read', params, options));
    return checkedResult('resources/read', result);
  }

  /** Suggestions for an argument of a prompt or a resource template (`completion/complete`); checked as `callTool`'s result is. */
  async complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return checkedResult('completion/complete', await this.request('completion/complete', { ...params }, options));
  }

  /**
   * Calls a tool. Over modern HTTP a server refuses a call whose
   * `Mcp-Param-*` headers are missing or stale with HeaderMismatch; as the
   * spec advises, the tool list is then fetched again (the transport learns
   * the headers from it) and the call retried once.
   *
   * Modern era: an input-required result is answered with the handlers
   * registered by `onRequest` and the call retried (a new request) with
   * `inputResponses` and the server's `requestState`, up to `maxInputRounds`
   * times; `options.signal` aborts the handlers and the call. A requested
   * input with no handler ends the call with InputHandlerMissingError.
   *
   * A result without the fields MCP defines (`content` an array of content
   * blocks) rejects with InvalidResultError, and so does a successful result
   * of a tool whose `outputSchema` (from the last `listTools()`) its
   * `structuredContent` is missing or does not fit; a failed tool is a result
   * with `isError: true`, not a rejection.
   */
  async callTool(name: string, args: JsonObject = {}, options?: RequestOptions): Promise<CallToolResult> {
    const result = await this.#withInputs('tools/call', { name, arguments: args }, options, (params) => this.#callToolOnce(params, options));
    const checked = checkedResult('tools/call', result);
    await this.#toolOutputs.check(name, checked);
    return checked;
  }

  async #callToolOnce(params: JsonObject, options: RequestOptions | undefined): Promise<JsonObject> {
    try {
      return await this.request('tools/call', params, options);
    } catch (error) {
      if (!(error instanceof HttpStatusError) || error.rpcError?.code !== ErrorCode.HeaderMismatch) throw error;
      await this.listTools(options);
      return this.request('tools/call', params, options);
    }
  }

  /**
   * Gets a prompt; an input-required result is answered and retried (see `callTool`).
   * Rejects with InvalidResultError when the result lacks what MCP defines.
   */
  async getPrompt(name: string, args: Record<string, string> = {}, options?: RequestOptions): Promise<GetPromptResult> {
    const result = await this.#withInputs('prompts/get', { name, arguments: args }, options, (params) => this.request('prompts/get', params, options));
    return checkedResult('prompts/get', result);
  }

  #withInputs(method: string, params: JsonObject, options: RequestOptions | undefined, send: (params: JsonObject) => Promise<JsonObject>): Promise<JsonObject> {
    return requestWithInputs(method, params, send, this.#connection.serverRequests, {
      maxRounds: this.#options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * Legacy era: one direct `resources/subscribe`. Not refcounted with
   * notification listeners: the server keeps one subscription per URI per
   * session, so `unsubscribeResource` also silences listeners on that URI.
   */
  subscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.request('resources/subscribe', { uri }, options);
  }

  /** Legacy era: one direct `resources/unsubscribe`, the counterpart of `subscribeResource` (not refcounted either). */
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * Modern era: opens a `subscriptions/listen` stream owned by its own actor
   * and resolves once the server acknowledged it (the honored filter is on
   * the stream). Without a subscriber the stream is async-iterable (`for
   * await` its messages); with one (a callback, or an xstate actor that
   * receives them as events) the messages go there. On a legacy connection it
   * rejects with WrongEraError: use `subscribeNotifications`.
   */
  listen(filter: NotificationFilter, subscriber: Subscriber, options?: ListenOptions): Promise<ListenStream>;
  listen(filter: NotificationFilter, options?: ListenOptions): Promise<IterableListenStream>;
  async listen(filter: NotificationFilter, second?: Subscriber | ListenOptions, third?: ListenOptions): Promise<ListenStream> {
    this.#assertReady('subscriptions/listen');
    const [target, options] = deliveryOf(second, third);
    const mailboxCap = this.#options.mailboxCap;
    return openSubscription(this.#connection, filter, target, { ...(mailboxCap !== undefined ? { mailboxCap } : {}), ...options });
  }

  /**
   * Legacy era: registers a notification listener whose filter decides what
   * its subscriber receives; resolves once every URI it names is subscribed.
   * Without a subscriber the reference is async-iterable, as a listen stream
   * is. On a modern connection it rejects with WrongEraError: use `listen`.
   */
  subscribeNotifications(filter: NotificationFilter, subscriber: Subscriber, options?: SubscribeNotificationsOptions): Promise<ListenerRef>;
  subscribeNotifications(filter: NotificationFilter, options?: SubscribeNotificationsOptions): Promise<IterableListenerRef>;
  async subscribeNotifications(
    filter: NotificationFilter,
    second?: Subscriber | SubscribeNotificationsOptions,
    third?: SubscribeNotificationsOptions,
  ): Promise<ListenerRef> {
    this.#assertReady('subscribeNotifications');
    const [target, options] = deliveryOf(second, third);
    return this.#listeners.subscribeNotifications(filter, target, options);
  }

  /** Opening a stream or a listener is a request: while not connected it fails fast, as requests do. */
  #assertReady(operation: string): void {
    if (!this.#connection.ready) throw new NotConnectedError(this.state, operation);
  }

  /** Removes a listener and releases the URIs it acquired; an unknown reference rejects with ListenerNotFoundError. */
  unsubscribeNotifications(ref: Pick<ListenerRef, 'id'>): Promise<void> {
    return this.#listeners.unsubscribeNotifications(ref);
  }

  async #listAll<L extends ListName>(list: L, options?: RequestOptions): Promise<ListItems[L][]> {
    const items = await collectPages(list, (method, params) => this.request(method, params, options));
    return checkedList(list, LIST_METHODS[list], items);
  }
}

/** The argument after a filter is a subscriber or the options: no subscriber means the stream is iterated. */
function deliveryOf<O extends object>(second: Subscriber | O | undefined, third: O | undefined): [DeliveryTarget, O | undefined] {
  return isSubscriber(second) ? [second, third] : ['iterator', second];
}

/** Creates a client; call `connect()` to connect. */
export function createClient(options: ClientOptions): McpClient {
  return new McpClient(options);
}
