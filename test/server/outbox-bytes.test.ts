/**
 * The outbox's byte bound (`maxQueuedBytes`) on its own: `outboxHighWater`
 * counts frames, so without it a client that does not read would keep that
 * many frames of any size. A parked outbox (no sink yet) stands for a client
 * that does not drain; a sink that takes every write for one that reads.
 */
import { expect, it } from 'vitest';
import { Lane } from '../../src/server/lane.ts';
import { Outbox, type FrameSink, type QueueOverflow } from '../../src/server/outbox.ts';

const BOUND = 1_000;
/** A notification of `bytes` bytes (ASCII) in all. */
const frame = (bytes: number, tag = 'n') => {
  const head = `{"jsonrpc":"2.0","method":"${tag}","params":{"x":"`;
  return `${head}${'x'.repeat(bytes - head.length - 3)}"}}`;
};
const LAST = '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"slow"}}';

/** A sink that takes every write at once, and what it was given, frame by frame. */
function readingSink(): FrameSink & { frames: string[] } {
  const frames: string[] = [];
  return { frames, write: (chunk) => (frames.push(...chunk.split('\n').filter(Boolean)), true), once: () => undefined };
}

/** An outbox with a byte bound whose owner closes it with `LAST`, as an HTTP answer stream does. */
function bounded(sink: FrameSink | undefined, options: { highWater?: number; onPressure?: (high: boolean) => void } = {}) {
  const overflows: QueueOverflow[] = [];
  const outbox: Outbox = new Outbox(sink, (json) => `${json}\n`, options.highWater ?? 256, {
    ...(options.onPressure ? { onPressure: options.onPressure } : {}),
    bound: {
      maxBytes: BOUND,
      overflowed: (overflow) => {
        overflows.push(overflow);
        outbox.close(LAST);
      },
    },
  });
  return { outbox, overflows };
}

it('gives up on a client that lets more than maxQueuedBytes wait undrained: what waited gives way to its owner’s last frame', async () => {
  const { outbox, overflows } = bounded(undefined);
  outbox.push(frame(400, 'a'));
  outbox.answer(frame(400, 'b'));
  expect(overflows).toEqual([]);
  outbox.push(frame(400, 'c'));
  expect(overflows).toEqual([{ type: 'slow_consumer', exceeded: 'queued_bytes', maxQueuedBytes: BOUND }]);
  // Nothing more is taken, and the client that reads again gets the last frame alone.
  outbox.push(frame(60, 'd'));
  outbox.answer(frame(60, 'e'));
  const sink = readingSink();
  outbox.retarget(sink);
  await outbox.flushed();
  expect(sink.frames).toEqual([LAST]);
  expect(overflows).toHaveLength(1);
});

it('counts UTF-8 bytes, not characters', () => {
  const { outbox, overflows } = bounded(undefined);
  const wide = (tag: string) => `{"method":"${tag}","x":"${'é'.repeat(200)}"}`; // ~215 characters, ~415 bytes
  outbox.push(wide('a'));
  outbox.push(wide('b'));
  expect(overflows).toEqual([]);
  outbox.push(wide('c'));
  expect(overflows).toHaveLength(1);
});

it('takes a burst past the bound whole while the client drains, and a lone frame larger than the bound', async () => {
  const sink = readingSink();
  const { outbox, overflows } = bounded(sink);
  const burst = [frame(400, 'a'), frame(400, 'b'), frame(400, 'c')];
  for (const json of burst) outbox.push(json);
  await outbox.flushed();
  const parked = bounded(undefined);
  const big = frame(5 * BOUND, 'big');
  parked.outbox.answer(big);
  const later = readingSink();
  parked.outbox.retarget(later);
  await parked.outbox.flushed();
  expect([overflows, parked.overflows]).toEqual([[], []]);
  expect(sink.frames).toEqual(burst);
  expect(later.frames).toEqual([big]);
});

it('leaves change events to their lane’s own bound', () => {
  const { outbox, overflows } = bounded(undefined);
  const lane = new Lane(outbox, 1_024, 64 * 1024, { overflowed: () => undefined });
  for (const key of ['a', 'b', 'c']) lane.offer(key, frame(400, key));
  expect(overflows).toEqual([]);
});

it('holds request-scoped writers back while half the bound waits, long before outboxHighWater frames do', async () => {
  const { outbox } = bounded(undefined);
  outbox.push(frame(600));
  let room = false;
  void outbox.room().then(() => (room = true));
  await Promise.resolve();
  expect(outbox.size).toBeLessThan(outbox.highWater);
  expect(room).toBe(false);
  outbox.retarget(readingSink());
  await outbox.flushed();
  expect(room).toBe(true);
});

it('reports pressure (stdio holds its input back) while half the bound waits, and relief once it was written', async () => {
  const pressure: boolean[] = [];
  const { outbox } = bounded(undefined, { onPressure: (high) => pressure.push(high) });
  outbox.answer(frame(300, 'a'));
  expect(pressure).toEqual([]);
  outbox.answer(frame(300, 'b'));
  expect(pressure).toEqual([true]);
  outbox.retarget(readingSink());
  await outbox.flushed();
  expect(pressure).toEqual([true, false]);
});
