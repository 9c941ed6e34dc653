/**
 * `createChangeCache(client, options)`: tools, prompts, resources and chosen
 * resource contents from one server, kept fresh by change notifications in
 * either era. The lifecycle is machines/cache.machine.ts (bound to the client
 * by cache-io.ts); entries live in an @xstate/store store (entry-store.ts)
 * and change through the refresher (entry-refresher.ts). This file wires the
 * three together and answers reads.
 */
import { createActor, type SnapshotFrom } from 'xstate';
import { cacheMachine, DEFAULT_CACHE_RECOVERY, type CacheDegradedReason, type CacheRecovery } from '../../machines/cache.machine.ts';
import { asError } from '../../machines/errors.ts';
import type { McpClient } from '../client/client.ts';
import { connectionOf } from '../client/connection-of.ts';
import type { Clock, Inspector } from '../runtime/actor-options.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ServerCapabilities } from '../protocol/versions.ts';
import { cacheActors, fetchEntry } from './cache-io.ts';
import { entriesChangedBy, entriesCoveredBy, resourceEntry, type EntryKey } from './entries.ts';
import { createEntryStore } from './entry-store.ts';
import { EntryRefresher } from './entry-refresher.ts';
import { InvalidCacheOptionError, NotInInterestError, type CacheTimeoutOption } from './errors.ts';
import { DEFAULT_ACK_TIMEOUT_MS } from '../client/subscription.ts';
import { computeFilter, interestKeys, validateInterest, type Interest } from './interest.ts';
import type { CacheEvent, CacheRead, CacheState, ChangeCache, ReadMode } from './types.ts';

export { DEFAULT_CACHE_RECOVERY, type CacheDegradedReason, type CacheRecovery };

/** Documented default: a `wait` read gives up after 10 s. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000;
/** Documented default: a recovery attempt waits up to 30 s for the client to negotiate again. */
export const DEFAULT_NEGOTIATION_TIMEOUT_MS = 30_000;

/** Options of `createChangeCache`: what to keep current, and how the cache recovers and reads. */
export interface ChangeCacheOptions {
  /** What the application reads from this server; kept as is across negotiations. */
  interest: Interest;
  /**
   * Overrides parts of DEFAULT_CACHE_RECOVERY: `maxAttempts` bounds the connection's reconnect attempts the
   * cache waits out before it is degraded; the whole policy is the cache's own bounded backoff for a stream
   * the server ended while the connection stayed up.
   */
  recovery?: Partial<CacheRecovery>;
  /** How long a recovery attempt waits for the connection to negotiate (default 30 s). */
  negotiationTimeoutMs?: number;
  /** Default for reads that give no timeout. */
  readTimeoutMs?: number;
  /**
   * How long the cache waits for the server to acknowledge a modern listen stream, the first and each re-listen
   * (default DEFAULT_ACK_TIMEOUT_MS, 30 s); a slow server may need more. Past it the stream fails as unacknowledged
   * and the cache recovers as for any stream the server refused.
   */
  ackTimeoutMs?: number;
  /** Passed to the cache actor; defaults to the client's own `inspect` (its stream is the connection's child, seen there). */
  inspect?: Inspector;
}

/** The seams a test may set on a cache (`mcp-actors/testing`, createTestChangeCache), which ChangeCacheOptions leaves out. */
export interface CacheTestSeams {
  /** Jitter of the recovery backoff, a number in [0, 1] (1: none). */
  random?: () => number;
  /** The clock freshness (ttl) is judged by. */
  now?: () => number;
  /** Drives the cache actor's delays (the recovery backoff, the recovery window); xstate's `SimulatedClock` will do. */
  clock?: Clock;
}

/** A timeout option as given (maybe from configuration): a positive finite number of milliseconds, or InvalidCacheOptionError. */
function validTimeout(option: CacheTimeoutOption, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new InvalidCacheOptionError(option, value);
  return value;
}

