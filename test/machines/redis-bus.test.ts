import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import { redisBusMachine, RETRY_DELAY_MS, type CatchUpOutput, type RedisBusCommand, type RedisBusEvent } from '../../machines/redis-bus.machine.ts';

/** Drives the bus machine with a catch-up the test settles by hand and a tail that only records it ran. */
function startBus(maxQueued = 3) {
  const commands: RedisBusCommand[] = [];
  const catchUps: Array<{ resolve: (output: CatchUpOutput) => void; reject: (error: Error) => void }> = [];
  let tails = 0;
  const machine = redisBusMachine.provide({
    actors: {
      catchUp: fromPromise<CatchUpOutput>(() => new Promise((resolve, reject) => catchUps.push({ resolve, reject }))),
      tail: fromCallback<RedisBusEvent>(() => {
        tails++;
      }),
    },
  });
  const actor = createActor(machine, { input: { maxQueued } });
  for (const type of ['send', 'apply_locally', 'apply_dropped', 'announce_everything_changed'] as const) actor.on(type, (command) => commands.push(command));
  actor.start();
  const settle = async (output: CatchUpOutput) => {
    catchUps.shift()!.resolve(output);
    await Promise.resolve();
    await Promise.resolve();
  };
  const health = () => {
    const value = actor.getSnapshot().value;
    return typeof value === 'string' ? value : value.live;
  };
  const fail = async (error: Error) => {
    catchUps.shift()!.reject(error);
    await Promise.resolve();
    await Promise.resolve();
  };
  return { actor, commands, settle, health, tails: () => tails, catchUps: { fail } };
}

afterEach(() => {
  vi.useRealTimers();
});

const entry = (seq: number) => ({ seq, payload: `{"seq":${seq}}` });
const publish = (seq: number): RedisBusEvent => ({ type: 'publish', entry: entry(seq) });

/** Live, publishes 1, loses Redis, publishes 2, then hears that 1's send failed: reported after a later publish. */
async function failureAfterLaterPublish(maxQueued?: number) {
  const bus = startBus(maxQueued);
  bus.actor.send({ type: 'redis.ready' });
  await bus.settle({ gap: false });
  bus.actor.send(publish(1));
  bus.actor.send({ type: 'redis.lost', cause: new Error('gone') });
  bus.actor.send(publish(2));
  bus.actor.send({ type: 'publish.failed', entry: entry(1), cause: new Error('socket closed') });
  return bus;
}

