/**
 * Feeds the timeline from a change cache: the first fetch of every watched
 * list and resource, then, for each invalidated entry, one fresh read and
 * what changed since the last one. Reads of one entry run one at a time; an
 * invalidation that arrives during a read asks for one more read after it,
 * so bursts collapse and no change goes unreported.
 */
import type { CachedList } from '../cache/entries.ts';
import type { CacheEvent, ChangeCache, EntryKey } from '../cache/types.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { diffList, identityOf, isEmptyDiff } from './list-diff.ts';
import { describeCause, type Renderer } from './timeline.ts';

const RESOURCE_PREFIX = 'resource:';
const READ_TIMEOUT_MS = 10_000;

interface EntryFeed {
  running: Promise<void> | undefined;
  again: boolean;
  /** Last value reported (a list, or a resource's text); undefined before the first read. */
  last: JsonObject[] | string | undefined;
  read: boolean;
}

export class CacheFeed {
  readonly #entries = new Map<EntryKey, EntryFeed>();
  #connectionClosed = false;
  #stopped = false;
  readonly #unsubscribe: () => void;

  constructor(private readonly cache: ChangeCache, private readonly render: Renderer, private readonly keys: readonly EntryKey[]) {
    this.#unsubscribe = cache.subscribe((event) => this.#onEvent(event));
  }

  /** The first read of every watched entry, reported as a `list` (lists) or `resource_updated` (contents). */
  async start(): Promise<void> {
    await Promise.all(this.keys.map((key) => this.#refresh(key)));
  }

  /** Waits for reads in flight, then stops reporting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    await Promise.allSettled([...this.#entries.values()].map((entry) => entry.running));
  }

  /** The connection ended for good: reads in flight will fail, which is no news; cache states still are. */
  connectionClosed(): void {
    this.#connectionClosed = true;
  }

  #onEvent(event: CacheEvent): void {
    if (this.#stopped) return;
    switch (event.type) {
      case 'notification':
        this.render({ type: 'notification', method: event.method, params: event.params });
        return;
      case 'invalidated':
        if (this.keys.includes(event.key) && !this.#connectionClosed) void this.#refresh(event.key);
        return;
      case 'refetch_failed':
        if (!this.#connectionClosed) this.render({ type: 'refetch_failed', key: event.key, error: describeCause(event.error) });
        return;
      case 'state': {
        this.render({
          type: 'cache',
          state: event.state,
          previous: event.previous,
          resumed: event.state === 'listening' && isResumed(event.detail),
          ...(event.detail !== undefined ? { detail: describeDetail(event.detail) } : {}),
        });
        return;
      }
      default:
        // refetching and replaced: the read started by the invalidation reports the outcome.
        return;
    }
  }

  #refresh(key: EntryKey): Promise<void> {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { running: undefined, again: false, last: undefined, read: false };
      this.#entries.set(key, entry);
    }
    if (entry.running) {
      entry.again = true;
      return entry.running;
    }
    const feed = entry;
    feed.running = (async () => {
      do {
        feed.again = false;
        await this.#readAndReport(key, feed);
      } while (feed.again && !this.#stopped);
      feed.running = undefined;
    })();
    return feed.running;
  }

  async #readAndReport(key: EntryKey, entry: EntryFeed): Promise<void> {
    const options = { mode: 'wait' as const, timeoutMs: READ_TIMEOUT_MS };
    try {
      if (key.startsWith(RESOURCE_PREFIX)) {
        const uri = key.slice(RESOURCE_PREFIX.length);
        const read = await this.cache.contents(uri, options);
        if (this.#stopped) return;
        const text = firstText(read.value);
        // A refetch after a gap that finds the same text is not an update.
        if (!entry.read || text === undefined || text !== entry.last) this.render({ type: 'resource_updated', uri, text });
        entry.read = true;
        entry.last = text;
        return;
      }
      const list = key as CachedList;
      const read = await this.cache[list](options);
      if (this.#stopped) return;
      const previous = Array.isArray(entry.last) ? entry.last : undefined;
      entry.last = read.value;
      if (previous === undefined) {
        this.render({ type: 'list', list, items: read.value.map((item) => identityOf(list, item)) });
        return;
      }
      // A refetch after a gap (the stream opened or resumed) usually finds nothing new: only changes are news.
      const diff = diffList(list, previous, read.value);
      if (!isEmptyDiff(diff)) this.render({ type: 'list_diff', ...diff });
    } catch (error) {
      if (!this.#stopped && !this.#connectionClosed) this.render({ type: 'refetch_failed', key, error: describeCause(error) });
    }
  }
}

/** Whether a `listening` state's detail says the cache resumed after an earlier stream. */
const isResumed = (detail: unknown): boolean =>
  detail !== null && typeof detail === 'object' && (detail as { resumed?: unknown }).resumed === true;

/** The text of a `resources/read` result's first text content, if any. */
function firstText(result: JsonObject): string | undefined {
  const contents = result.contents;
  if (!Array.isArray(contents)) return undefined;
  for (const content of contents) {
    if (content !== null && typeof content === 'object' && typeof (content as JsonObject).text === 'string') return (content as JsonObject).text as string;
  }
  return undefined;
}

/** A cache state's detail as `key=value` pairs; the filter (the connected line shows it) and `resumed` (a field of its own) are left out. */
function describeDetail(detail: unknown): string {
  if (detail === null || typeof detail !== 'object' || detail instanceof Error) return describeCause(detail);
  return Object.entries(detail)
    .filter(([key, value]) => key !== 'filter' && key !== 'resumed' && value !== undefined)
    .map(([key, value]) => `${key}=${value !== null && typeof value === 'object' && !(value instanceof Error) ? JSON.stringify(value) : describeCause(value)}`)
    .join(' ');
}