type ReadOptions = { mode?: ReadMode; timeoutMs?: number };
type CacheSnapshot = SnapshotFrom<typeof cacheMachine>;

/** The public state of a machine snapshot; transient states (intersecting, interrupted) are never observed. */
function publicState(snapshot: CacheSnapshot): CacheState {
  // Paused, the stream waits out the connection's recovery: to the application the cache is recovering.
  if (snapshot.matches({ listening: 'paused' })) return 'recovering';
  // Not yet acknowledged: nothing is covered, so the cache must not claim to be listening.
  if (snapshot.matches({ listening: 'awaitingAck' })) return 'awaitingAck';
  if (snapshot.matches('listening')) return 'listening';
  const value = snapshot.value as Exclude<CacheSnapshot['value'], object>;
  if (value === 'intersecting') return 'negotiating';
  if (value === 'interrupted') return 'recovering';
  return value;
}

function stateDetail(state: CacheState, previous: CacheState, snapshot: CacheSnapshot): unknown {
  const { context } = snapshot;
  switch (state) {
    case 'recovering':
      return { attempt: context.attempt, delayMs: context.nextDelayMs, cause: context.lastCause };
    case 'negotiating':
      return { attempt: context.attempt };
    case 'awaitingAck':
      return { era: context.era, filter: context.filter };
    case 'listening':
      // Resumed: a stream was open before this one (the cache recovered, or listens again after completing or degrading).
      // Straight after its acknowledgment, the count already holds this stream.
      return { era: context.era, filter: context.filter, resumed: context.streamsOpened > (previous === 'awaitingAck' ? 1 : 0) };
    case 'noOverlap':
      return { capabilities: context.capabilities };
    case 'degraded':
      return context.degradedBy;
    case 'closed':
      return context.closedBy;
    default:
      return undefined;
  }
}

/** What `createChangeCache` returns: the cache, with its interest, its degraded reason and its actor. */
export interface ChangeCacheHandle extends ChangeCache {
  /** The interest set, validated and copied at creation. */
  readonly interest: Interest;
  /** The filter this cache would open on a server advertising `capabilities` (null: nothing), computed without opening anything. */
  filterFor(capabilities: ServerCapabilities): NotificationFilter | null;
  /** Why the cache is degraded; undefined otherwise. */
  readonly degradedBy: CacheDegradedReason | undefined;
  /** The cache actor (machines/cache.machine.ts), for inspection. */
  readonly actor: ReturnType<typeof createActor<typeof cacheMachine>>;
}

