/**
 * The lean runtime against xstate's own actor, on random event sequences.
 * Every machine a LeanActor hosts (today machines/subscription.machine.ts,
 * the stream's actor in src/client/subscription.ts), plus one machine that
 * uses every built-in action the lean runtime supports, runs under
 * `createActor` and under `LeanActor` on the same steps (events drawn from
 * the machine's event union with plausible payloads, clock advances, a
 * `stop()`, and a host that answers some commands from inside the emit
 * handler). After every step the two must agree on:
 * - the snapshot: value, context, status, output, error;
 * - what observers and emit handlers heard, interleaved, in order;
 * - the inspection events, in order: type, event, action, snapshot, and
 *   `actorRef`/`sourceRef`.
 * Normalised, because the runtimes cannot agree on them: actor references
 * become `self`/`other`/undefined (xstate's session ids are `x:<n>`, the lean
 * runtime's `lean:<n>`; `rootId` is checked to be the actor's own session id
 * in each, then dropped); functions become a marker (each run gets its own
 * seeded `random` with the same seed); errors become their name, message and
 * own fields; a microstep's `_transitions` become their source and target
 * state ids; snapshots inside inspection events become value/context/status.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { assign, cancel, createActor, emit, enqueueActions, raise, sendTo, setup, SimulatedClock, type AnyStateMachine, type EventObject, type InspectionEvent } from 'xstate';
import { LeanActor } from '../../src/runtime/lean-actor.ts';
import { listenStreamMachine, type ListenStreamEvent } from '../../machines/listen-stream.machine.ts';
import { sharedStepsLogic } from '../../src/server/listen-stream-logic.ts';
import { subscriptionMachine, type ListenCommand, type SubscriptionEvent, type SubscriptionInput } from '../../machines/subscription.machine.ts';
import { ResyncInterruptedError } from '../../machines/subscription-errors.ts';
import type { NotificationFilter } from '../../machines/notification-filter.ts';
import { seededRandom } from '../setup/seeded-random.ts';

type Step = { send: EventObject } | { advance: number } | { stop: true };

/** One machine the lean runtime hosts, with how to draw its inputs and events, and how its host answers what it emits. */
interface Hosted {
  name: string;
  machine: AnyStateMachine;
  /** A fresh input per run (inputs may hold stateful functions such as a seeded `random`). */
  input: fc.Arbitrary<() => unknown>;
  event: fc.Arbitrary<EventObject>;
  /** What the host sends back from inside the emit handler (a synchronous I/O), when the run says so. */
  answer?: (emitted: EventObject) => EventObject | undefined;
  /** False where the host never inspects this logic, so inspection events are not compared. */
  inspected?: false;
}

interface Actorish {
  start(): unknown;
  stop(): unknown;
  send(event: EventObject): void;
  getSnapshot(): { value: unknown; context: unknown; status: string; output?: unknown; error?: unknown };
  readonly sessionId: string;
}

/** Runs the steps under one runtime and records everything observable, normalised. */
function observe(runtime: 'xstate' | 'lean', hosted: Hosted, input: unknown, steps: Step[], answerInline: boolean) {
  const clock = new SimulatedClock();
  const heard: unknown[] = [];
  const inspected: InspectionEvent[] = [];
  let actor!: Actorish;
  const onEmit = (event: EventObject) => {
    heard.push({ emitted: plain(event, actor) });
    const answer = answerInline ? hosted.answer?.(event) : undefined;
    if (answer) actor.send(answer);
  };
  const inspect = (event: InspectionEvent) => inspected.push(event);
  if (runtime === 'lean') {
    actor = new LeanActor(hosted.machine, input, { clock, inspect, onEmit, onSnapshot: () => undefined });
  } else {
    const xstate = createActor(hosted.machine, { input, clock, inspect });
    xstate.on('*', onEmit);
    actor = xstate;
  }
  (actor as LeanActor<AnyStateMachine>).subscribe({
    next: (snapshot) => heard.push({ next: snapshotOf(snapshot, actor) }),
    error: (error) => heard.push({ error: plain(error, actor) }),
    complete: () => heard.push('complete'),
  });
  actor.start();
  const states = [snapshotOf(actor.getSnapshot(), actor)];
  for (const step of steps) {
    if ('send' in step) actor.send(step.send);
    else if ('advance' in step) clock.increment(step.advance);
    else actor.stop();
    states.push(snapshotOf(actor.getSnapshot(), actor));
  }
  expect(inspected.every((event) => event.rootId === actor.sessionId)).toBe(true);
  return { states, heard, inspected: inspected.map((event) => inspection(event, actor)) };
}