describe('redis bus machine', () => {
  it('catches up before it tails, then sends each publish at once', async () => {
    const { actor, commands, settle, health, tails } = startBus();
    expect(health()).toBe('connecting');
    actor.send({ type: 'redis.ready' });
    expect(health()).toBe('catching_up');
    expect(tails()).toBe(0);
    await settle({ gap: false });
    expect(health()).toBe('connected');
    expect(tails()).toBe(1);
    actor.send(publish(1));
    expect(commands).toEqual([{ type: 'send', entries: [entry(1)] }]);
  });

  it('applies a publish at once while Redis is away and sends it, in order, once live again', async () => {
    const { actor, commands, settle, health } = startBus();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    expect(health()).toBe('disconnected');
    actor.send(publish(1));
    actor.send(publish(2));
    expect(commands).toEqual([
      { type: 'apply_locally', entries: [entry(1)] },
      { type: 'apply_locally', entries: [entry(2)] },
    ]);
    actor.send({ type: 'redis.ready' });
    actor.send(publish(3)); // while catching up: queued behind 1 and 2, not applied yet
    await settle({ gap: false });
    expect(commands.slice(2)).toEqual([{ type: 'send', entries: [entry(1), entry(2), entry(3)] }]);
  });

  it('applies a publish queued while catching up if the link drops before it went out', async () => {
    const { actor, commands } = startBus();
    actor.send({ type: 'redis.ready' });
    actor.send(publish(1));
    expect(commands).toEqual([]);
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    expect(commands).toEqual([{ type: 'apply_locally', entries: [entry(1)] }]);
  });

  it('replaces a queue that overflowed with one everything-changed announcement', async () => {
    const { actor, commands, settle } = startBus(2);
    for (const seq of [1, 2, 3, 4]) actor.send(publish(seq));
    // Queued ones are applied to be skipped when read back; those past the full queue will never be sent.
    expect(commands).toEqual([
      { type: 'apply_locally', entries: [entry(1)] },
      { type: 'apply_locally', entries: [entry(2)] },
      { type: 'apply_dropped', entries: [entry(3)] },
      { type: 'apply_dropped', entries: [entry(4)] },
    ]);
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    expect(commands.at(-1)).toEqual({ type: 'announce_everything_changed', dropped: 4 });
    actor.send(publish(5));
    expect(commands.at(-1)).toEqual({ type: 'send', entries: [entry(5)] });
  });

  it('applies a failed send past a full queue as one that may still come back from the stream', async () => {
    const { actor, commands } = await failureAfterLaterPublish(1);
    // Its outcome is unknown: a copy may be in the stream, to be skipped, unlike a publish that was never sent.
    expect(commands.slice(1)).toEqual([
      { type: 'apply_locally', entries: [entry(2)] },
      { type: 'apply_locally', entries: [entry(1)] },
    ]);
    actor.send(publish(3));
    expect(commands.at(-1)).toEqual({ type: 'apply_dropped', entries: [entry(3)] });
  });

  it('is resynced after a catch-up or a read that found a gap, until the link next drops', async () => {
    const { actor, settle, health } = startBus();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: true });
    expect(health()).toBe('resynced');
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    expect(health()).toBe('connected');
    actor.send({ type: 'gap.detected' });
    expect(health()).toBe('resynced');
  });

  it('queues and applies a publish whose send failed, and resends it once live again', async () => {
    const { actor, commands, settle } = startBus();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    actor.send({ type: 'publish.failed', entry: entry(1), cause: new Error('socket closed') });
    expect(commands.at(-1)).toEqual({ type: 'apply_locally', entries: [entry(1)] });
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    expect(commands.at(-1)).toEqual({ type: 'send', entries: [entry(1)] });
  });

  it('resends in seq order when a failed send is reported after a later publish was queued', async () => {
    const { actor, commands, settle } = await failureAfterLaterPublish();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    expect(commands.at(-1)).toEqual({ type: 'send', entries: [entry(1), entry(2)] });
  });

  it('leaves live when a send fails with the link up, and is live again after the retry delay, resending it', async () => {
    vi.useFakeTimers();
    const { actor, commands, settle, health } = startBus();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    actor.send(publish(1));
    actor.send(publish(2));
    // Redis refused 1 (an error reply), and 2 may already be in the stream: 1 must not wait for a reconnect.
    actor.send({ type: 'publish.failed', entry: entry(1), cause: new Error('OOM command not allowed') });
    expect(health()).toBe('disconnected');
    expect(commands.at(-1)).toEqual({ type: 'apply_locally', entries: [entry(1)] });
    vi.advanceTimersByTime(RETRY_DELAY_MS.first - 1);
    expect(health()).toBe('disconnected');
    vi.advanceTimersByTime(1);
    expect(health()).toBe('catching_up');
    await settle({ gap: false });
    expect(health()).toBe('connected');
    expect(commands.at(-1)).toEqual({ type: 'send', entries: [entry(1)] });
  });

  it('retries a failed read or catch-up with the link up after 1 s, doubling to 30 s, and not at all with the link down', async () => {
    vi.useFakeTimers();
    const { actor, settle, health, catchUps } = startBus();
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    actor.send({ type: 'read.failed', cause: new Error('LOADING Redis is loading the dataset in memory') });
    expect(health()).toBe('disconnected');
    const delays: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      let waited = 0;
      while (health() === 'disconnected') {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      delays.push(waited);
      expect(health()).toBe('catching_up');
      await catchUps.fail(new Error('LOADING'));
      expect(health()).toBe('disconnected');
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    // The link drops: only its return ends the wait, then live resets the delay.
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    vi.advanceTimersByTime(60_000);
    expect(health()).toBe('disconnected');
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    actor.send({ type: 'read.failed', cause: new Error('BUSY') });
    vi.advanceTimersByTime(RETRY_DELAY_MS.first);
    expect(health()).toBe('catching_up');
  });

  it('ends in closed from any state', () => {
    const { actor, health } = startBus();
    actor.send({ type: 'close' });
    expect(health()).toBe('closed');
    expect(actor.getSnapshot().status).toBe('done');
  });
  it('reads wait behind the read barrier only while Redis answers: catching up and live, not connecting, disconnected or closed', async () => {
    const { actor, settle, health } = startBus();
    const barrier = () => [health(), actor.getSnapshot().hasTag('read_barrier')];
    expect(barrier()).toEqual(['connecting', false]);
    actor.send({ type: 'redis.ready' });
    expect(barrier()).toEqual(['catching_up', true]);
    await settle({ gap: true });
    expect(barrier()).toEqual(['resynced', true]);
    actor.send({ type: 'redis.lost', cause: new Error('gone') });
    expect(barrier()).toEqual(['disconnected', false]);
    actor.send({ type: 'redis.ready' });
    await settle({ gap: false });
    expect(barrier()).toEqual(['connected', true]);
    actor.send({ type: 'close' });
    expect(barrier()).toEqual(['closed', false]);
  });
});
