/**
 * The actors of machines/subscription.machine.ts, provided once for every
 * stream (a `.provide()` per stream would rebuild the state tree each time:
 * seconds and megabytes at 10,000 streams). Each actor finds its stream's
 * I/O, a `StreamIo`, through the subscription actor that invoked it.
 *
 * The hot path never reaches the machine: the port calls the `listen`
 * actor's `notification` handler, which does what the route the machine last
 * set says (a filter check and a mailbox push in `active`, a holding buffer in
 * `resyncing`, nothing otherwise). The routes are modes of one object, not
 * closures, and the listen handlers are methods: with 10,000 streams open,
 * every closure kept per stream is ~0.3 KB under tsx (esbuild's keepNames
 * gives each named closure its own property dictionary).
 */
import { fromPromise, type AnyActorRef, type CallbackActorLogic, type EventObject } from 'xstate';
import {
  subscriptionMachine,
  type ListenCommand,
  type ListenInput,
  type ListenWireEvent,
  type ResyncInput,
  type SubscriptionEvent,
} from '../../machines/subscription.machine.ts';
import { filterAllows, type NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { RpcError } from '../protocol/errors.ts';
import type { Mailbox } from './mailbox.ts';
import type { ResyncSnapshot, SubscriptionRef } from './messages.ts';
import type { ListenHandle, ListenHandlers, ListenPort } from './ports.ts';
import { fetchResyncSnapshot } from './resync-snapshot.ts';

/** One stream's I/O, shared by the runs of its `listen` actor (the stream object itself implements it). */
export interface StreamIo {
  readonly port: ListenPort;
  readonly ref: SubscriptionRef;
  readonly mailbox: Mailbox;
  /** Most events held during a resync: the mailbox cap, since they are in flight too. */
  readonly holdCap: number;
  /** Sends to the subscription actor while it runs. */
  send(event: SubscriptionEvent): void;
}

/**
 * One run of the `listen` actor, which is also its snapshot: the wire stream
 * and the route its notifications take. What the peer sends is reported to
 * the machine; notifications go along the route the machine set. Hand-written
 * logic rather than `fromCallback`, which keeps a state object, a set of
 * receivers and three closures per run (~0.3 KB at 10,000 streams).
 */
class ListenRun {
  status: 'active' | 'stopped' = 'active';
  readonly output = undefined;
  readonly error = undefined;
  /** `deliver` in `active`, `hold` in `resyncing`, `none` otherwise. */
  private route: 'none' | 'deliver' | 'hold' = 'none';
  private honored: NotificationFilter = {};
  /** Events held during a resync, in order; allocated on the first one. */
  private held: [string, JsonObject][] | undefined;
  private handle: ListenHandle | undefined;
  /** Set on start: the parent machine builds its first state (and this run) before its stream binds it. */
  private io!: StreamIo;

  constructor(
    private readonly self: AnyActorRef,
    readonly input: ListenInput,
  ) {}

  open(io: StreamIo): void {
    this.io = io;
    try {
      this.handle = this.io.port.openListen(this.input.subscriptionId, this.input.filter, new ListenWire(this));
    } catch (cause) {
      this.sendBack({ type: 'listen.ended', cause });
    }
  }

  command(command: ListenCommand): void {
    switch (command.type) {
      case 'listen.cancel':
        this.handle?.cancel();
        return;
      case 'route.deliver':
        // The machine hands over the snapshot its resync actor produced.
        this.startDelivery(command.honored, command.resynced as ResyncSnapshot | undefined);
        return;
      case 'route.hold':
        this.held = undefined;
        this.route = 'hold';
        return;
      case 'route.stop':
        this.route = 'none';
        return;
    }
  }

  release(): void {
    this.status = 'stopped';
    this.route = 'none';
    this.handle?.release();
  }

  /** Reports to the subscription actor until this run is stopped. */
  sendBack(event: ListenWireEvent): void {
    if (this.status === 'active') this.self._parent?.send(event);
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

  notification(method: string, params: JsonObject): void {
    if (this.route === 'deliver') {
      if (filterAllows(this.honored, method, params)) this.io.mailbox.push({ type: 'notification', ref: this.io.ref, method, params });
    } else if (this.route === 'hold') {
      const held = (this.held ??= []);
      if (held.length >= this.io.holdCap) this.io.send({ type: 'delivery.dropped', cap: this.io.holdCap });
      else held.push([method, params]);
    }
  }
}

/** What the peer sends for one run, as the port's handlers (a snapshot cannot also have an `error` method). */
class ListenWire implements ListenHandlers {
  constructor(private readonly run: ListenRun) {}

  notification(method: string, params: JsonObject): void {
    this.run.notification(method, params);
  }

  acknowledged(honored: NotificationFilter): void {
    // Usually the server honors the request as sent: keep one copy of it per stream, not two.
    const requested = this.run.input.filter;
    this.run.sendBack({ type: 'listen.acknowledged', honored: sameFilter(honored, requested) ? requested : honored });
  }

  result(result: JsonObject): void {
    this.run.sendBack({ type: 'listen.result', result });
  }

  error(error: RpcError): void {
    this.run.sendBack({ type: 'listen.error', error });
  }

  cancelled(reason: string | undefined): void {
    this.run.sendBack({ type: 'listen.cancelled', reason });
  }

  ended(cause: unknown): void {
    this.run.sendBack({ type: 'listen.ended', cause });
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

const streams = new WeakMap<AnyActorRef, StreamIo>();

/** Binds a subscription actor to its I/O; call before starting it. */
export function bindStreamIo(actor: AnyActorRef, io: StreamIo): void {
  streams.set(actor, io);
}

function ioOf(child: AnyActorRef): StreamIo {
  const io = child._parent && streams.get(child._parent);
  if (!io) throw new Error('subscription actor started without bindStreamIo');
  return io;
}

const listenLogic: CallbackActorLogic<ListenCommand, ListenInput> = {
  // The run is the actor's snapshot: a `CallbackSnapshot` with the run's state on it.
  getInitialSnapshot: ({ self }, input) => new ListenRun(self, input),
  start: (run, { self }) => {
    if (run instanceof ListenRun) run.open(ioOf(self));
  },
  transition: (run, event) => {
    if (!(run instanceof ListenRun)) return run;
    // `xstate.stop` is what the machine sends when it leaves `listening`.
    if ((event as EventObject).type === 'xstate.stop') run.release();
    else run.command(event);
    return run;
  },
  getPersistedSnapshot: (run) => run,
};

export const listenStreamMachine = subscriptionMachine.provide({
  actors: {
    listen: listenLogic,
    resync: fromPromise<object, ResyncInput>(({ self, input, signal }) => fetchResyncSnapshot(ioOf(self).port, input.honored, signal)),
  },
});
