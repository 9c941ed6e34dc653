/**
 * The state every transport of one server shares: the registry, the
 * capabilities, the limits, the audience index with every open listen stream
 * and legacy session, and the bus feeding it. Transports own connections;
 * this owns what is broadcast to them.
 */
import { FilterError, validateFilter, type NotificationFilter } from '../protocol/filter.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { Implementation, ServerCapabilities } from '../protocol/versions.ts';
import { AudienceIndex, type ListKind } from './audience-index.ts';
import { createInProcessBus, type ChangeBus } from './bus.ts';
import { resolveCaching, type CacheableResult, type CacheHint, type CachingOptions } from './caching.ts';
import { ChangeApplier, type RemoteChangeHook } from './change-applier.ts';
import { canComplete } from './completions.ts';
import { InvalidParamsError, LimitExceededError, ServerClosingError } from './errors.ts';
import { LegacySession, type SessionEndReason } from './legacy-session.ts';
import { traceSessionEnded, traceSessionOpened, traceStreamEnded, traceStreamOpened, type ServerTransport } from './lifecycle-trace.ts';
import { DEFAULT_LIMITS, type ServerLimits } from './limits.ts';
import { listenStreamMachine } from '../../machines/listen-stream.machine.ts';
import { sharedStepsLogic } from './listen-stream-logic.ts';
import type { Inspector } from '../runtime/actor-options.ts';
import { ListenStream, type StreamEndReason, type StreamOwner, type StreamTransport } from './listen-stream.ts';
import type { Outbox } from './outbox.ts';
import { Registry } from './registry.ts';
import { newRequestStateKey, RequestStateSealer } from './request-state.ts';
import { RunningRequests } from './running-requests.ts';
import { ToolSchemaCompiler } from './tool-schemas.ts';

/** Which change notifications the server offers; all on by default. */
export interface ServerFeatures {
  /** Offer `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** Offer `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** Offer `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** Offer per-URI `notifications/resources/updated` (legacy `resources/subscribe`, modern listen filters). */
  resourceSubscriptions?: boolean;
}

/** Options of `createServer`: who the server is, and its limits, bus, features and caching. */
export interface ServerOptions {
  /** The server's name in `serverInfo`. */
  name: string;
  /** The server's version in `serverInfo`. */
  version: string;
  /** Instructions for the client's model, sent at negotiation. */
  instructions?: string;
  /** Items per page of tools/list, prompts/list and resources/list (default 50). */
  pageSize?: number;
  /** Overrides parts of DEFAULT_LIMITS. */
  limits?: Partial<ServerLimits>;
  /** Carries change events between nodes; an in-process bus by default. */
  bus?: ChangeBus;
  /**
   * Awaited before a change published by another node reaches this node's
   * streams and sessions: reload the catalog or data there, so a refetch
   * landing on any node sees the change. A rejection is written to stderr
   * and the change is announced anyway.
   */
  onRemoteChange?: RemoteChangeHook;
  /** Which change notifications to offer; all by default. */
  features?: ServerFeatures;
  /** Caching hints on cacheable modern results; DEFAULT_CACHING by default. */
  caching?: CachingOptions;
  /**
   * The 32-byte AES-256-GCM key sealing modern `requestState` (input-required
   * results); random per server by default. Give every node behind one
   * endpoint the same key, so a retry may land on any of them.
   */
  requestStateKey?: Uint8Array;
  /**
   * Receives the inspection events of every listen stream's lifecycle actor
   * (listen-stream machine), e.g. `createBrowserInspector().inspect` of
   * `@statelyai/inspect`, so the inspector shows each stream's statechart.
   */
  inspect?: Inspector;
}

