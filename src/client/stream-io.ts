/**
 * The I/O of machines/subscription.machine.ts: a `StreamWire` per stream
 * carries out what the machine emits (open, cancel and release the wire
 * stream; set the route; fetch the resync snapshot) and reports back what
 * the wire and the fetch say, as events.
 *
 * The hot path never reaches the machine: the port calls the wire's
 * `notification` handler, which does what the route the machine last set
 * says (a filter check and a mailbox push in `active`, a holding buffer in
 * `resyncing`, nothing otherwise). The routes are modes of one object, not
 * closures, and the listen handlers are methods: with 10,000 streams open,
 * every closure kept per stream is ~0.3 KB under tsx (esbuild's keepNames
 * gives each named closure its own property dictionary).
 */
import type { ListenCommand, ListenInput, ListenWireEvent, ResyncEvent, SubscriptionEvent } from '../../machines/subscription.machine.ts';
import { filterAllows, type FilterError, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { RpcError } from '../protocol/errors.ts';
import type { Mailbox } from './mailbox.ts';
import type { ResyncSnapshot, SubscriptionRef } from './messages.ts';
import type { ListenHandle, ListenHandlers, ListenPort } from './ports.ts';
import { fetchResyncSnapshot } from './resync-snapshot.ts';

/** One stream's I/O (the stream object itself implements it). */
export interface StreamIo {
  readonly port: ListenPort;
  readonly ref: SubscriptionRef;
  readonly mailbox: Mailbox;
  /** Sends to the subscription actor (ignored once it is over). */
  send(event: SubscriptionEvent): void;
}

/**
 * Carries out what one stream's machine emits: the wire stream of the
 * current `listening` run and the route its notifications take.
 */
export class StreamWire {
  /** `deliver` in `active`, `hold` in `resyncing`, `none` otherwise. */
  private route: 'none' | 'deliver' | 'hold' = 'none';
  private honored: NotificationFilter = {};
  /** Events held during a resync, in order; allocated on the first one. */
  private held: [string, JsonObject][] | undefined;
  private handle: ListenHandle | undefined;
  /** The resync fetch in flight; a cancelled one's answer is ignored. */
  private resyncing: AbortController | undefined;
  /** The handlers of the current run; a released run's are ignored. */
  current: ListenHandlers | undefined;
  /** Whether anything (a keep-alive, a notification) arrived since the machine last asked (`activity.report`). */
  private heard = false;
  /** Whether the current run's first keep-alive was reported (`listen.keep_alive`, once per run). */
  private keepAliveReported = false;

  constructor(private readonly io: StreamIo) {}

  /** Runs inside the actor's emit, where a throw would only be reported as unhandled: a failure ends the wire stream instead. */
  perform(command: ListenCommand): void {
    try {
      this.carryOut(command);
    } catch (cause) {
      this.report({ type: 'listen.ended', cause });
    }
  }

  private carryOut(command: ListenCommand): void {
    switch (command.type) {
      case 'listen.open':
        this.open(command);
        return;
      case 'listen.cancel':
        this.handle?.cancel();
        return;
      case 'listen.release':
        this.release();
        return;
      case 'route.deliver':
        // The machine hands over the snapshot the resync fetch produced.
        this.startDelivery(command.honored, command.resynced as ResyncSnapshot | undefined);
        return;
      case 'route.hold':
        this.held = undefined;
        this.route = 'hold';
        return;
      case 'route.stop':
        this.route = 'none';
        return;
      case 'resync.start':
        this.startResync(command.honored);
        return;
      case 'resync.cancel':
        this.cancelResync();
        return;
      case 'activity.report':
        this.report({ type: 'listen.activity', heard: this.heard });
        this.heard = false;
        return;
    }
  }

  /** Drops the wire stream of the current run and any resync fetch: also what an actor that ended in error needs. */
  release(): void {
    const handle = this.handle;
    this.current = this.handle = undefined;
    this.route = 'none';
    this.held = undefined;
    this.cancelResync();
    handle?.release();
  }

  /** Reports to the subscription actor. */
  report(event: ListenWireEvent | ResyncEvent): void {
    this.io.send(event);
  }

  notification(method: string, params: JsonObject): void {
    this.heard = true;
    if (this.route === 'deliver') {
      if (filterAllows(this.honored, method, params)) this.io.mailbox.push({ type: 'notification', ref: this.io.ref, method, params });
    } else if (this.route === 'hold') {
      // The machine counts what is held and decides when it is too much; a stopped route keeps nothing.
      this.io.send({ type: 'notification.held' });
      if (this.route === 'hold') (this.held ??= []).push([method, params]);
    }
  }

  /** A keep-alive on the current run: a sign of life, and the first one tells the machine its server sends them. */
  keepAlive(): void {
    this.heard = true;
    if (this.keepAliveReported) return;
    this.keepAliveReported = true;
    this.report({ type: 'listen.keep_alive' });
  }

  private open({ subscriptionId, filter }: ListenInput): void {
    const handlers = new ListenRun(this, filter);
    this.current = handlers;
    this.heard = this.keepAliveReported = false;
    try {
      this.handle = this.io.port.openListen(subscriptionId, filter, handlers);
    } catch (cause) {
      this.report({ type: 'listen.ended', cause });
    }
  }

  private startResync(honored: NotificationFilter): void {
    const run = new AbortController();
    this.resyncing = run;
    fetchResyncSnapshot(this.io.port, honored, run.signal).then(
      (snapshot) => this.resyncing === run && this.finishResync({ type: 'resync.done', snapshot }),
      (error: unknown) => this.resyncing === run && this.finishResync({ type: 'resync.failed', error }),
    );
  }

  private finishResync(event: ResyncEvent): void {
    this.resyncing = undefined;
    this.report(event);
  }

  private cancelResync(): void {
    const run = this.resyncing;
    this.resyncing = undefined;
    run?.abort();
  }

  /** Hands over the resync snapshot if any, flushes what was held, then delivers directly. */
  private startDelivery(honored: NotificationFilter, resynced: ResyncSnapshot | undefined): void {
    this.honored = honored;
    this.route = 'deliver';
    if (resynced) this.io.mailbox.push({ type: 'reconnected', ref: this.io.ref, snapshot: resynced });
    const backlog = this.held;
    this.held = undefined;
    if (backlog) for (const [method, params] of backlog) this.notification(method, params);
  }
}

/** What the peer sends during one `listening` run, until the machine releases it. */
class ListenRun implements ListenHandlers {
  constructor(
    private readonly wire: StreamWire,
    private readonly requested: NotificationFilter,
  ) {}

  notification(method: string, params: JsonObject): void {
    if (this.wire.current === this) this.wire.notification(method, params);
  }

  acknowledged(honored: NotificationFilter): void {
    // Usually the server honors the request as sent: keep one copy of it per stream, not two.
    this.report({ type: 'listen.acknowledged', honored: sameFilter(honored, this.requested) ? this.requested : honored });
  }

  malformedAcknowledgment(error: FilterError): void {
    this.report({ type: 'listen.ack_malformed', error });
  }

  result(result: JsonObject): void {
    this.report({ type: 'listen.result', result });
  }

  error(error: RpcError): void {
    this.report({ type: 'listen.error', error });
  }

  cancelled(reason: string | undefined): void {
    this.report({ type: 'listen.cancelled', reason });
  }

  ended(cause: unknown): void {
    this.report({ type: 'listen.ended', cause });
  }

  keepAlive(): void {
    if (this.wire.current === this) this.wire.keepAlive();
  }

  private report(event: ListenWireEvent): void {
    if (this.wire.current === this) this.wire.report(event);
  }
}

/** Same keys in the same order, same values (lists element by element): nothing observable tells the two apart. */
function sameFilter(a: NotificationFilter, b: NotificationFilter): boolean {
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as keyof NotificationFilter;
    if (key !== otherKeys[i]) return false;
    const x: unknown = a[key];
    const y: unknown = b[key];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length || x.some((item, j) => item !== y[j])) return false;
  }
  return true;
}
