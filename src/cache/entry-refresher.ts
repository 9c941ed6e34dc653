/**
 * Invalidate, then refetch, then replace — for exactly the entries a change
 * touches. Each step goes to the entry store first and is then reported as a
 * CacheEvent, so the recorded order is the order it happened in. A change
 * that lands during a refetch marks the entry for exactly one more refetch
 * (however many land), never a lost update; waiting readers are answered
 * once the entry is valid or its fetch has failed (CacheFetchFailedError).
 * Until the cache's start is over (`started()`), a read of an empty entry
 * waits for the fetch the opening stream starts rather than starting its own.
 */
import { asError } from '../../machines/errors.ts';
import type { CacheEvent, CacheRead, ReadMode } from './types.ts';
import type { EntryKey } from './entries.ts';
import { backingOf, isExpired, type Entry, type EntryStore } from './entry-store.ts';
import type { Fetched } from './cache-io.ts';
import { CacheClosedError, CacheFetchFailedError, CacheReadTimeoutError } from './errors.ts';

export interface EntryRefresherDeps {
  store: EntryStore;
  fetch(key: EntryKey): Promise<Fetched>;
  emit(event: CacheEvent): void;
  now(): number;
  /** Reads of empty entries wait for `started()` before fetching on their own; false: they fetch at once. */
  awaitStart?: boolean;
}

export class EntryRefresher {
  #closed = false;
  /** Waiting reads, checked once more when the cache closes. */
  readonly #closeWaiters = new Set<() => void>();
  #starting: boolean;
  /** Entries read while starting: fetched at the start's end if nothing fetched them by then. */
  readonly #wanted = new Set<EntryKey>();
  constructor(private readonly deps: EntryRefresherDeps) {
    this.#starting = deps.awaitStart ?? false;
  }

  entry(key: EntryKey): Entry | undefined {
    return this.deps.store.getSnapshot().context.entries[key];
  }

  /** A selected change: invalidate the entry and refetch it, or mark the running refetch for one more. */
  changed(key: EntryKey): void {
    const entry = this.entry(key);
    if (!entry || this.#closed) return;
    if (entry.status !== 'empty') {
      this.deps.store.trigger.invalidated({ key });
      this.deps.emit({ type: 'invalidated', key });
    }
    if (entry.status !== 'refetching') this.refetch(key);
  }

  /**
   * Changes may have been missed while no stream covered `key`. A refetch
   * that started once the current stream was open already sees them.
   */
  gap(key: EntryKey): void {
    const entry = this.entry(key);
    if (!entry) return;
    const { epoch, live } = this.deps.store.getSnapshot().context;
    if (entry.status === 'refetching' && entry.fetchEpoch === epoch && live.includes(key)) return;
    this.changed(key);
  }

  /** A new stream covers `keys`: anything fetched before it opened is refetched under it. */
  covered(keys: EntryKey[]): void {
    this.deps.store.trigger.covered({ keys });
    for (const key of keys) this.changed(key);
  }

  /** The start is over: entries read meanwhile that nothing fetched are fetched now. */
  started(): void {
    if (!this.#starting) return;
    this.#starting = false;
    for (const key of this.#wanted) if (this.entry(key)?.status === 'empty') this.refetch(key);
    this.#wanted.clear();
  }

  uncovered(): void {
    this.deps.store.trigger.uncovered();
  }

  /** Starts a refetch unless one is running. */
  refetch(key: EntryKey): void {
    const entry = this.entry(key);
    if (!entry || entry.status === 'refetching' || this.#closed) return;
    this.deps.store.trigger.refetchStarted({ key });
    this.deps.emit({ type: 'refetching', key });
    this.deps.fetch(key).then(
      (fetched) => this.#replace(key, fetched),
      (error: unknown) => this.#fail(key, asError(error)),
    );
  }

  /**
   * Reads one entry. An empty or invalid entry, or a valid one nothing backs
   * (no live stream covers it and no ttl hint is running: no notification
   * will ever invalidate it), is refetched (an empty one before the start is
   * over waits for the start's fetch instead);
   * `wait` waits for that refetch (up to `timeoutMs`), `stale` answers at once
   * with the value it has, marked stale, and waits like `wait` when there is
   * no value yet. A value is `current` only when valid and
   * backed by a live stream or, uncovered, within its ttl.
   */
  async read<T>(key: EntryKey, mode: ReadMode, timeoutMs: number): Promise<CacheRead<T>> {
    if (this.#closed) throw new CacheClosedError(key);
    const entry = this.entry(key)!;
    const answer = (from: Entry): CacheRead<T> => {
      const backedBy = backingOf(from, this.deps.now());
      return { value: from.value as T, freshness: backedBy === 'none' ? 'stale' : 'current', backedBy, fetchedAt: from.fetchedAt! };
    };
    const needsFetch = entry.status === 'empty' || entry.status === 'invalid' || isExpired(entry, this.deps.now());
    if (!needsFetch && entry.status === 'valid') return answer(entry);
    if (needsFetch && this.#starting && entry.status === 'empty') this.#wanted.add(key);
    else if (needsFetch) this.refetch(key);
    if (mode === 'stale' && entry.value !== undefined) return answer(this.entry(key)!);
    return answer(await this.#settled(key, timeoutMs));
  }

  /** Resolves with the entry once it is valid; rejects when its fetch failed, on timeout, or on close. */
  #settled(key: EntryKey, timeoutMs: number): Promise<Entry> {
    return new Promise<Entry>((resolve, reject) => {
      const check = () => {
        if (this.#closed) return finish(() => reject(new CacheClosedError(key)));
        const entry = this.entry(key)!;
        if (entry.status === 'valid') return finish(() => resolve(entry));
        if (entry.status !== 'refetching' && entry.error) return finish(() => reject(new CacheFetchFailedError(key, entry.error)));
      };
      const finish = (settle: () => void) => {
        subscription.unsubscribe();
        clearTimeout(timer);
        this.#closeWaiters.delete(check);
        settle();
      };
      const subscription = this.deps.store.subscribe(check);
      const timer = setTimeout(() => finish(() => reject(new CacheReadTimeoutError(key, timeoutMs))), timeoutMs);
      this.#closeWaiters.add(check);
      check();
    });
  }

  close(): void {
    this.#closed = true;
    for (const check of [...this.#closeWaiters]) check();
  }

  #replace(key: EntryKey, fetched: Fetched): void {
    if (this.#closed) return;
    const previous = this.entry(key)?.value;
    this.deps.store.trigger.replaced({ key, value: fetched.value, fetchedAt: this.deps.now(), ttlMs: fetched.ttlMs });
    this.deps.emit({ type: 'replaced', key, value: fetched.value, previous });
    // Changes arrived during that refetch: its result may predate them.
    if (this.entry(key)?.status === 'invalid') this.refetch(key);
  }

  #fail(key: EntryKey, error: Error): void {
    if (this.#closed) return;
    this.deps.store.trigger.failed({ key, error });
    this.deps.emit({ type: 'refetch_failed', key, error });
  }
}
