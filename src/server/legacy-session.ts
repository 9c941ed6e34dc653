/**
 * The I/O side of one legacy-era session: its lifecycle is the server-session
 * machine; this class keeps the session's `resources/subscribe` URIs and log
 * level, registers itself for broadcasts once initialized, and writes change
 * notifications (untagged, unsolicited) through the outbox it is attached to.
 * Over HTTP that outbox is the session's GET stream, parked while none is open.
 */
import { createActor, type Actor } from 'xstate';
import { serverSessionMachine, type ServerSessionEvent, type SessionEndReason } from '../../machines/server-session.machine.ts';
import { LEGACY_VERSIONS, type ServerCapabilities } from '../protocol/versions.ts';
import { LIST_CHANGED_METHOD, type Audience, type AudienceIndex, type ListKind } from './audience-index.ts';
import type { ConcreteChange } from './bus.ts';
import { ClientRequests } from './client-requests.ts';
import { LimitExceededError } from './errors.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { Lane } from './lane.ts';
import type { Outbox } from './outbox.ts';
import type { LogLevel } from '../protocol/log-level.ts';

export type { SessionEndReason };

export interface LegacySessionOptions {
  id: string;
  capabilities: ServerCapabilities;
  index: AudienceIndex;
  maxPending: number;
  maxPendingBytes: number;
  /** An unheld session without activity for this long ends (`idle_timeout`). */
  idleMs: number;
  /** A session not initialized this long after its start ends (`initialize_timeout`); undefined: no limit (stdio). */
  initializeMs?: number;
  /** How long a request sent to the client (sampling, elicitation, roots) may wait for its answer (default: DEFAULT_LIMITS'). */
  clientRequestTimeoutMs?: number;
  /** UTF-8 bytes of the URIs the session may hold subscriptions to (default: DEFAULT_LIMITS'). */
  maxSubscribedUriBytes?: number;
  onEnd(session: LegacySession, reason: SessionEndReason): void;
}

export type SessionState = 'uninitialized' | 'initializing' | 'initialized' | 'closed';

export class LegacySession implements Audience {
  readonly id: string;
  readonly subscriptions = new Set<string>();
  /** UTF-8 bytes of the URIs in `subscriptions`. */
  private subscribedBytes = 0;
  logLevel: LogLevel | undefined;
  /** Requests sent to this session's client on behalf of handlers, awaiting answers. */
  readonly clientRequests: ClientRequests;
  private readonly actor: Actor<typeof serverSessionMachine>;
  private lane: Lane | undefined;
  private kinds: ListKind[] = [];

  constructor(private readonly options: LegacySessionOptions) {
    this.id = options.id;
    this.clientRequests = new ClientRequests(options.clientRequestTimeoutMs ?? DEFAULT_LIMITS.clientRequestTimeoutMs, (json) => this.lane?.offer(`c${json}`, json));
    this.actor = createActor(serverSessionMachine, {
      input: { supportedVersions: LEGACY_VERSIONS, idleMs: options.idleMs, initializeMs: options.initializeMs },
    });
    let registered = false;
    this.actor.subscribe((snapshot) => {
      if (snapshot.value === 'initialized' && !registered) {
        registered = true;
        this.register();
      }
      if (snapshot.status === 'done') {
        this.unregister();
        this.clientRequests.close();
        this.lane?.kill();
        this.lane = undefined;
        options.onEnd(this, snapshot.output);
      }
    });
    this.actor.start();
  }

  get state(): SessionState {
    return this.actor.getSnapshot().value;
  }

  get protocolVersion(): string | undefined {
    return this.actor.getSnapshot().context.protocolVersion;
  }

  get clientCapabilities(): Record<string, unknown> {
    return this.actor.getSnapshot().context.clientCapabilities;
  }

  /** Runs the version choice; returns the negotiated version. */
  initialize(requestedVersion: unknown, clientCapabilities: Record<string, unknown>): string {
    this.actor.send({ type: 'initialize', requestedVersion, clientCapabilities });
    return this.protocolVersion!;
  }

  initialized(): void {
    this.actor.send({ type: 'initialized' });
  }

  /** The client did something: restarts the idle time. */
  activity(): void {
    this.whileLive({ type: 'activity' });
  }

