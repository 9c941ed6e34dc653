/**
 * CacheFeed over a hand-driven ChangeCache: what the watcher prints for
 * reads, invalidations, bursts, state changes and failures.
 */
import { describe, expect, it } from 'vitest';
import type { CacheEvent, CacheRead, ChangeCache, EntryKey } from '../../src/cache/types.ts';
import { CacheFeed } from '../../src/cli/cache-feed.ts';
import type { TimelineEvent } from '../../src/cli/timeline.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';

/** Lets every settled promise's continuation run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const read = <T>(value: T): CacheRead<T> => ({ value, freshness: 'current', backedBy: 'stream', fetchedAt: 0 });

/** Reads answer from `tools` / `contents`, or wait on `gate` when one is set. */
class FakeCache implements ChangeCache {
  readonly state = 'listening' as const;
  readonly filter = null;
  tools$: JsonObject[] = [];
  text = 'v1';
  failing: Error | undefined;
  toolReads = 0;
  gate: Promise<void> | undefined;
  readonly #listeners = new Set<(event: CacheEvent) => void>();

  emit(event: CacheEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
  subscribe(listener: (event: CacheEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  async tools(): Promise<CacheRead<JsonObject[]>> {
    this.toolReads++;
    await this.gate;
    if (this.failing) throw this.failing;
    return read([...this.tools$]);
  }
  async prompts(): Promise<CacheRead<JsonObject[]>> {
    return read([]);
  }
  async resources(): Promise<CacheRead<JsonObject[]>> {
    return read([]);
  }
  async contents(uri: string): Promise<CacheRead<JsonObject>> {
    return read({ contents: [{ uri, text: this.text }] });
  }
  async close(): Promise<void> {}
  async [Symbol.asyncDispose](): Promise<void> {}
}

function setUp(keys: EntryKey[] = ['tools']) {
  const cache = new FakeCache();
  const events: TimelineEvent[] = [];
  const feed = new CacheFeed(cache, (event) => events.push(event), keys);
  return { cache, events, feed };
}

describe('CacheFeed', () => {
  it('reports the first read of each entry, then only the diffs that change something', async () => {
    const { cache, events, feed } = setUp(['tools', 'resource:x://1']);
    cache.tools$ = [{ name: 'a' }];
    await feed.start();
    expect(events).toHaveLength(2);
    expect(events).toContainEqual({ type: 'list', list: 'tools', items: ['a'] });
    expect(events).toContainEqual({ type: 'resource_updated', uri: 'x://1', text: 'v1' });
    events.length = 0;

    cache.emit({ type: 'invalidated', key: 'tools' });
    cache.emit({ type: 'invalidated', key: 'resource:x://1' });
    await settle();
    expect(events).toEqual([]); // same list, same text: a refetch after a gap is no news

    cache.tools$ = [{ name: 'b' }];
    cache.text = 'v2';
    cache.emit({ type: 'invalidated', key: 'tools' });
    cache.emit({ type: 'invalidated', key: 'resource:x://1' });
    await settle();
    expect(events).toHaveLength(2);
    expect(events).toContainEqual({ type: 'list_diff', list: 'tools', added: ['b'], removed: ['a'], changed: [], count: 1 });
    expect(events).toContainEqual({ type: 'resource_updated', uri: 'x://1', text: 'v2' });
  });

  it('collapses invalidations that arrive during a read into one more read', async () => {
    const { cache, feed } = setUp();
    await feed.start();
    let open!: () => void;
    cache.gate = new Promise((resolve) => (open = resolve));
    for (let i = 0; i < 5; i++) cache.emit({ type: 'invalidated', key: 'tools' });
    await settle();
    expect(cache.toolReads).toBe(2); // the first read and the one in flight
    cache.gate = undefined;
    open();
    await settle();
    await settle();
    expect(cache.toolReads).toBe(3); // one more for the four that came meanwhile
  });

  it('ignores invalidations of entries it does not watch', async () => {
    const { cache, feed } = setUp(['tools']);
    await feed.start();
    cache.emit({ type: 'invalidated', key: 'prompts' });
    await settle();
    expect(cache.toolReads).toBe(1);
  });

  it("reports cache states by the machine's names, resumed when the cache says so", () => {
    const { cache, events } = setUp();
    const filter = { toolsListChanged: true };
    cache.emit({ type: 'state', state: 'listening', previous: 'negotiating', detail: { era: 'modern', filter, resumed: false } });
    cache.emit({ type: 'state', state: 'recovering', previous: 'listening', detail: { attempt: 1, delayMs: 1000, cause: new Error('server process exited (code 75)') } });
    cache.emit({ type: 'state', state: 'negotiating', previous: 'recovering', detail: { attempt: 1 } });
    cache.emit({ type: 'state', state: 'listening', previous: 'negotiating', detail: { era: 'modern', filter, resumed: true } });
    cache.emit({ type: 'state', state: 'completed', previous: 'listening' });
    cache.emit({ type: 'state', state: 'listening', previous: 'completed', detail: { era: 'legacy', filter, resumed: true } });
    cache.emit({ type: 'state', state: 'degraded', previous: 'listening', detail: { type: 'recovery_exhausted', attempts: 5 } });
    expect(events.map((event) => (event.type === 'cache' ? [event.state, event.resumed, event.detail] : event.type))).toEqual([
      ['listening', false, 'era=modern'],
      ['recovering', false, 'attempt=1 delayMs=1000 cause=server process exited (code 75)'],
      ['negotiating', false, 'attempt=1'],
      ['listening', true, 'era=modern'],
      ['completed', false, undefined],
      ['listening', true, 'era=legacy'],
      ['degraded', false, 'type=recovery_exhausted attempts=5'],
    ]);
  });

  it('calls listening resumed by what the cache says, not by what came before it', () => {
    const { cache, events } = setUp();
    // A first stream that opens only after a recovery attempt resumes nothing.
    cache.emit({ type: 'state', state: 'recovering', previous: 'negotiating', detail: { attempt: 1, delayMs: 5 } });
    cache.emit({ type: 'state', state: 'listening', previous: 'recovering', detail: { era: 'modern', filter: null, resumed: false } });
    expect(events.map((event) => (event.type === 'cache' ? [event.state, event.resumed] : event.type))).toEqual([
      ['recovering', false],
      ['listening', false],
    ]);
  });

  it('passes notifications through and reports failed reads, until the connection has closed', async () => {
    const { cache, events, feed } = setUp();
    await feed.start();
    events.length = 0;
    cache.emit({ type: 'notification', method: 'notifications/tools/list_changed', params: {} });
    cache.failing = new Error('boom');
    cache.emit({ type: 'invalidated', key: 'tools' });
    await settle();
    expect(events).toEqual([
      { type: 'notification', method: 'notifications/tools/list_changed', params: {} },
      { type: 'refetch_failed', key: 'tools', error: 'boom' },
    ]);

    events.length = 0;
    feed.connectionClosed();
    cache.emit({ type: 'refetch_failed', key: 'tools', error: new Error('closed') });
    cache.emit({ type: 'invalidated', key: 'tools' });
    cache.emit({ type: 'state', state: 'degraded', previous: 'listening' });
    await settle();
    expect(events).toEqual([{ type: 'cache', state: 'degraded', previous: 'listening', resumed: false }]);
  });
});
