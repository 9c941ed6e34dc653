/**
 * The LeanActor's own contract, on small machines: what test/machines/subscription.test.ts
 * checks through the subscription machine under both runtimes, here on the edges.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, createActor, emit, fromPromise, raise, setup, SimulatedClock, type InspectionEvent, type SnapshotFrom } from 'xstate';
import { LeanActor, type LeanActorHost } from '../../src/runtime/lean-actor.ts';

const counter = setup({
  types: {
    context: {} as { count: number },
    events: {} as { type: 'inc' } | { type: 'echo'; word: string } | { type: 'finish' } | { type: 'explode' },
    emitted: {} as { type: 'counted'; count: number } | { type: 'echoed'; word: string },
    output: {} as number,
  },
  guards: {
    explodes: () => {
      throw new Error('guard failed');
    },
  },
}).createMachine({
  context: { count: 0 },
  initial: 'counting',
  states: {
    counting: {
      after: { 1000: 'timedOut' },
      on: {
        inc: { actions: [assign({ count: ({ context }) => context.count + 1 }), emit(({ context }) => ({ type: 'counted' as const, count: context.count }))] },
        echo: { actions: emit(({ event }) => ({ type: 'echoed' as const, word: event.word })) },
        finish: 'done',
        explode: { guard: 'explodes', target: 'done' },
      },
    },
    timedOut: { type: 'final' },
    done: { type: 'final' },
  },
  output: ({ context }) => context.count,
});

type Counter = typeof counter;

/** A host that records everything, and can send back into the actor from inside `onEmit`. */
function host({ echo = true, ...options }: { clock?: SimulatedClock; inspect?: (event: InspectionEvent) => void; echo?: boolean } = {}) {
  const log: string[] = [];
  const snapshots: SnapshotFrom<Counter>[] = [];
  let actor: LeanActor<Counter> | undefined;
  const recorder: LeanActorHost<Counter> = {
    ...options,
    onEmit(event) {
      log.push(event.type === 'counted' ? `counted ${event.count}` : `echoed ${event.word}`);
      // Sent while the transition that emitted it is still being settled: it must wait its turn.
      if (echo && event.type === 'counted' && event.count === 1) actor!.send({ type: 'echo', word: 'after 1' });
    },
    onSnapshot(snapshot) {
      snapshots.push(snapshot);
      log.push(`snapshot ${snapshot.status} ${snapshot.context.count}`);
    },
  };
  actor = new LeanActor(counter, undefined, recorder);
  return { actor, log, snapshots };
}

describe('LeanActor', () => {
  it('waits for start() before running entry actions; events sent before it queue', () => {
    const h = host();
    h.actor.send({ type: 'inc' });
    expect(h.log).toEqual([]);
    h.actor.start();
    expect(h.log).toEqual(['snapshot active 0', 'counted 1', 'snapshot active 1', 'echoed after 1', 'snapshot active 1']);
  });

  it('runs emitted events after their transition and before the snapshot is reported; a send from inside waits its turn', () => {
    const h = host();
    h.actor.start();
    h.log.length = 0;
    h.actor.send({ type: 'inc' });
    h.actor.send({ type: 'inc' });
    expect(h.log).toEqual(['counted 1', 'snapshot active 1', 'echoed after 1', 'snapshot active 1', 'counted 2', 'snapshot active 2']);
  });

  it('reports done with its output and ignores what is sent afterwards', () => {
    const h = host();
    h.actor.start();
    h.actor.send({ type: 'finish' });
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.actor.getSnapshot().output).toBe(0);
    const reported = h.snapshots.length;
    h.actor.send({ type: 'inc' });
    expect(h.snapshots).toHaveLength(reported);
  });

  it('fires delayed transitions on its clock and cancels them when it is over', () => {
    const clock = new SimulatedClock();
    const timed = host({ clock });
    timed.actor.start();
    clock.increment(999);
    expect(timed.actor.getSnapshot().value).toBe('counting');
    clock.increment(1);
    expect(timed.actor.getSnapshot().value).toBe('timedOut');

    const finished = host({ clock });
    finished.actor.start();
    finished.actor.send({ type: 'finish' });
    const reported = finished.snapshots.length;
    clock.increment(5_000);
    expect(finished.actor.getSnapshot().value).toBe('done');
    expect(finished.snapshots).toHaveLength(reported);
  });

  it('a throwing guard puts it in error, as an xstate actor, and it stays there', () => {
    const h = host();
    h.actor.start();
    h.actor.send({ type: 'explode' });
    const snapshot = h.actor.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(String(snapshot.error)).toMatch(/explodes/);
    h.actor.send({ type: 'inc' });
    expect(h.actor.getSnapshot()).toBe(snapshot);
  });

  it('tells subscribers every snapshot until they unsubscribe', () => {
    const h = host();
    h.actor.start();
    const seen: number[] = [];
    const subscription = h.actor.subscribe((snapshot) => seen.push(snapshot.context.count));
    h.actor.send({ type: 'inc' });
    subscription.unsubscribe();
    h.actor.send({ type: 'inc' });
    expect(seen).toEqual([1, 1]);
  });

  it('sends the inspection events an xstate actor sends, in the same order, rooted at itself', () => {
    const kinds = (event: InspectionEvent) => (event.type === '@xstate.action' ? `action ${event.action.type}` : event.type);
    const script = (actor: { start(): unknown; send(event: { type: 'inc' } | { type: 'finish' }): void }) => {
      actor.start();
      actor.send({ type: 'inc' });
      actor.send({ type: 'finish' });
    };
    const expected: string[] = [];
    script(createActor(counter, { inspect: (event) => expected.push(kinds(event)) }));

    const events: InspectionEvent[] = [];
    const h = host({ inspect: (event) => events.push(event), echo: false });
    script(h.actor);
    expect(events.map(kinds)).toEqual(expected);
    expect(events.every((event) => event.actorRef === h.actor && event.rootId === h.actor.sessionId)).toBe(true);
    expect(events.at(-1)).toMatchObject({ snapshot: { value: 'done' }, event: { type: 'finish' } });
  });

  it('refuses a machine that would invoke a child when it is created, with an error that says so', () => {
    const invoking = setup({ actors: { child: fromPromise(async () => 1) } }).createMachine({ invoke: { src: 'child' } });
    expect(() => new LeanActor(invoking, undefined, { onEmit: () => undefined, onSnapshot: () => undefined })).toThrow(/does not host child actors/);
  });
});