  /** Something (a request, a GET stream, a stdio connection) keeps the session from idling out until `release`. */
  hold(): void {
    this.whileLive({ type: 'hold' });
  }

  release(): void {
    this.whileLive({ type: 'release' });
  }

  /** Requests and streams may outlive their session (DELETE, idle timeout); their news is moot then. */
  private whileLive(event: ServerSessionEvent): void {
    if (this.actor.getSnapshot().status === 'active') this.actor.send(event);
  }

  /** Where unsolicited messages go from now on (stdio: the connection; HTTP: the GET stream). */
  attach(outbox: Outbox): void {
    this.lane?.kill();
    this.lane = new Lane(outbox, this.options.maxPending, this.options.maxPendingBytes, { overflowed: (overflow) => this.end(overflow) });
  }

  /** Subscribes the session to `uri`; LimitExceededError when its URIs would pass `maxSubscribedUriBytes`. */
  subscribe(uri: string): void {
    if (this.subscriptions.has(uri)) return;
    const bytes = Buffer.byteLength(uri);
    const max = this.options.maxSubscribedUriBytes ?? DEFAULT_LIMITS.maxSubscribedUriBytes;
    if (this.subscribedBytes + bytes > max) throw new LimitExceededError('maxSubscribedUriBytes', max);
    this.subscriptions.add(uri);
    this.subscribedBytes += bytes;
    this.options.index.addUri(uri, this);
  }

  unsubscribe(uri: string): void {
    if (!this.subscriptions.delete(uri)) return;
    this.subscribedBytes -= Buffer.byteLength(uri);
    this.options.index.removeUri(uri, this);
  }

  /** Ends the session; one that already ended keeps its first reason (a server closing ends its sessions, then its connections end them again). */
  end(reason: SessionEndReason): void {
    this.whileLive({ type: 'end', reason });
  }

  receive(event: ConcreteChange, uriJson: string | undefined): void {
    const lane = this.lane;
    if (!lane || this.state !== 'initialized') return;
    const { key, json } = changeFrame(event, uriJson);
    lane.offer(key, json);
  }

  /** Sends one notification a handler addressed to this session's client (an elicitation's completion), once it is initialized and while it lives. */
  notify(json: string): void {
    if (this.state === 'initialized') this.lane?.offer(`n${json}`, json);
  }

  /**
   * A reconnect the replay buffer cannot fill: what was missed is unknown, so
   * the client is told everything it listens to may have changed.
   */
  resync(): void {
    const lane = this.lane;
    if (!lane || this.state !== 'initialized') return;
    // Outside the lane's bounds: the session's own subscriptions bound it, and counted it would end a session
    // that listens to many resources (past maxPendingPerStream, or its bytes while no stream drains).
    const offer = (change: ConcreteChange, uriJson?: string) => {
      const { key, json } = changeFrame(change, uriJson);
      lane.offerUnbounded(key, json);
    };
    for (const kind of this.kinds) offer({ type: `${kind}_list_changed` });
    for (const uri of this.subscriptions) offer({ type: 'resource_updated', uri }, JSON.stringify(uri));
  }

  private register(): void {
    const caps = this.options.capabilities;
    // Only what the server advertised: a legacy client never asked, so the capability is the promise.
    if (caps.tools?.listChanged) this.kinds.push('tools');
    if (caps.prompts?.listChanged) this.kinds.push('prompts');
    if (caps.resources?.listChanged) this.kinds.push('resources');
    for (const kind of this.kinds) this.options.index.addKind(kind, this);
  }

  private unregister(): void {
    for (const kind of this.kinds) this.options.index.removeKind(kind, this);
    for (const uri of this.subscriptions) this.options.index.removeUri(uri, this);
    this.subscriptions.clear();
  }
}

/** A change event's notification, and its key in a lane (repeats of one still waiting coalesce). */
function changeFrame(event: ConcreteChange, uriJson: string | undefined): { key: string; json: string } {
  if (event.type === 'resource_updated') {
    return { key: `u${event.uri}`, json: `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":${uriJson}}}` };
  }
  return { key: event.type, json: `{"jsonrpc":"2.0","method":"${LIST_CHANGED_METHOD[event.type]}"}` };
}
