/** followStream's rules, with scripted bodies and reopen answers: when it resumes, what it sends, and when it gives up. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMPTY_REOPEN_FLOOR_MS, followStream, type StreamIo } from '../../src/transport/resumable-stream.ts';
import { SseCursor } from '../../src/transport/sse-cursor.ts';

const body = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
const sse = (status = 200) => new Response(status === 200 ? body() : null, { status, headers: { 'content-type': 'text/event-stream' } });

/** Each read plays the next script step: the message with an id it "saw" (none: an empty stream), a retry, then how the read ended. */
function scripted(reads: Array<{ id?: string; retry?: number; end: 'stopped' | 'ended' | 'broke' }>, reopens: Array<Response | Error>) {
  const cursor = new SseCursor();
  const asked: string[] = [];
  const io: StreamIo = {
    async read() {
      const step = reads.shift()!;
      if (step.id !== undefined && cursor.advance(step.id)) cursor.messages++;
      if (step.retry !== undefined) cursor.retry(step.retry);
      if (step.end === 'broke') throw new Error('socket reset');
      return step.end;
    },
    async reopen(lastEventId) {
      asked.push(lastEventId);
      const next = reopens.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { cursor, asked, io };
}

describe('followStream', () => {
  afterEach(() => vi.useRealTimers());

  it('a reopened stream that ends with no message is reopened no sooner than EMPTY_REOPEN_FLOOR_MS, whatever retry the server asked', async () => {
    vi.useFakeTimers();
    // The first stream is a priming event alone (retry 0: reopen at once, as asked); every reopen is answered and ends empty.
    const { cursor, asked, io } = scripted(
      [{ retry: 0, end: 'ended' }, { end: 'ended' }, { end: 'ended' }, { end: 'stopped' }],
      [sse(), sse(), sse()],
    );
    cursor.advance('p1');
    const following = followStream(body(), cursor, io, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual(['p1']);
    for (const reopens of [2, 3]) {
      await vi.advanceTimersByTimeAsync(EMPTY_REOPEN_FLOOR_MS - 1);
      expect(asked).toHaveLength(reopens - 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(asked).toHaveLength(reopens);
    }
    expect(await following).toEqual({ type: 'stopped' });
  });

  it('a replay of what was already seen is no message: the reopen after it waits the floor too', async () => {
    vi.useFakeTimers();
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 0, end: 'ended' }, { id: 'a1', end: 'ended' }, { end: 'stopped' }], [sse(), sse()]);
    const following = followStream(body(), cursor, io, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual(['a1']);
    await vi.advanceTimersByTimeAsync(EMPTY_REOPEN_FLOOR_MS - 1);
    expect(asked).toEqual(['a1']);
    await vi.advanceTimersByTimeAsync(1);
    expect(asked).toEqual(['a1', 'a1']);
    expect(await following).toEqual({ type: 'stopped' });
  });

  it('a reopened stream that carried a message is reopened after the server’s retry', async () => {
    vi.useFakeTimers();
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 5, end: 'ended' }, { id: 'a2', end: 'ended' }, { end: 'stopped' }], [sse(), sse()]);
    const following = followStream(body(), cursor, io, new AbortController().signal, { defaultRetryMs: 1_000 });
    await vi.advanceTimersByTimeAsync(5);
    expect(asked).toEqual(['a1']);
    await vi.advanceTimersByTimeAsync(5);
    expect(asked).toEqual(['a1', 'a2']);
    expect(await following).toEqual({ type: 'stopped' });
  });

  it('reopens with the last event id after a break, and stops when the consumer has what it wanted', async () => {
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 0, end: 'broke' }, { id: 'a2', end: 'stopped' }], [sse()]);
    expect(await followStream(body(), cursor, io, new AbortController().signal)).toEqual({ type: 'stopped' });
    expect(asked).toEqual(['a1']);
  });

  it('a stream that never carried an event id is lost at once', async () => {
    const { cursor, asked, io } = scripted([{ end: 'ended' }], []);
    expect(await followStream(body(), cursor, io, new AbortController().signal)).toMatchObject({ type: 'lost' });
    expect(asked).toEqual([]);
  });

  it('gives up after maxAttempts failed reopens in a row', async () => {
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 0, end: 'ended' }], [new Error('refused'), new Error('refused'), new Error('refused')]);
    const end = await followStream(body(), cursor, io, new AbortController().signal, { maxAttempts: 2 });
    expect(end).toMatchObject({ type: 'lost', cause: new Error('refused') });
    expect(asked).toEqual(['a1', 'a1']);
  });

  it('a 4xx to the reopen is the server’s answer: lost without more attempts', async () => {
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 0, end: 'ended' }], [sse(404), sse()]);
    expect(await followStream(body(), cursor, io, new AbortController().signal)).toMatchObject({ type: 'lost', cause: { status: 404 } });
    expect(asked).toEqual(['a1']);
  });

  it('a reopen refused with 429 or 503 is retried after its Retry-After; one past the bounds is lost, carrying the ask', async () => {
    vi.useFakeTimers();
    const busy = (status: number, seconds: string) => new Response(null, { status, headers: { 'retry-after': seconds } });
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 100, end: 'ended' }, { end: 'stopped' }], [busy(503, '5'), busy(429, '3'), sse()]);
    const following = followStream(body(), cursor, io, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(100);
    expect(asked).toEqual(['a1']);
    // The server's retry is 100 ms, but the 503 asked for 5 s.
    await vi.advanceTimersByTimeAsync(4_999);
    expect(asked).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(asked).toHaveLength(2);
    // A 429 asks for time too: not the end of the stream, as a 404 would be.
    await vi.advanceTimersByTimeAsync(2_999);
    expect(asked).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(asked).toEqual(['a1', 'a1', 'a1']);
    expect(await following).toEqual({ type: 'stopped' });

    const far = scripted([{ id: 'b1', retry: 0, end: 'ended' }], [busy(503, '120'), sse()]);
    const lost = followStream(body(), far.cursor, far.io, new AbortController().signal, { maxWaitMs: 60_000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(await lost).toMatchObject({ type: 'lost', cause: { status: 503, retryAfterMs: 120_000 } });
    expect(far.asked).toEqual(['b1']);
  });

  it('a retry longer than maxWaitMs gives up without waiting it out', async () => {
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 120_000, end: 'ended' }], []);
    expect(await followStream(body(), cursor, io, new AbortController().signal, { maxWaitMs: 60_000 })).toMatchObject({ type: 'lost' });
    expect(asked).toEqual([]);
  });

  it('aborting during the retry wait stops without reopening', async () => {
    const { cursor, asked, io } = scripted([{ id: 'a1', retry: 60_000, end: 'ended' }], []);
    const controller = new AbortController();
    const following = followStream(body(), cursor, io, controller.signal, { maxWaitMs: 120_000 });
    controller.abort();
    expect(await following).toEqual({ type: 'stopped' });
    expect(asked).toEqual([]);
  });
});
