/**
 * The refresher and its reads, with fetches the test resolves by hand: the
 * orderings a real server cannot be made to produce on cue (changes landing
 * during a refetch, a refetch outlasting a read's timeout) and ttl hints,
 * which the official server does not send.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fetched } from '../../src/cache/cache-io.ts';
import type { EntryKey } from '../../src/cache/entries.ts';
import { EntryRefresher } from '../../src/cache/entry-refresher.ts';
import { createEntryStore } from '../../src/cache/entry-store.ts';
import { CacheClosedError, CacheFetchFailedError, CacheReadTimeoutError } from '../../src/cache/errors.ts';
import type { CacheEvent } from '../../src/cache/types.ts';

afterEach(() => {
  vi.useRealTimers();
});

function setup(awaitStart = false) {
  const keys: EntryKey[] = ['tools', 'prompts'];
  const store = createEntryStore(keys);
  const pending: { key: EntryKey; resolve(fetched: Fetched): void; reject(error: Error): void }[] = [];
  const events: string[] = [];
  let clock = 1_000;
  const refresher = new EntryRefresher({
    store,
    fetch: (key) => new Promise<Fetched>((resolve, reject) => pending.push({ key, resolve, reject })),
    emit: (event: CacheEvent) => {
      if ('key' in event) events.push(`${event.type} ${event.key}`);
    },
    now: () => clock,
    awaitStart,
  });
  /** Answers the oldest outstanding fetch, then lets its continuation run. */
  const answer = async (value: unknown, ttlMs?: number) => {
    pending.shift()!.resolve({ value: value as Fetched['value'], ttlMs });
    await Promise.resolve();
    await Promise.resolve();
  };
  const fail = async (error: Error) => {
    pending.shift()!.reject(error);
    await Promise.resolve();
    await Promise.resolve();
  };
  return { store, refresher, pending, events, answer, fail, advance: (ms: number) => (clock += ms) };
}

