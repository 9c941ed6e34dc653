/**
 * The client's lifecycle as a typed status: the connection machine's state
 * (a dotted name whose union is derived from the machine's own type), the
 * era and generation of the last negotiation, and why it closed. `status()`
 * streams it: the current status first, then each change, ending after
 * `closed`.
 */
import type { Actor, StateValueFrom } from 'xstate';
import type { ConnectionClosedReason } from '../../machines/closed-reason.ts';
import type { ConnectionEmitted, connectionMachine } from '../../machines/connection.machine.ts';
import type { Era } from '../protocol/versions.ts';

/** Every dotted path of a state value type: `idle`, `online`, `online.ready.modern`, … */
type DottedPaths<V> = V extends string ? V : { [K in keyof V & string]-?: `${K}.${DottedPaths<NonNullable<V[K]>>}` }[keyof V & string];

/** The paths no longer path extends: the leaf states. */
type Leaves<P extends string, All extends string = P> = P extends unknown ? ([Extract<All, `${P}.${string}`>] extends [never] ? P : never) : never;

/**
 * The connection's state, e.g. `online.ready.modern` or `reconnecting`: the
 * union of the connection machine's leaf states (machines/connection.machine.ts),
 * derived from its type, so a misspelt state is a compile error.
 */
export type ClientState = Leaves<DottedPaths<StateValueFrom<typeof connectionMachine>>>;

/** The connection's status; switch on `state`. */
export type ClientStatus =
  /** Ready in the legacy era; `generation` counts successful negotiations (1 for the first). */
  | { state: 'online.ready.legacy'; era: 'legacy'; generation: number }
  /** Ready in the modern era. */
  | { state: 'online.ready.modern'; era: 'modern'; generation: number }
  /** Ended for good, and why. */
  | { state: 'closed'; reason: ConnectionClosedReason; generation: number }
  /** On the way (connecting, negotiating, reconnecting, …); `era` is the last negotiated one, if any. */
  | { state: Exclude<ClientState, 'online.ready.legacy' | 'online.ready.modern' | 'closed'>; era: Era | undefined; generation: number };

/**
 * A lifecycle event of the client, as the connection machine emits it:
 * `connection.ready` (with what was negotiated), `connection.lost`,
 * `connection.reconnecting`, `connection.era_changed`, `connection.failed`
 * (a first connect that failed) and `connection.closed`. Errors that do not
 * end the connection are not lifecycle: see `McpClient.onError`.
 */
export type ClientEvent = ConnectionEmitted;

/** The type of one lifecycle event, or `*` for all of them. */
export type ClientEventType = ClientEvent['type'] | '*';

/** The event `on(type, …)` hands its handler: that type's, or any of them for `*`. */
export type ClientEventOf<T extends ClientEventType> = T extends '*' ? ClientEvent : Extract<ClientEvent, { type: T }>;

/** The dotted name of a state value (`{ online: { ready: 'modern' } }` → `online.ready.modern`). */
export function dottedState(value: StateValueFrom<typeof connectionMachine>): ClientState {
  if (typeof value === 'string') return value as ClientState;
  return Object.entries(value)
    .map(([key, inner]) => `${key}.${dottedState(inner as StateValueFrom<typeof connectionMachine>)}`)
    .join(',') as ClientState;
}

type ConnectionSnapshot = ReturnType<Actor<typeof connectionMachine>['getSnapshot']>;

/** The status a snapshot of the connection actor shows. */
export function statusOf(snapshot: ConnectionSnapshot): ClientStatus {
  const state = dottedState(snapshot.value);
  const { generation, negotiated, closedReason } = snapshot.context;
  if (state === 'closed') return { state, reason: closedReason!, generation };
  if (state === 'online.ready.legacy') return { state, era: 'legacy', generation };
  if (state === 'online.ready.modern') return { state, era: 'modern', generation };
  return { state, era: negotiated?.era, generation };
}

const sameStatus = (a: ClientStatus, b: ClientStatus) => a.state === b.state && a.generation === b.generation;

/**
 * The statuses of a connection actor as an async iterable: each iteration
 * starts with the current status, yields every change (context-only
 * snapshots are skipped), and ends after `closed`. Changes queue while the
 * consumer is busy; they are few (one per transition, bounded per outage by
 * the reconnect attempts). Breaking out of the loop unsubscribes.
 */
export function statusStream(actor: Actor<typeof connectionMachine>): AsyncIterable<ClientStatus> {
  return {
    [Symbol.asyncIterator]() {
      const queue: ClientStatus[] = [statusOf(actor.getSnapshot())];
      let last = queue[0]!;
      let done = last.state === 'closed';
      let wake: (() => void) | undefined;
      const subscription = done
        ? undefined
        : actor.subscribe({
            next: (snapshot) => {
              const status = statusOf(snapshot);
              if (sameStatus(status, last)) return;
              last = status;
              queue.push(status);
              if (status.state === 'closed') finish();
              wake?.();
            },
            complete: () => {
              finish();
              wake?.();
            },
          });
      function finish() {
        done = true;
        subscription?.unsubscribe();
      }
      return {
        async next(): Promise<IteratorResult<ClientStatus>> {
          while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const status = queue.shift();
          return status === undefined ? { done: true, value: undefined } : { done: false, value: status };
        },
        async return(): Promise<IteratorResult<ClientStatus>> {
          finish();
          queue.length = 0;
          wake?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
