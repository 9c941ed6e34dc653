/**
 * Invalidate, then refetch, then replace — for exactly the entries a change
 * touches. Each step goes to the entry store first and is then reported as a
 * CacheEvent, so the recorded order is the order it happened in. A change
 * that lands during a refetch marks the entry for exactly one more refetch
 * (however many land), never a lost update; waiting readers are answered
 * once the entry is valid or its fetch has failed (CacheFetchFailedError).
 */
import type { CacheEvent } from './types.ts';
import type { EntryKey } from './entries.ts';
import type { Entry, EntryStore } from './entry-store.ts';
import type { Fetched } from './cache-io.ts';
import { CacheFetchFailedError } from './errors.ts';

export interface EntryRefresherDeps {
  store: EntryStore;
  fetch(key: EntryKey): Promise<Fetched>;
  emit(event: CacheEvent): void;
  now(): number;
}

export class EntryRefresher {
  #closed = false;
  constructor(private readonly deps: EntryRefresherDeps) {}

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
      (error: unknown) => this.#fail(key, error instanceof Error ? error : new Error(String(error))),
    );
  }

  /** Resolves with the entry once it is valid, or rejects with the fetch error; rejects on timeout or close. */
  settled(key: EntryKey, timeoutMs: number, onTimeout: () => Error, onClose: () => Error): Promise<Entry> {
    return new Promise<Entry>((resolve, reject) => {
      const check = () => {
        if (this.#closed) return finish(() => reject(onClose()));
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
      const timer = setTimeout(() => finish(() => reject(onTimeout())), timeoutMs);
      this.#closeWaiters.add(check);
      check();
    });
  }

  readonly #closeWaiters = new Set<() => void>();

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
