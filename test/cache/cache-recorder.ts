/**
 * Records a change cache's events in order and lets a test wait for one that
 * matches, so tests follow what the cache reports instead of sleeping.
 */
import type { ChangeCache, CacheEvent, CacheState, EntryKey } from '../../src/cache/types.ts';

type Step = 'invalidated' | 'refetching' | 'replaced' | 'refetch_failed';

export function recordCache(cache: ChangeCache) {
  const events: CacheEvent[] = [];
  const waiters: { match(event: CacheEvent): boolean; resolve(event: CacheEvent): void }[] = [];
  cache.subscribe((event) => {
    events.push(event);
    for (const waiter of [...waiters]) {
      if (!waiter.match(event)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  });
  /** The first matching event recorded at index `from` or later, waiting for it if need be. */
  const next = (match: (event: CacheEvent) => boolean, from: number) => {
    const seen = events.slice(from).find(match);
    return seen ? Promise.resolve(seen) : new Promise<CacheEvent>((resolve) => waiters.push({ match, resolve }));
  };
  const state = (wanted: CacheState, from = 0) =>
    next((event) => event.type === 'state' && event.state === wanted, from) as Promise<Extract<CacheEvent, { type: 'state' }>>;
  const replaced = (key: EntryKey, from: number) => next((event) => event.type === 'replaced' && event.key === key, from);
  /** Entry steps since `from`, as `step key`. */
  const steps = (from = 0) =>
    events
      .slice(from)
      .flatMap((event) => (event.type === 'invalidated' || event.type === 'refetching' || event.type === 'replaced' || event.type === 'refetch_failed' ? [`${event.type as Step} ${event.key}`] : []));
  const states = (from = 0) => events.slice(from).flatMap((event) => (event.type === 'state' ? [event.state] : []));
  return { events, next, state, replaced, steps, states, mark: () => events.length };
}