/** Keeps the lists and resource contents of `options.interest` current on `client`: fetched once at start, invalidated by the server's change notifications (a listen stream or a legacy listener) and refetched on the next read. Throws InvalidInterestError for a malformed interest set. `options` may carry the test seams of `mcp-actors/testing` (createTestChangeCache); ChangeCacheOptions does not name them. */
export function createChangeCache(client: McpClient, options: ChangeCacheOptions): ChangeCacheHandle {
  const seams = options as ChangeCacheOptions & CacheTestSeams;
  // Interest may come from configuration: checked, and copied so later changes to it change nothing.
  const interest: Interest = validateInterest(options.interest);
  const known = new Set(interestKeys(interest));
  const now = seams.now ?? Date.now;
  const readTimeoutMs = validTimeout('readTimeoutMs', options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const negotiationTimeoutMs = validTimeout('negotiationTimeoutMs', options.negotiationTimeoutMs ?? DEFAULT_NEGOTIATION_TIMEOUT_MS);
  const ackTimeoutMs = validTimeout('ackTimeoutMs', options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS);
  const inspect = options.inspect ?? client.inspect;
  const listeners = new Set<(event: CacheEvent) => void>();
  // A listener that throws is reported as a throwing `client.on` handler is (through `client.onError`): the other
  // listeners, the refetch it interrupted and the cache's actor go on.
  const emit = (event: CacheEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        connectionOf(client).report(asError(error));
      }
    }
  };
  const store = createEntryStore([...known]);
  const refresher = new EntryRefresher({ store, fetch: (key) => fetchEntry(client, key), emit, now, awaitStart: true });
  const ours = (keys: EntryKey[]) => keys.filter((key) => known.has(key));

  const machine = cacheMachine.provide({
    actors: cacheActors(client, {
      negotiationTimeoutMs,
      ackTimeoutMs,
      ...(inspect ? { inspect } : {}),
    }),
  });
  const actor = createActor(machine, {
    input: {
      intersect: (capabilities) => computeFilter(interest, capabilities as ServerCapabilities),
      recovery: { ...DEFAULT_CACHE_RECOVERY, ...options.recovery },
      random: seams.random ?? Math.random,
    },
    ...(inspect ? { inspect } : {}),
    ...(seams.clock ? { clock: seams.clock } : {}),
  });

  actor.on('cache.covered', (event) => refresher.covered(ours(entriesCoveredBy(event.filter))));
  actor.on('cache.uncovered', () => refresher.uncovered());
  actor.on('cache.started', () => refresher.started());
  actor.on('cache.invalidate', (event) => {
    for (const key of ours(entriesCoveredBy(event.filter))) refresher.gap(key);
  });
  actor.on('cache.notification', (event) => {
    emit({ type: 'notification', method: event.method, params: (event.params ?? {}) as JsonObject });
    for (const key of ours(entriesChangedBy(event.method, event.params))) refresher.changed(key);
  });

  let state: CacheState = 'idle';
  actor.subscribe((snapshot) => {
    const next = publicState(snapshot);
    if (next === state) return;
    const previous = state;
    state = next;
    // Ended before the event goes out, so a listener that reads on `closed` is refused.
    if (snapshot.status === 'done') end();
    emit({ type: 'state', state: next, previous, detail: stateDetail(next, previous, snapshot) });
  });

  let closed = false;
  /** Stops following the client and refuses reads; the actor is stopped by `close()` or has ended on its own. */
  const end = () => {
    closed = true;
    forwarding.unsubscribe();
    refresher.close();
  };

  const forwarding = client.on('*', (event) => {
    if (event.type === 'connection.ready') {
      actor.send({ type: 'connection.ready', era: event.era, generation: event.generation, capabilities: event.negotiated.capabilities });
    } else if (event.type === 'connection.lost' || event.type === 'connection.reconnecting' || event.type === 'connection.closed') {
      actor.send(event);
    }
  });

  const read = async <T>(key: EntryKey, { mode = 'wait', timeoutMs = readTimeoutMs }: ReadOptions): Promise<CacheRead<T>> => {
    if (!known.has(key)) throw new NotInInterestError(key);
    return refresher.read<T>(key, mode, timeoutMs);
  };

  // Started a microtask later, so a subscriber attached right after creation sees every event.
  queueMicrotask(() => {
    if (closed) return;
    actor.start();
    actor.send({ type: 'cache.start' });
  });

  async function close(): Promise<void> {
    if (closed && actor.getSnapshot().status !== 'active') return;
    end();
    actor.stop();
  }

  return {
    interest,
    actor,
    get state() {
      return state;
    },
    get filter(): NotificationFilter | null {
      return actor.getSnapshot().context.filter;
    },
    filterFor: (capabilities) => computeFilter(interest, capabilities),
    get degradedBy() {
      return actor.getSnapshot().context.degradedBy;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tools: (options = {}) => read<JsonObject[]>('tools', options),
    prompts: (options = {}) => read<JsonObject[]>('prompts', options),
    resources: (options = {}) => read<JsonObject[]>('resources', options),
    contents: (uri, options = {}) => read<JsonObject>(resourceEntry(uri), options),
    close,
    [Symbol.asyncDispose]: close,
  };
}