export class ServerCore implements StreamOwner {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly limits: ServerLimits;
  private readonly fixedCapabilities: ServerCapabilities;
  readonly caching: Readonly<Record<CacheableResult, CacheHint>>;
  readonly registry = new Registry();
  readonly requestStates: RequestStateSealer;
  readonly toolSchemas = new ToolSchemaCompiler();
  readonly index = new AudienceIndex();
  readonly bus: ChangeBus;
  /** The bus's read barrier, awaited before the reads a notification tells clients to repeat; none for a synchronous bus. */
  readonly settled: (() => Promise<void>) | undefined;
  readonly streams = new Set<ListenStream>();
  readonly sessions = new Set<LegacySession>();
  /** The requests being answered, on every transport: close() lets them finish. */
  readonly running = new RunningRequests();
  /** Where every listen-stream actor's inspection events go. */
  readonly inspect: Inspector | undefined;
  /** What every stream's actor runs: the machine itself while inspected (every microstep shown), else with shared steps. */
  private readonly streamLogic: typeof listenStreamMachine;
  closing = false;
  private readonly leaveBus: () => void;

  constructor(options: ServerOptions) {
    this.info = { name: options.name, version: options.version };
    this.instructions = options.instructions;
    this.pageSize = options.pageSize ?? 50;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.caching = resolveCaching(options.caching);
    this.inspect = options.inspect;
    this.streamLogic = options.inspect ? listenStreamMachine : sharedStepsLogic();
    this.requestStates = new RequestStateSealer(options.requestStateKey ?? newRequestStateKey());
    const features = options.features ?? {};
    this.fixedCapabilities = {
      tools: { listChanged: features.toolsListChanged ?? true },
      prompts: { listChanged: features.promptsListChanged ?? true },
      resources: { listChanged: features.resourcesListChanged ?? true, subscribe: features.resourceSubscriptions ?? true },
      logging: {},
    };
    this.bus = options.bus ?? createInProcessBus();
    const applier = new ChangeApplier(
      (event) => this.index.fanOut(event),
      options.onRemoteChange,
      (error, event) => console.error(`mcp-actors server ${options.name}: onRemoteChange failed for ${event.type}; announcing it anyway:`, error),
    );
    this.leaveBus = this.bus.subscribe((event, delivery) => applier.apply(event, delivery));
    const bus = this.bus;
    this.settled = bus.settled === undefined ? undefined : () => bus.settled!().catch((error: unknown) => {
      // A bus's barrier is documented never to reject; if a custom one does, answer from what this node has.
      console.error(`mcp-actors server ${options.name}: the bus's settled() failed; answering anyway:`, error);
    });
  }

  /** What the server offers now: `completions` only while some prompt argument or template variable can complete. */
  get capabilities(): ServerCapabilities {
    return canComplete(this.registry) ? { ...this.fixedCapabilities, completions: {} } : this.fixedCapabilities;
  }

  /** Validates a listen filter and keeps what this server offers. */
  honor(raw: unknown): NotificationFilter {
    let requested: NotificationFilter;
    try {
      // Unknown keys are ignored: the SubscriptionFilter schema allows extra properties.
      requested = validateFilter(raw, { allowTaskIds: false, maxUris: this.limits.maxUrisPerFilter, ignoreUnknownKeys: true });
    } catch (error) {
      if (error instanceof FilterError) throw new InvalidParamsError(`Invalid params: notifications: ${error.message}`);
      throw error;
    }
    const caps = this.capabilities;
    const honored: NotificationFilter = {};
    if (requested.toolsListChanged && caps.tools?.listChanged) honored.toolsListChanged = true;
    if (requested.promptsListChanged && caps.prompts?.listChanged) honored.promptsListChanged = true;
    if (requested.resourcesListChanged && caps.resources?.listChanged) honored.resourcesListChanged = true;
    if (requested.resourceSubscriptions && caps.resources?.subscribe) honored.resourceSubscriptions = requested.resourceSubscriptions;
    return honored;
  }