function snapshotOf(snapshot: { value?: unknown; context?: unknown; status: string; output?: unknown; error?: unknown }, self: object) {
  return plain({ value: snapshot.value, context: snapshot.context, status: snapshot.status, output: snapshot.output, error: snapshot.error }, self);
}

/** An inspection event with what both runtimes can agree on. */
function inspection(event: InspectionEvent, self: object): unknown {
  const ref = (actor: unknown) => (actor === undefined ? undefined : actor === self ? 'self' : 'other');
  switch (event.type) {
    case '@xstate.actor':
      return { type: event.type, actorRef: ref(event.actorRef) };
    case '@xstate.event':
      return { type: event.type, actorRef: ref(event.actorRef), sourceRef: ref(event.sourceRef), event: plain(event.event, self) };
    case '@xstate.action':
      return { type: event.type, actorRef: ref(event.actorRef), action: plain(event.action, self) };
    case '@xstate.snapshot':
      return { type: event.type, actorRef: ref(event.actorRef), event: plain(event.event, self), snapshot: snapshotOf(event.snapshot as never, self) };
    case '@xstate.microstep':
      return {
        type: event.type,
        actorRef: ref(event.actorRef),
        event: plain(event.event, self),
        snapshot: snapshotOf(event.snapshot as never, self),
        transitions: event._transitions.map((t) => ({ source: t.source.id, target: t.target?.map((node) => node.id) })),
      };
    default:
      return { type: (event as { type: string }).type };
  }
}

/** Data as both runtimes can agree on it (see the module comment). */
function plain(value: unknown, self: object): unknown {
  if (typeof value === 'function') return '[function]';
  if (value === self) return '[self]';
  if (value instanceof Error) {
    const fields = Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field, self)]));
    return { error: value.name, message: value.message, ...fields };
  }
  if (Array.isArray(value)) return value.map((item) => plain(item, self));
  if (value && typeof value === 'object') {
    if ('sessionId' in value) return '[actor]';
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field, self)]));
  }
  return value;
}


const requested: NotificationFilter = { toolsListChanged: true, resourceSubscriptions: ['file:///a', 'file:///b'] };
const filter: fc.Arbitrary<NotificationFilter> = fc.record(
  {
    toolsListChanged: fc.boolean(),
    promptsListChanged: fc.boolean(),
    resourceSubscriptions: fc.subarray(['file:///a', 'file:///b', 'file:///c']),
  },
  { requiredKeys: [] },
);
const cause = fc.constantFrom<unknown>(undefined, 'proxy cut', new Error('socket hang up'));
const era = fc.constantFrom('modern' as const, 'legacy' as const);

