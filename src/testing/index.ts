/**
 * `mcp-actors/testing`: what tests need and applications do not. A client
 * whose reconnect backoff, ack timeouts and jitter run on a simulated clock
 * and a fixed random source, a change cache with its jitter and freshness
 * clock set, xstate's simulated clock itself, the in-memory linked transport
 * pair, and read-only access to the actors a client keeps private (for
 * assertions on their state).
 */
import { SimulatedClock as XstateSimulatedClock, type AnyActorRef } from 'xstate';
import { createChangeCache, type CacheTestSeams, type ChangeCacheHandle, type ChangeCacheOptions } from '../cache/change-cache.ts';
import { McpClient, type ClientOptions } from '../client/client.ts';
import { connectionOf } from '../client/connection-of.ts';
import { subscriptionActorOf, type ListenStream, type SubscriptionActor } from '../client/subscription.ts';
import type { Clock } from '../runtime/actor-options.ts';

/** xstate's simulated clock, a `Clock`: `increment(ms)` runs every delay due meanwhile, so a test never sleeps. */
export class SimulatedClock extends XstateSimulatedClock {}
/** The in-memory linked pair (also exported by `mcp-actors`; its other types are there): our client and a server in one process. */
export { inMemoryTransport, type InMemoryClientTransport, type InMemoryServe } from '../transport/in-memory.ts';
export type { Clock } from '../runtime/actor-options.ts';
export type { SubscriptionActor } from '../client/subscription.ts';
export type { CacheTestSeams } from '../cache/change-cache.ts';

/** The seams a test may set on a client, which `ClientOptions` leaves out. */
export interface TestSeams {
  /** Drives the reconnect backoff, the liveness probe timeout and every stream's ack timeout and re-listen backoff (xstate's `SimulatedClock` will do). */
  clock?: Clock;
  /** A number in [0, 1) for the backoff's jitter; `Math.random` by default. */
  random?: () => number;
}

/** A client as `createClient` makes it, with the test seams set. */
export function createTestClient(options: ClientOptions & TestSeams): McpClient {
  return new McpClient(options);
}

/** A change cache as `createChangeCache` makes it, with the test seams (jitter, the freshness clock, the clock of its delays) set. */
export function createTestChangeCache(client: McpClient, options: ChangeCacheOptions & CacheTestSeams): ChangeCacheHandle {
  return createChangeCache(client, options);
}

/** A client's connection actor (machines/connection.machine.ts), read-only for assertions: its state, its children. */
export function connectionActorOf(client: McpClient): AnyActorRef {
  return connectionOf(client).actor;
}

/** A listen stream's subscription actor (machines/subscription.machine.ts, on the lean runtime), for assertions on its state. */
export function streamActorOf(stream: ListenStream): SubscriptionActor {
  const actor = subscriptionActorOf(stream);
  if (!actor) throw new TypeError('not a listen stream of mcp-actors');
  return actor;
}