describe('LeanActor when something throws or ends', () => {
  afterEach(() => vi.useRealTimers());

  it('a throwing emit handler is reported outside the actor, which goes on', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const actor = new LeanActor(counter, undefined, {
      clock: new SimulatedClock(), // the machine's own timer stays off the faked global ones
      onEmit() {
        throw new Error('handler failed');
      },
      onSnapshot: (snapshot) => seen.push(snapshot.context.count),
    }).start();
    actor.send({ type: 'inc' });
    actor.send({ type: 'inc' });
    expect(seen).toEqual([0, 1, 2]);
    expect(actor.getSnapshot().status).toBe('active');
    // Reported as xstate reports it: thrown from a timer of its own (two reports, one per emit).
    expect(vi.getTimerCount()).toBe(2);
    vi.clearAllTimers();
  });

  it('a transition that throws runs none of what it deferred', () => {
    const failing = setup({
      types: { emitted: {} as { type: 'opened' } },
      actions: {
        fail: () => {
          throw new Error('action failed');
        },
      },
    }).createMachine({ initial: 'idle', states: { idle: { on: { go: { actions: [emit({ type: 'opened' }), 'fail'] } } } } });
    const emitted: string[] = [];
    const actor = new LeanActor(failing, undefined, { onEmit: (event) => emitted.push(event.type), onSnapshot: () => undefined }).start();
    actor.send({ type: 'go' });
    expect(actor.getSnapshot().status).toBe('error');
    expect(emitted).toEqual([]);
  });

  it('observers get next then complete when done, error when it fails, and a late subscriber hears how it ended', () => {
    const done = host({ echo: false });
    done.actor.start();
    const calls: string[] = [];
    done.actor.subscribe({ next: (snapshot) => calls.push(`next ${snapshot.status}`), complete: () => calls.push('complete'), error: () => calls.push('error') });
    done.actor.send({ type: 'finish' });
    done.actor.subscribe({ complete: () => calls.push('late complete') });
    expect(calls).toEqual(['next done', 'complete', 'late complete']);

    const failed = host({ echo: false });
    failed.actor.start();
    const errors: unknown[] = [];
    failed.actor.subscribe({ next: () => errors.push('next'), error: (error) => errors.push(String(error)) });
    failed.actor.send({ type: 'explode' });
    failed.actor.subscribe({ error: () => errors.push('late error') });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/explodes/);
    expect(errors[1]).toBe('late error');
  });

  it('stop(): stopped, its timers cancelled, observers completed, later events ignored; before start() its entry actions never run', () => {
    const clock = new SimulatedClock();
    const h = host({ clock, echo: false });
    h.actor.start();
    const calls: string[] = [];
    h.actor.subscribe({ next: (snapshot) => calls.push(`next ${snapshot.status}`), complete: () => calls.push('complete') });
    h.actor.stop();
    expect(h.actor.getSnapshot().status).toBe('stopped');
    expect(calls).toEqual(['complete']);
    const reported = h.snapshots.length;
    clock.increment(5_000);
    h.actor.send({ type: 'inc' });
    expect(h.snapshots).toHaveLength(reported);

    const emitted: string[] = [];
    const greeting = setup({ types: { emitted: {} as { type: 'hello' } } }).createMachine({ entry: emit({ type: 'hello' }) });
    const never = new LeanActor(greeting, undefined, { onEmit: (event) => emitted.push(event.type), onSnapshot: () => undefined });
    never.stop();
    never.start();
    expect(never.getSnapshot().status).toBe('stopped');
    expect(emitted).toEqual([]);
  });

  it('two unnamed delayed events both fire; a second start() does nothing', () => {
    const ticking = setup({ types: { context: {} as { ticks: number } } }).createMachine({
      context: { ticks: 0 },
      entry: [raise({ type: 'tick' }, { delay: 100 }), raise({ type: 'tick' }, { delay: 200 })],
      on: { tick: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) } },
    });
    const clock = new SimulatedClock();
    const actor = new LeanActor(ticking, undefined, { clock, onEmit: () => undefined, onSnapshot: () => undefined }).start();
    actor.start();
    clock.increment(200);
    expect(actor.getSnapshot().context.ticks).toBe(2);
  });
});