  /**
   * Opens a listen stream writing into `outbox` and indexes it once it is
   * acknowledged; `owner`, the transport serving it, hears when it has
   * ended. Throws as `assertRoomForStream` does.
   */
  openStream(id: RequestId, honored: NotificationFilter, outbox: Outbox, owner: StreamTransport): ListenStream {
    this.assertRoomForStream();
    const stream = new ListenStream({
      id,
      honored,
      outbox,
      maxPending: this.limits.maxPendingPerStream,
      maxPendingBytes: this.limits.maxPendingBytesPerStream,
      finishTimeoutMs: this.limits.finishTimeoutMs,
      logic: this.streamLogic,
      core: this,
      owner,
      inspect: this.inspect,
    });
    this.streams.add(stream);
    stream.acknowledge();
    for (const kind of listKinds(honored)) this.index.addKind(kind, stream);
    for (const uri of honored.resourceSubscriptions ?? []) this.index.addUri(uri, stream);
    traceStreamOpened(stream);
    return stream;
  }

  /** For each stream, once, on every transport: it has ended, so it leaves the index (kept here, not as a closure per stream) and its end is published. */
  streamEnded(stream: ListenStream, reason: StreamEndReason): void {
    this.streams.delete(stream);
    for (const kind of listKinds(stream.honored)) this.index.removeKind(kind, stream);
    for (const uri of stream.honored.resourceSubscriptions ?? []) this.index.removeUri(uri, stream);
    traceStreamEnded(stream, reason);
  }

  /** Throws ServerClosingError while closing, LimitExceededError past maxListenStreams. */
  assertRoomForStream(): void {
    if (this.closing) throw new ServerClosingError();
    if (this.streams.size >= this.limits.maxListenStreams) {
      throw new LimitExceededError('maxListenStreams', this.limits.maxListenStreams);
    }
  }

  /**
   * The refusal of one more request (`method`) where `answering` are being answered already (a stdio connection, a
   * legacy HTTP session; 0 where nothing bounds them): ServerClosingError once the server is closing (but for a
   * `ping`, which its receiver must answer promptly, and a client that pings while its call drains must not be
   * told to go), LimitExceededError past maxRequestsPerConnection, else undefined.
   */
  requestRefusal(method: string, answering: number): ServerClosingError | LimitExceededError | undefined {
    if (this.closing && method !== 'ping') return new ServerClosingError('Server is shutting down: no new requests');
    const max = this.limits.maxRequestsPerConnection;
    return answering >= max ? new LimitExceededError('maxRequestsPerConnection', max) : undefined;
  }

  /**
   * A new legacy session, served on `transport`; its start and end are
   * published (lifecycle-trace.ts). `initializeMs` ends it if it is not
   * initialized that long after its start (HTTP passes
   * `limits.initializeTimeoutMs`; a stdio session lives as long as its
   * connection).
   */
  newSession(id: string, transport: ServerTransport, onEnd: (reason: SessionEndReason) => void, timing: { initializeMs?: number } = {}): LegacySession {
    const session = new LegacySession({
      id,
      capabilities: this.capabilities,
      index: this.index,
      maxPending: this.limits.maxPendingPerStream,
      maxPendingBytes: this.limits.maxPendingBytesPerStream,
      idleMs: this.limits.sessionIdleMs,
      initializeMs: timing.initializeMs,
      clientRequestTimeoutMs: this.limits.clientRequestTimeoutMs,
      maxSubscribedUriBytes: this.limits.maxSubscribedUriBytes,
      onEnd: (ended, reason) => {
        this.sessions.delete(ended);
        traceSessionEnded(id, transport, reason);
        onEnd(reason);
      },
    });
    this.sessions.add(session);
    traceSessionOpened(id, transport);
    return session;
  }

  /**
   * Admits no more requests, completes every listen stream gracefully while the requests already running finish
   * (up to `drainTimeoutMs`, then their signals abort), ends every session, leaves the bus.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await Promise.all([...[...this.streams].map((stream) => stream.complete()), this.running.drain(this.limits.drainTimeoutMs)]);
    for (const session of [...this.sessions]) session.end({ type: 'server_shutdown' });
    this.leaveBus();
  }
}

function listKinds(filter: NotificationFilter): ListKind[] {
  const kinds: ListKind[] = [];
  if (filter.toolsListChanged) kinds.push('tools');
  if (filter.promptsListChanged) kinds.push('prompts');
  if (filter.resourcesListChanged) kinds.push('resources');
  return kinds;
}
