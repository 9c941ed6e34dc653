/**
 * The cache's entries in an `@xstate/store` store: each entry's value and
 * where it stands (empty, valid, invalid, refetching), when it was fetched,
 * the server's `ttlMs` hint, and whether a live stream backs it. Transitions
 * are pure; the refetching itself (I/O) is src/cache/entry-refresher.ts.
 *
 * Coverage is counted in epochs: every stream that opens starts a new one, so
 * a value fetched before the stream opened is never taken as notification-backed.
 */
import { createStore } from '@xstate/store';
import type { EntryKey } from './entries.ts';
import type { CacheRead } from './types.ts';

export type EntryStatus = 'empty' | 'valid' | 'invalid' | 'refetching';

export interface Entry {
  value: unknown;
  status: EntryStatus;
  /** When the current value was fetched (ms since epoch); undefined while empty. */
  fetchedAt: number | undefined;
  /** The server's freshness hint for the current value (2026-07-28 `ttlMs`). */
  ttlMs: number | undefined;
  /** A live stream covers this entry and was already open when its value was fetched. */
  coveredByStream: boolean;
  /** A change arrived while the running refetch was under way: exactly one more refetch is due. */
  again: boolean;
  /** The coverage epoch the running (or last) refetch started in. */
  fetchEpoch: number;
  /** Why the last fetch failed, until one succeeds. */
  error: Error | undefined;
}

export interface EntryStoreContext {
  entries: Record<EntryKey, Entry>;
  /** The entries a live stream keeps current; empty when no stream is open. */
  live: EntryKey[];
  /** Grows by one whenever a stream opens. */
  epoch: number;
}

const emptyEntry = (): Entry => ({
  value: undefined,
  status: 'empty',
  fetchedAt: undefined,
  ttlMs: undefined,
  coveredByStream: false,
  again: false,
  fetchEpoch: 0,
  error: undefined,
});

const update = (context: EntryStoreContext, key: EntryKey, change: (entry: Entry) => Partial<Entry>): EntryStoreContext => {
  const entry = context.entries[key];
  if (!entry) return context;
  return { ...context, entries: { ...context.entries, [key]: { ...entry, ...change(entry) } } };
};

const uncoverAll = (entries: Record<EntryKey, Entry>): Record<EntryKey, Entry> =>
  Object.fromEntries(Object.entries(entries).map(([key, entry]) => [key, { ...entry, coveredByStream: false }])) as Record<EntryKey, Entry>;

export function createEntryStore(keys: readonly EntryKey[]) {
  return createStore({
    context: {
      entries: Object.fromEntries(keys.map((key) => [key, emptyEntry()])) as Record<EntryKey, Entry>,
      live: [],
      epoch: 0,
    } as EntryStoreContext,
    on: {
      // A new stream: nothing fetched so far was fetched under it.
      covered: (context, event: { keys: EntryKey[] }) => ({
        entries: uncoverAll(context.entries),
        live: event.keys,
        epoch: context.epoch + 1,
      }),
      uncovered: (context) => ({ ...context, entries: uncoverAll(context.entries), live: [] }),
      invalidated: (context, event: { key: EntryKey }) =>
        update(context, event.key, (entry) =>
          entry.status === 'refetching' ? { again: true } : entry.status === 'empty' ? {} : { status: 'invalid', coveredByStream: false },
        ),
      refetchStarted: (context, event: { key: EntryKey }) =>
        update(context, event.key, () => ({ status: 'refetching', again: false, fetchEpoch: context.epoch })),
      replaced: (context, event: { key: EntryKey; value: unknown; fetchedAt: number; ttlMs: number | undefined }) =>
        update(context, event.key, (entry) => ({
          value: event.value,
          fetchedAt: event.fetchedAt,
          ttlMs: event.ttlMs,
          status: entry.again ? 'invalid' : 'valid',
          coveredByStream: !entry.again && entry.fetchEpoch === context.epoch && context.live.includes(event.key),
          error: undefined,
        })),
      failed: (context, event: { key: EntryKey; error: Error }) =>
        update(context, event.key, (entry) => ({
          status: entry.value === undefined ? 'empty' : 'invalid',
          again: false,
          error: event.error,
        })),
    },
  });
}

export type EntryStore = ReturnType<typeof createEntryStore>;

/**
 * What lets a reader take `entry` as current at `now`: a live stream that
 * covers it, or, uncovered, the server's `ttlMs` hint not yet run out; `none`
 * when it is invalid or nothing says it is fresh.
 */
export function backingOf(entry: Entry, now: number): CacheRead<unknown>['backedBy'] {
  if (entry.status !== 'valid') return 'none';
  if (entry.coveredByStream) return 'stream';
  return entry.ttlMs !== undefined && entry.fetchedAt !== undefined && now < entry.fetchedAt + entry.ttlMs ? 'ttl' : 'none';
}

/**
 * A valid entry that nothing backs: no live stream covers it and no ttl hint
 * is running (run out, or none given, which the caching page takes as 0). No
 * notification will invalidate it, so a read refetches it.
 */
export function isExpired(entry: Entry, now: number): boolean {
  return entry.status === 'valid' && backingOf(entry, now) === 'none';
}
