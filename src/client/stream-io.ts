/**
 * The actors of machines/subscription.machine.ts, provided once for every
 * stream (a `.provide()` per stream would rebuild the state tree each time:
 * seconds and megabytes at 10,000 streams). Each actor finds its stream's
 * I/O, a `StreamIo`, through the subscription actor that invoked it.
 *
 * The hot path never reaches the machine: the port calls `dispatch`, which
 * calls the route the current state installed (a filter check and a mailbox
 * push in `active`, a holding buffer in `resyncing`, nothing otherwise).
 */
import { fromCallback, fromPromise, type AnyActorRef, type EventObject } from 'xstate';
import {
  subscriptionMachine,
  type DeliveryInput,
  type ListenCommand,
  type ListenInput,
  type ResyncInput,
  type SubscriptionEvent,
} from '../../machines/subscription.machine.ts';
import { filterAllows } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { Mailbox } from './mailbox.ts';
import type { ResyncSnapshot, SubscriptionRef } from './messages.ts';
import type { ListenHandle, ListenPort } from './ports.ts';
import { fetchResyncSnapshot } from './resync-snapshot.ts';

type Route = (method: string, params: JsonObject) => void;

/** One stream's I/O: its port, its mailbox, and the route its machine's state installed. */
export class StreamIo {
  /** Installed by `delivery` (active) or `holding` (resyncing); undefined otherwise. */
  route: Route | undefined = undefined;
  held: [string, JsonObject][] = [];
  readonly dispatch: Route = (method, params) => {
    const route = this.route;
    if (route !== undefined) route(method, params);
  };

  constructor(
    readonly port: ListenPort,
    readonly ref: SubscriptionRef,
    readonly mailbox: Mailbox,
    /** Most events held during a resync: the mailbox cap, since they are in flight too. */
    readonly holdCap: number,
    /** Sends to the subscription actor while it runs. */
    readonly send: (event: SubscriptionEvent) => void,
  ) {}
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
        handle = io.port.openListen(input.subscriptionId, input.filter, {
          acknowledged: (honored) => sendBack({ type: 'listen.acknowledged', honored }),
          notification: io.dispatch,
          result: (result) => sendBack({ type: 'listen.result', result }),
          error: (error) => sendBack({ type: 'listen.error', error }),
          cancelled: (reason) => sendBack({ type: 'listen.cancelled', reason }),
          ended: (cause) => sendBack({ type: 'listen.ended', cause }),
        });
      } catch (cause) {
        sendBack({ type: 'listen.ended', cause });
      }
      receive(() => handle?.cancel());
      return () => handle?.release();
    }),
    delivery: fromCallback<EventObject, DeliveryInput>(({ self, input }) => {
      const io = ioOf(self);
      const { honored } = input;
      const { mailbox, ref } = io;
      const deliver: Route = (method, params) => {
        if (filterAllows(honored, method, params)) mailbox.push({ type: 'notification', ref, method, params });
      };
      // The machine hands over the snapshot its resync actor produced.
      if (input.resynced) mailbox.push({ type: 'reconnected', ref, snapshot: input.resynced as ResyncSnapshot });
      const backlog = io.held;
      io.held = [];
      for (const [method, params] of backlog) deliver(method, params);
      io.route = deliver;
      return () => {
        if (io.route === deliver) io.route = undefined;
      };
    }),
    holding: fromCallback(({ self }) => {
      const io = ioOf(self);
      io.held = [];
      const hold: Route = (method, params) => {
        if (io.held.length >= io.holdCap) io.send({ type: 'delivery.dropped', cap: io.holdCap });
        else io.held.push([method, params]);
      };
      io.route = hold;
      return () => {
        if (io.route === hold) io.route = undefined;
      };
    }),
    resync: fromPromise<object, ResyncInput>(({ self, input, signal }) => fetchResyncSnapshot(ioOf(self).port, input.honored, signal)),
  },
});
