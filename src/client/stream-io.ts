/**
 * The actors of machines/subscription.machine.ts, provided once for every
 * stream (a `.provide()` per stream would rebuild the state tree each time:
 * seconds and megabytes at 10,000 streams). Each actor finds its stream's
 * I/O, a `StreamIo`, through the subscription actor that invoked it.
 *
 * The hot path never reaches the machine: the router calls the stream's
 * `dispatch`, which does what the current state's route says (a filter check
 * and a mailbox push in `active`, a holding buffer in `resyncing`, nothing
 * otherwise). The routes are modes of one object, not closures, and the
 * listen handlers are methods: with 10,000 streams open, every closure kept
 * per stream is ~0.3 KB under tsx (esbuild's keepNames gives each named
 * closure its own property dictionary).
 */
import { fromCallback, fromPromise, type AnyActorRef, type EventObject } from 'xstate';
import {
  subscriptionMachine,
  type DeliveryInput,
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

/** Where the stream's owner receives what its I/O decides (a shed delivery). */
export interface StreamOwner {
  /** Sends to the subscription actor while it runs. */
  send(event: SubscriptionEvent): void;
}

/** One stream's I/O: its port, its mailbox, and the route its machine's state installed. */
export class StreamIo {
  /** `deliver` while `delivery` runs (active), `hold` while `holding` runs (resyncing). */
  private route: 'none' | 'deliver' | 'hold' = 'none';
  private honored: NotificationFilter = {};
  /** Events held during a resync, in order; allocated only then. */
  private held: [string, JsonObject][] | undefined;

  constructor(
    readonly port: ListenPort,
    readonly ref: SubscriptionRef,
    readonly mailbox: Mailbox,
    /** Most events held during a resync: the mailbox cap, since they are in flight too. */
    readonly holdCap: number,
    readonly owner: StreamOwner,
  ) {}

  dispatch(method: string, params: JsonObject): void {
    if (this.route === 'deliver') {
      if (filterAllows(this.honored, method, params)) this.mailbox.push({ type: 'notification', ref: this.ref, method, params });
    } else if (this.route === 'hold') {
      const held = (this.held ??= []);
      if (held.length >= this.holdCap) this.owner.send({ type: 'delivery.dropped', cap: this.holdCap });
      else held.push([method, params]);
    }
  }

  /** `active`: hands over the resync snapshot if any, flushes what was held, then delivers directly. */
  startDelivery(honored: NotificationFilter, resynced: ResyncSnapshot | undefined): void {
    this.honored = honored;
    this.route = 'deliver';
    if (resynced) this.mailbox.push({ type: 'reconnected', ref: this.ref, snapshot: resynced });
    const backlog = this.held;
    this.held = undefined;
    if (backlog) for (const [method, params] of backlog) this.dispatch(method, params);
  }

  /** `resyncing`: holds everything in order until delivery starts again. */
  startHolding(): void {
    this.held = undefined;
    this.route = 'hold';
  }

  stopRoute(route: 'deliver' | 'hold'): void {
    if (this.route === route) this.route = 'none';
  }
}

/** What the peer sends for one run of the `listen` actor, reported to the machine (notifications take the route). */
class ListenWire implements ListenHandlers {
  constructor(
    private readonly io: StreamIo,
    private readonly sendBack: (event: ListenWireEvent) => void,
  ) {}

  acknowledged(honored: NotificationFilter): void {
    this.sendBack({ type: 'listen.acknowledged', honored });
  }

  notification(method: string, params: JsonObject): void {
    this.io.dispatch(method, params);
  }

  result(result: JsonObject): void {
    this.sendBack({ type: 'listen.result', result });
  }

  error(error: RpcError): void {
    this.sendBack({ type: 'listen.error', error });
  }

  cancelled(reason: string | undefined): void {
    this.sendBack({ type: 'listen.cancelled', reason });
  }

  ended(cause: unknown): void {
    this.sendBack({ type: 'listen.ended', cause });
  }
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

export const listenStreamMachine = subscriptionMachine.provide({
  actors: {
    listen: fromCallback<ListenCommand, ListenInput>(({ self, input, sendBack, receive }) => {
      const io = ioOf(self);
      let handle: ListenHandle | undefined;
      try {
        handle = io.port.openListen(input.subscriptionId, input.filter, new ListenWire(io, sendBack));
      } catch (cause) {
        sendBack({ type: 'listen.ended', cause });
      }
      receive(() => handle?.cancel());
      return () => handle?.release();
    }),
    delivery: fromCallback<EventObject, DeliveryInput>(({ self, input }) => {
      const io = ioOf(self);
      // The machine hands over the snapshot its resync actor produced.
      io.startDelivery(input.honored, input.resynced as ResyncSnapshot | undefined);
      return () => io.stopRoute('deliver');
    }),
    holding: fromCallback(({ self }) => {
      const io = ioOf(self);
      io.startHolding();
      return () => io.stopRoute('hold');
    }),
    resync: fromPromise<object, ResyncInput>(({ self, input, signal }) => fetchResyncSnapshot(ioOf(self).port, input.honored, signal)),
  },
});