const subscriptionEvent: fc.Arbitrary<SubscriptionEvent> = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant('listen.acknowledged' as const), honored: fc.oneof(fc.constant(requested), filter) }), weight: 4 },
  fc.record({ type: fc.constant('listen.ack_malformed' as const), error: fc.constant(new Error('toolsListChanged must be a boolean')) }),
  fc.record({ type: fc.constant('listen.result' as const), result: fc.constant({}) }),
  fc.record({ type: fc.constant('listen.error' as const), error: fc.constant({ code: -32602, message: 'bad filter' }) }),
  fc.record({ type: fc.constant('listen.cancelled' as const), reason: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }) }),
  { arbitrary: fc.record({ type: fc.constant('listen.ended' as const), cause, acknowledgedForMs: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }) }), weight: 3 },
  fc.record({ type: fc.constant('resync.done' as const), snapshot: fc.constant({ tools: [] }) }),
  fc.record({ type: fc.constant('resync.failed' as const), error: fc.constantFrom<unknown>(new ResyncInterruptedError(), new Error('list failed')) }),
  { arbitrary: fc.record({ type: fc.constant('connection.ready' as const), era, generation: fc.nat(5) }), weight: 3 },
  { arbitrary: fc.record({ type: fc.constant('connection.lost' as const), cause }), weight: 3 },
  fc.record({ type: fc.constant('connection.era_changed' as const), from: era, to: era }),
  fc.record({
    type: fc.constant('connection.closed' as const),
    reason: fc.constantFrom(
      { type: 'disconnected' as const },
      { type: 'transport_closed' as const, cause: 'EOF' },
      { type: 'reconnect_exhausted' as const, cause: 'EOF', attempts: 3 },
      { type: 'shutdown' as const, cause: undefined },
    ),
  }),
  fc.constant({ type: 'close' as const }),
  fc.constant({ type: 'subscriber.stopped' as const }),
  fc.record({ type: fc.constant('delivery.dropped' as const), cap: fc.integer({ min: 1, max: 1000 }) }),
);

const subscriptionInput: fc.Arbitrary<() => SubscriptionInput> = fc
  .record({
    ackTimeoutMs: fc.integer({ min: 1, max: 30_000 }),
    relisten: fc.option(fc.record({ maxAttempts: fc.integer({ min: 1, max: 4 }), baseDelayMs: fc.integer({ min: 1, max: 1_000 }), maxDelayMs: fc.integer({ min: 1_000, max: 10_000 }), seed: fc.nat() }), { nil: false as const }),
  })
  .map(({ ackTimeoutMs, relisten }) => () => ({
    subscriptionId: 7,
    requested,
    ackTimeoutMs,
    relisten: relisten && { backoff: { maxAttempts: relisten.maxAttempts, baseDelayMs: relisten.baseDelayMs, maxDelayMs: relisten.maxDelayMs }, random: seededRandom(relisten.seed) },
  }));