describe('entry refresher', () => {
  it('before the start is over, a read of an empty entry waits for the fetch the opening starts, in either mode', async () => {
    const t = setup(true);
    const reads = [t.refresher.read('tools', 'wait', 5_000), t.refresher.read('tools', 'stale', 5_000)];
    expect(t.pending).toHaveLength(0);
    t.refresher.covered(['tools']);
    expect(t.pending.map((fetch) => fetch.key)).toEqual(['tools']);
    await t.answer(['v1']);
    t.refresher.started();
    for (const read of await Promise.all(reads)) expect(read).toMatchObject({ value: ['v1'], freshness: 'current', backedBy: 'stream' });
    expect(t.pending).toHaveLength(0);
  });

  it("at the start's end fetches what was read meanwhile and nothing covered, once", async () => {
    const t = setup(true);
    const read = t.refresher.read('prompts', 'wait', 5_000);
    t.refresher.covered(['tools']);
    t.refresher.started();
    t.refresher.started();
    expect(t.pending.map((fetch) => fetch.key)).toEqual(['tools', 'prompts']);
    await t.answer(['tool']);
    await t.answer(['prompt']);
    expect(await read).toMatchObject({ value: ['prompt'], freshness: 'stale', backedBy: 'none' });
  });

  it('turns any number of changes during a refetch into exactly one more refetch', async () => {
    const t = setup();
    t.refresher.covered(['tools']);
    await t.answer(['v1']);
    t.events.length = 0;

    t.refresher.changed('tools');
    t.refresher.changed('tools');
    t.refresher.changed('tools');
    expect(t.pending).toHaveLength(1);
    await t.answer(['v2']);
    // v2 may predate the later changes: it replaces v1 but is not current, and one more refetch runs.
    expect(t.store.getSnapshot().context.entries.tools.status).toBe('refetching');
    expect(t.pending).toHaveLength(1);
    await t.answer(['v3']);
    expect(t.pending).toHaveLength(0);
    expect(t.events).toEqual([
      'invalidated tools',
      'refetching tools',
      'invalidated tools',
      'invalidated tools',
      'replaced tools',
      'refetching tools',
      'replaced tools',
    ]);
    expect(await t.refresher.read('tools', 'wait', 1_000)).toEqual({ value: ['v3'], freshness: 'current', backedBy: 'stream', fetchedAt: 1_000 });
    expect(t.store.getSnapshot().context.entries.prompts.status).toBe('empty');
  });

  it('never presents an invalid entry as current: wait reads get the refetched value, stale reads the old one marked stale', async () => {
    const t = setup();
    t.refresher.covered(['tools']);
    await t.answer(['old']);
    t.refresher.changed('tools');

    expect(await t.refresher.read('tools', 'stale', 1_000)).toMatchObject({ value: ['old'], freshness: 'stale' });
    const waiting = t.refresher.read('tools', 'wait', 1_000);
    await t.answer(['new']);
    expect(await waiting).toMatchObject({ value: ['new'], freshness: 'current' });
  });

  it('rejects a wait read whose refetch outlasts its timeout, and one whose refetch failed', async () => {
    vi.useFakeTimers();
    const t = setup();
    const late = t.refresher.read('tools', 'wait', 250);
    const timedOut = expect(late).rejects.toBeInstanceOf(CacheReadTimeoutError);
    vi.advanceTimersByTime(250);
    await timedOut;

    await t.fail(new Error('server said no'));
    const failed = t.refresher.read('tools', 'wait', 250);
    await t.fail(new Error('server said no again'));
    await expect(failed).rejects.toBeInstanceOf(CacheFetchFailedError);
    expect(t.events.filter((event) => event.startsWith('refetch_failed'))).toEqual(['refetch_failed tools', 'refetch_failed tools']);
  });

  it('answers waiting reads with CacheClosedError when the cache closes', async () => {
    const t = setup();
    const waiting = t.refresher.read('prompts', 'wait', 10_000);
    t.refresher.close();
    await expect(waiting).rejects.toBeInstanceOf(CacheClosedError);
    await expect(t.refresher.read('prompts', 'stale', 10_000)).rejects.toBeInstanceOf(CacheClosedError);
  });

  it('treats an entry no live stream covers as current only within its ttl, then refetches it for a wait read', async () => {
    const t = setup();
    const first = t.refresher.read('prompts', 'wait', 1_000);
    await t.answer(['p1'], 500);
    expect(await first).toMatchObject({ value: ['p1'], freshness: 'current', backedBy: 'ttl' });

    t.advance(499);
    expect(await t.refresher.read('prompts', 'stale', 1_000)).toMatchObject({ freshness: 'current', backedBy: 'ttl' });
    t.advance(1);
    expect(await t.refresher.read('prompts', 'stale', 1_000)).toMatchObject({ value: ['p1'], freshness: 'stale', backedBy: 'none' });
    expect(t.pending.map((fetch) => fetch.key)).toEqual(['prompts']);
    const waiting = t.refresher.read('prompts', 'wait', 1_000);
    await t.answer(['p2'], 500);
    expect(await waiting).toMatchObject({ value: ['p2'], freshness: 'current' });
  });

  it('refetches an uncovered entry whose result gave no ttl on every read: nothing says it is fresh, nothing would invalidate it', async () => {
    const t = setup();
    const first = t.refresher.read('prompts', 'wait', 1_000);
    await t.answer(['p1']);
    expect(await first).toMatchObject({ value: ['p1'], freshness: 'stale', backedBy: 'none' });

    const waiting = t.refresher.read('prompts', 'wait', 1_000);
    expect(t.pending.map((fetch) => fetch.key)).toEqual(['prompts']);
    await t.answer(['p2']);
    expect(await waiting).toMatchObject({ value: ['p2'], freshness: 'stale', backedBy: 'none' });
    expect(await t.refresher.read('prompts', 'stale', 1_000)).toMatchObject({ value: ['p2'], freshness: 'stale', backedBy: 'none' });
    expect(t.pending.map((fetch) => fetch.key)).toEqual(['prompts']);
  });

  it('ignores the ttl of an entry a live stream covers, and takes nothing fetched before the stream opened as covered', async () => {
    const t = setup();
    const before = t.refresher.read('tools', 'wait', 1_000);
    await t.answer(['t0']);
    expect(await before).toMatchObject({ freshness: 'stale' });

    t.refresher.covered(['tools']);
    expect(t.events.slice(-2)).toEqual(['invalidated tools', 'refetching tools']);
    await t.answer(['t1'], 10);
    t.advance(60_000);
    expect(await t.refresher.read('tools', 'stale', 1_000)).toMatchObject({ value: ['t1'], freshness: 'current', backedBy: 'stream' });

    // A gap right after opening does not refetch again what the new stream's refetch already covers.
    t.refresher.changed('tools');
    const count = t.pending.length;
    t.refresher.gap('tools');
    expect(t.pending).toHaveLength(count);
    t.refresher.uncovered();
    expect(t.store.getSnapshot().context.entries.tools.coveredByStream).toBe(false);
  });
});
