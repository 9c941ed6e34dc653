/**
 * Every xstate built-in action under the LeanActor: either it works as under
 * `createActor` (the same context, the same emitted events, on the same
 * script), or the actor is refused when it is created, with an error that
 * names the action and the state.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  assign,
  cancel,
  createActor,
  createMachine,
  emit,
  enqueueActions,
  forwardTo,
  fromPromise,
  log,
  raise,
  sendParent,
  sendTo,
  setup,
  SimulatedClock,
  spawnChild,
  stopChild,
  type AnyActorRef,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import { LeanActor } from '../../src/runtime/lean-actor.ts';
import { LeanActorUnsupportedError } from '../../src/runtime/lean-refusals.ts';

type Step = EventObject | { advance: number };

/** Runs the machine under one runtime on the script: its final context and status, and what it emitted. */
function run(runtime: 'xstate' | 'lean', machine: AnyStateMachine, script: Step[], input?: unknown) {
  const clock = new SimulatedClock();
  const emitted: unknown[] = [];
  const actor =
    runtime === 'lean'
      ? new LeanActor(machine, input, { clock, onEmit: (event) => emitted.push(event), onSnapshot: () => undefined })
      : createActor(machine, { input, clock });
  if (!(actor instanceof LeanActor)) actor.on('*', (event) => emitted.push(event));
  actor.subscribe({ error: () => undefined });
  actor.start();
  for (const step of script) {
    if ('advance' in step) clock.increment(step.advance);
    else actor.send(step);
  }
  const { status, context, error } = actor.getSnapshot();
  return { status, context, error, emitted };
}

interface Counting {
  hits: number;
  target: AnyActorRef | undefined;
}
const counting = setup({ types: { context: {} as Counting, input: {} as { target?: AnyActorRef } } });
type CountingAction = NonNullable<Parameters<typeof counting.createMachine>[0]['entry']>;

/** A machine that counts `hit`s and says so, with the action under test on `go`. */
function machineWith(actions: CountingAction) {
  return counting.createMachine({
    context: ({ input }) => ({ hits: 0, target: input.target }),
    on: {
      go: { actions },
      hit: { actions: [assign({ hits: ({ context }) => context.hits + 1 }), emit(({ context }) => ({ type: 'hits', hits: context.hits }))] },
    },
  });
}

const works: [string, AnyStateMachine, Step[]][] = [
  ['assign', machineWith(assign({ hits: 10 })), [{ type: 'go' }, { type: 'hit' }]],
  ['raise', machineWith(raise({ type: 'hit' })), [{ type: 'go' }, { type: 'go' }]],
  ['raise, delayed', machineWith(raise({ type: 'hit' }, { delay: 100 })), [{ type: 'go' }, { advance: 99 }, { type: 'hit' }, { advance: 1 }]],
  [
    'cancel',
    createMachine({
      context: { hits: 0 },
      on: {
        go: { actions: raise({ type: 'hit' }, { delay: 100, id: 'later' }) },
        stop: { actions: cancel('later') },
        hit: { actions: assign({ hits: ({ context }) => context.hits + 1 }) },
      },
    }),
    [{ type: 'go' }, { type: 'stop' }, { advance: 200 }, { type: 'go' }, { advance: 200 }],
  ],
  ['emit', machineWith(emit({ type: 'went' })), [{ type: 'go' }, { type: 'hit' }]],
  [
    'enqueueActions',
    machineWith(
      enqueueActions(({ enqueue, check }) => {
        enqueue.assign({ hits: 5 });
        if (check(() => true)) enqueue.raise({ type: 'hit' });
        enqueue.emit({ type: 'enqueued' });
        enqueue.sendTo(({ self }) => self, { type: 'hit' });
      }),
    ),
    [{ type: 'go' }],
  ],
  ['sendTo itself (issue 15: `_relay is not a function`)', machineWith(sendTo(({ self }) => self, { type: 'hit' })), [{ type: 'go' }, { type: 'go' }]],
  ['sendTo itself, delayed', machineWith(sendTo(({ self }) => self, { type: 'hit' }, { delay: 50 })), [{ type: 'go' }, { advance: 50 }]],
];