/** Every built-in action the lean runtime supports, in one small machine, with a final state and a throwing guard. */
const builtIns = setup({
  types: {
    context: {} as { count: number },
    events: {} as { type: 'inc' } | { type: 'later'; ms: number } | { type: 'drop' } | { type: 'echo' } | { type: 'batch' } | { type: 'boom' } | { type: 'finish' } | { type: 'tick' },
    emitted: {} as { type: 'counted'; count: number } | { type: 'ticked' },
  },
  guards: {
    explodes: () => {
      throw new Error('guard failed');
    },
  },
}).createMachine({
  id: 'builtIns',
  context: { count: 0 },
  initial: 'running',
  states: {
    running: {
      after: { 5_000: { actions: emit({ type: 'ticked' }) } },
      on: {
        inc: { actions: [assign({ count: ({ context }) => context.count + 1 }), emit(({ context }) => ({ type: 'counted' as const, count: context.count }))] },
        later: { actions: raise({ type: 'tick' }, { delay: ({ event }) => event.ms, id: 'tick' }) },
        drop: { actions: cancel('tick') },
        tick: { actions: [emit({ type: 'ticked' }), sendTo(({ self }) => self, { type: 'inc' })] },
        echo: { actions: sendTo(({ self }) => self, { type: 'inc' }, { delay: 10 }) },
        batch: {
          actions: enqueueActions(({ enqueue, context }) => {
            enqueue.assign({ count: context.count * 2 });
            enqueue.raise({ type: 'inc' });
            if (context.count > 3) enqueue.raise({ type: 'finish' });
          }),
        },
        boom: { guard: 'explodes', target: 'done' },
        finish: 'done',
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.count,
});

const builtInEvent = fc.oneof(
  { arbitrary: fc.constant({ type: 'inc' }), weight: 4 },
  fc.record({ type: fc.constant('later'), ms: fc.integer({ min: 0, max: 3_000 }) }),
  fc.constantFrom({ type: 'drop' }, { type: 'echo' }, { type: 'batch' }, { type: 'tick' }, { type: 'finish' }),
  { arbitrary: fc.constant({ type: 'boom' }), weight: 1 },
);

const listenStreamEvent: fc.Arbitrary<ListenStreamEvent> = fc.oneof(
  { arbitrary: fc.constant({ type: 'ack.sent' as const }), weight: 3 },
  fc.constant({ type: 'finish.flushed' as const }),
  fc.constant({ type: 'client.cancelled' as const }),
  fc.constant({ type: 'transport.closed' as const }),
  { arbitrary: fc.constant({ type: 'server.complete' as const }), weight: 2 },
  fc.record({
    type: fc.constant('overflow' as const),
    overflow: fc.record({ type: fc.constant('slow_consumer' as const), exceeded: fc.constantFrom('events' as const, 'bytes' as const), maxPending: fc.integer({ min: 1, max: 1_024 }), maxPendingBytes: fc.integer({ min: 1, max: 65_536 }) }),
  }),
);
const listenStreamInput = fc.integer({ min: 1, max: 30_000 }).map((finishTimeoutMs) => () => ({ finishTimeoutMs }));

const hosted: Hosted[] = [
  { name: 'listen-stream machine (src/server/listen-stream.ts)', machine: listenStreamMachine, input: listenStreamInput, event: listenStreamEvent },
  // What the server hosts when no inspector is set: the same machine with its opening steps shared between streams.
  // Only then: with an inspector it hosts the plain machine above, so this logic's inspection events are never seen
  // (the lean runtime reports a shared step's microstep from the step's origin, which xstate does not).
  { name: 'listen-stream machine with shared steps (src/server/listen-stream-logic.ts)', machine: sharedStepsLogic(), input: listenStreamInput, event: listenStreamEvent, inspected: false },
  {
    name: 'subscription machine (src/client/subscription.ts)',
    machine: subscriptionMachine,
    input: subscriptionInput,
    event: subscriptionEvent,
    // The resync fetch answering at once, from inside the emit handler.
    answer: (emitted) => ((emitted as ListenCommand).type === 'resync.start' ? { type: 'resync.done', snapshot: { tools: [] } } : undefined),
  },
  { name: 'every supported built-in action', machine: builtIns, input: fc.constant(() => undefined), event: builtInEvent },
];

function steps(event: fc.Arbitrary<EventObject>): fc.Arbitrary<Step[]> {
  return fc.array(
    fc.oneof(
      { arbitrary: event.map((send) => ({ send })), weight: 8 },
      { arbitrary: fc.integer({ min: 1, max: 40_000 }).map((advance) => ({ advance })), weight: 2 },
      { arbitrary: fc.constant({ stop: true as const }), weight: 1 },
    ),
    { maxLength: 25 },
  );
}

describe('the lean runtime against createActor', () => {
  // xstate warns on every event sent to an actor that is over; the lean runtime ignores them quietly. Both are compared, not printed.
  beforeEach(() => vi.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => vi.restoreAllMocks());

  it.each(hosted)('$name: same snapshots, emitted events, observer calls and inspection events', (machine) => {
    fc.assert(
      fc.property(machine.input, steps(machine.event), fc.boolean(), (input, script, answerInline) => {
        const lean = observe('lean', machine, input(), script, answerInline);
        const xstate = observe('xstate', machine, input(), script, answerInline);
        expect(lean.states).toEqual(xstate.states);
        expect(lean.heard).toEqual(xstate.heard);
        if (machine.inspected !== false) expect(lean.inspected).toEqual(xstate.inspected);
      }),
      { numRuns: 200 },
    );
    // 200 runs of up to 25 steps, twice each: ~4 s on a quiet machine; a busy one needs room.
  }, 60_000);
});