describe('LeanActor: the built-in actions that work, as under createActor', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(works)('%s', (_name, machine, script) => {
    const lean = run('lean', machine, script, {});
    expect(lean.status).toBe('active');
    expect(lean).toEqual(run('xstate', machine, script, {}));
  });

  it('log: the same lines to console.log as createActor to its logger', () => {
    const machine = machineWith(log(({ context }) => `hits ${context.hits}`, 'count'));
    const logged: unknown[][] = [];
    const xstate = createActor(machine, { input: {}, logger: (...line: unknown[]) => logged.push(line) }).start();
    xstate.send({ type: 'hit' });
    xstate.send({ type: 'go' });
    const lines = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    run('lean', machine, [{ type: 'hit' }, { type: 'go' }], {});
    expect(lines.mock.calls).toEqual(logged);
    expect(logged).toEqual([['count', 'hits 1']]);
  });

  it('sendTo and forwardTo another actor: it receives the events', () => {
    const senders = [machineWith(sendTo(({ context }) => context.target!, { type: 'hit' })), machineWith(forwardTo(({ context }) => context.target!))];
    for (const sender of senders) {
      const counter = createActor(createMachine({ context: { received: 0 }, on: { '*': { actions: assign({ received: ({ context }) => context.received + 1 }) } } })).start();
      const lean = new LeanActor(sender, { target: counter }, { onEmit: () => undefined, onSnapshot: () => undefined }).start();
      lean.send({ type: 'go' });
      lean.send({ type: 'go' });
      expect(counter.getSnapshot().context.received).toBe(2);
      counter.stop();
    }
  });
});

const child = fromPromise(async () => 1);
const refused: [string, AnyStateMachine, { action: string | RegExp; state: string }][] = [
  [
    'invoke',
    setup({ actors: { child } }).createMachine({ id: 'm', initial: 'a', states: { a: { on: { go: 'b' } }, b: { invoke: { src: 'child' } } } }),
    { action: 'invoke (child)', state: 'm.b' },
  ],
  ['spawnChild', setup({ actors: { child } }).createMachine({ id: 'm', entry: spawnChild('child') }), { action: 'spawnChild', state: 'm' }],
  ['stopChild', createMachine({ id: 'm', on: { go: { actions: stopChild('x') } } }), { action: 'stopChild', state: 'm' }],
  ['sendParent', createMachine({ id: 'm', initial: 'a', states: { a: { exit: sendParent({ type: 'bye' }) } } }), { action: 'sendParent', state: 'm.a' }],
  ['sendTo a child id', createMachine({ id: 'm', on: { go: { actions: sendTo('worker', { type: 'x' }) } } }), { action: "sendTo('worker')", state: 'm' }],
  ['forwardTo a child id', createMachine({ id: 'm', always: { actions: forwardTo('worker'), guard: () => false } }), { action: "sendTo('worker')", state: 'm' }],
  [
    'a named action that is one of them (setup)',
    setup({ actions: { tellParent: sendParent({ type: 'bye' }) } }).createMachine({ id: 'm', initial: 'a', states: { a: { after: { 10: { actions: 'tellParent' } } } } }),
    { action: 'sendParent', state: 'm.a' },
  ],
];

describe('LeanActor: the built-in actions it refuses when it is created', () => {
  it.each(refused)('%s', (_name, machine, expected) => {
    let error: unknown;
    try {
      new LeanActor(machine, undefined, { onEmit: () => undefined, onSnapshot: () => undefined });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(LeanActorUnsupportedError);
    expect(error).toMatchObject({ code: 'lean_actor_unsupported', machine: 'm', ...expected });
    expect(String(error)).toContain(`in state '${expected.state}'`);
  });

  it('a child spawned at run time (enqueueActions, spawn in assign) ends the actor in error with the same error, naming the state', () => {
    const spawning = setup({ types: { context: {} as { ref?: unknown } }, actors: { child } });
    const machines = [
      spawning.createMachine({ id: 'm', context: {}, initial: 'idle', states: { idle: { on: { go: { actions: enqueueActions(({ enqueue }) => enqueue.spawnChild('child')) } } } } }),
      spawning.createMachine({ id: 'm', context: {}, initial: 'idle', states: { idle: { on: { go: { actions: assign({ ref: ({ spawn }) => spawn('child') }) } } } } }),
    ];
    for (const machine of machines) {
      const actor = new LeanActor(machine, undefined, { onEmit: () => undefined, onSnapshot: () => undefined }).start();
      actor.send({ type: 'go' });
      const { status, error } = actor.getSnapshot();
      expect(status).toBe('error');
      expect(error).toBeInstanceOf(LeanActorUnsupportedError);
      expect(error).toMatchObject({ action: 'spawn', state: '"idle"', machine: 'm' });
    }
  });
});
