/**
 * The server-side machines on their own: fake actors and the simulated clock.
 */
import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { LeanActor } from '../../src/runtime/lean-actor.ts';
import { sharedStepsLogic } from '../../src/server/listen-stream-logic.ts';
import { listenStreamMachine, type StreamEnding } from '../../machines/listen-stream.machine.ts';
import { serverSessionMachine } from '../../machines/server-session.machine.ts';

// Every rule under xstate's own actor, under the LeanActor the server runs each stream in, and
// with the steps a server shares between its streams (one logic for every actor of a run, as a server has).
describe.each(['xstate actor', 'lean actor', 'lean actor, shared steps'] as const)('listen-stream machine (%s)', (runtime) => {
  const shared = sharedStepsLogic();
  const start = (finishTimeoutMs: number, clock?: SimulatedClock) => {
    const finishes: StreamEnding[] = [];
    if (runtime !== 'xstate actor') {
      const host = { clock, onEmit: (command: { ending: StreamEnding }) => void finishes.push(command.ending), onSnapshot: () => undefined };
      const logic = runtime === 'lean actor' ? listenStreamMachine : shared;
      return { actor: new LeanActor(logic, { finishTimeoutMs }, host).start(), finishes };
    }
    const actor = createActor(listenStreamMachine, clock ? { input: { finishTimeoutMs }, clock } : { input: { finishTimeoutMs } });
    actor.on('finish', (command) => finishes.push(command.ending));
    return { actor: actor.start(), finishes };
  };

  it('opens only after the acknowledgment was sent', () => {
    const { actor } = start(1000);
    expect(actor.getSnapshot().value).toBe('acknowledging');
    actor.send({ type: 'ack.sent' });
    expect(actor.getSnapshot().value).toBe('open');
  });

  it('ends with the reason: client cancel, transport loss', () => {
    const cases = [
      [{ type: 'client.cancelled' }, { type: 'client_cancelled' }],
      [{ type: 'transport.closed' }, { type: 'transport_closed' }],
    ] as const;
    for (const [event, reason] of cases) {
      const { actor, finishes } = start(1000);
      actor.send({ type: 'ack.sent' });
      actor.send(event);
      expect(actor.getSnapshot().status).toBe('done');
      expect(actor.getSnapshot().output).toEqual(reason);
      expect(finishes).toEqual([]);
    }
  });

  it('asks for the completion to be written, and completes once it is flushed', () => {
    const { actor, finishes } = start(1000);
    actor.send({ type: 'ack.sent' });
    actor.send({ type: 'server.complete' });
    expect(actor.getSnapshot().value).toBe('closing');
    expect(finishes).toEqual([{ type: 'completed' }]);
    actor.send({ type: 'finish.flushed' });
    expect(actor.getSnapshot().output).toEqual({ type: 'completed' });
  });

  it('on overflow, asks for the slow-consumer error and ends slow_consumer once it is flushed', () => {
    const { actor, finishes } = start(1000);
    actor.send({ type: 'ack.sent' });
    const overflow = { type: 'slow_consumer', exceeded: 'bytes', maxPending: 8, maxPendingBytes: 1024 } as const;
    actor.send({ type: 'overflow', overflow });
    expect(actor.getSnapshot().value).toBe('closing');
    expect(finishes).toEqual([overflow]);
    actor.send({ type: 'finish.flushed' });
    expect(actor.getSnapshot().output).toEqual(overflow);
  });

  it('cuts a last message that never flushes after finishTimeout, reporting finish_timeout (not completed)', () => {
    for (const end of [{ type: 'server.complete' }, { type: 'overflow', overflow: { type: 'slow_consumer', exceeded: 'events', maxPending: 4, maxPendingBytes: 1024 } }] as const) {
      const clock = new SimulatedClock();
      const { actor } = start(5000, clock);
      actor.send({ type: 'ack.sent' });
      actor.send(end);
      clock.increment(4999);
      expect(actor.getSnapshot().value).toBe('closing');
      clock.increment(1);
      expect(actor.getSnapshot().output).toEqual({ type: 'finish_timeout' });
    }
  });

  it('a client cancelling while the completion is flushing ends it as cancelled', () => {
    const { actor } = start(5000);
    actor.send({ type: 'ack.sent' });
    actor.send({ type: 'server.complete' });
    actor.send({ type: 'client.cancelled' });
    expect(actor.getSnapshot().output).toEqual({ type: 'client_cancelled' });
  });

  it('closing before the acknowledgment went out ends at once, without a finish', () => {
    const { actor, finishes } = start(5000);
    actor.send({ type: 'server.complete' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ type: 'completed' });
    expect(finishes).toEqual([]);
  });
});

describe('server-session machine', () => {
  const versions = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

  it('keeps a supported requested version and falls back to the latest otherwise', () => {
    for (const [requested, negotiated] of [['2025-03-26', '2025-03-26'], ['2099-01-01', '2025-11-25'], [undefined, '2025-11-25']] as const) {
      const actor = createActor(serverSessionMachine, { input: { supportedVersions: versions, idleMs: 60_000 } }).start();
      actor.send({ type: 'initialize', requestedVersion: requested, clientCapabilities: { roots: {} } });
      expect(actor.getSnapshot().context.protocolVersion).toBe(negotiated);
      expect(actor.getSnapshot().context.clientCapabilities).toEqual({ roots: {} });
    }
  });

  it('goes uninitialized → initializing → initialized → closed with the reason', () => {
    const actor = createActor(serverSessionMachine, { input: { supportedVersions: versions, idleMs: 60_000 } }).start();
    actor.send({ type: 'initialized' });
    expect(actor.getSnapshot().value).toBe('uninitialized');
    actor.send({ type: 'initialize', requestedVersion: '2025-11-25', clientCapabilities: {} });
    expect(actor.getSnapshot().value).toBe('initializing');
    actor.send({ type: 'initialized' });
    expect(actor.getSnapshot().value).toBe('initialized');
    actor.send({ type: 'end', reason: { type: 'client_deleted' } });
    expect(actor.getSnapshot().output).toEqual({ type: 'client_deleted' });
  });

  /** A session on a simulated clock: idle after 60 s, and with `initializeMs` an initialization limit. */
  const start = (initializeMs?: number) => {
    const clock = new SimulatedClock();
    const actor = createActor(serverSessionMachine, { input: { supportedVersions: versions, idleMs: 60_000, initializeMs }, clock }).start();
    return { clock, actor };
  };

  describe('initialization timeout', () => {
    const initialize = { type: 'initialize', requestedVersion: '2025-11-25', clientCapabilities: {} } as const;

    it('ends a session not initialized within initializeMs of its start, whatever it does meanwhile', () => {
      for (const events of [[], [initialize], [initialize, { type: 'hold' }, { type: 'activity' }]] as const) {
        const { clock, actor } = start(30_000);
        clock.increment(10_000);
        for (const event of events) actor.send(event);
        clock.increment(19_999);
        expect(actor.getSnapshot().status).toBe('active');
        clock.increment(1);
        expect(actor.getSnapshot().output).toEqual({ type: 'initialize_timeout', initializeMs: 30_000 });
      }
    });

    it('leaves an initialized session alone, and has no limit without initializeMs', () => {
      const initialized = start(30_000);
      initialized.actor.send(initialize);
      initialized.actor.send({ type: 'initialized' });
      initialized.clock.increment(59_999);
      expect(initialized.actor.getSnapshot().value).toBe('initialized');
      const unlimited = start();
      unlimited.clock.increment(59_999);
      expect(unlimited.actor.getSnapshot().value).toBe('uninitialized');
    });
  });

  describe('idle timeout', () => {
    it('ends a session without activity after sessionIdle, in any live state', () => {
      for (const events of [[], [{ type: 'initialize', requestedVersion: '2025-11-25', clientCapabilities: {} }], [{ type: 'initialize', requestedVersion: '2025-11-25', clientCapabilities: {} }, { type: 'initialized' }]] as const) {
        const { clock, actor } = start();
        for (const event of events) actor.send(event);
        clock.increment(59_999);
        expect(actor.getSnapshot().status).toBe('active');
        clock.increment(1);
        expect(actor.getSnapshot().output).toEqual({ type: 'idle_timeout', idleMs: 60_000 });
      }
    });

    it('restarts the idle time on activity', () => {
      const { clock, actor } = start();
      clock.increment(50_000);
      actor.send({ type: 'activity' });
      clock.increment(59_999);
      expect(actor.getSnapshot().status).toBe('active');
      clock.increment(1);
      expect(actor.getSnapshot().status).toBe('done');
    });

    it('never idles out while held, and counts afresh from the last release', () => {
      const { clock, actor } = start();
      actor.send({ type: 'hold' });
      actor.send({ type: 'hold' });
      clock.increment(600_000);
      actor.send({ type: 'release' });
      clock.increment(600_000);
      expect(actor.getSnapshot().status).toBe('active');
      actor.send({ type: 'release' });
      clock.increment(59_999);
      expect(actor.getSnapshot().status).toBe('active');
      clock.increment(1);
      expect(actor.getSnapshot().output).toEqual({ type: 'idle_timeout', idleMs: 60_000 });
    });
  });
});

describe('listen-stream logic with shared steps', () => {
  it('hands every stream the snapshots xstate computes, sharing the initial and open ones', () => {
    const shared = sharedStepsLogic();
    const host = { onEmit: () => undefined, onSnapshot: () => undefined };
    const [a, b] = [0, 1].map(() => new LeanActor(shared, { finishTimeoutMs: 1000 }, host).start());
    const plain = createActor(listenStreamMachine, { input: { finishTimeoutMs: 1000 } }).start();
    expect(a!.getSnapshot()).toBe(b!.getSnapshot());
    expect(a!.getSnapshot().toJSON()).toEqual(plain.getSnapshot().toJSON());
    for (const actor of [a!, b!, plain]) actor.send({ type: 'ack.sent' });
    expect(a!.getSnapshot()).toBe(b!.getSnapshot());
    expect(a!.getSnapshot().toJSON()).toEqual(plain.getSnapshot().toJSON());
    // Past the shared steps, each stream's snapshots are its own.
    a!.send({ type: 'client.cancelled' });
    expect(a!.getSnapshot().output).toEqual({ type: 'client_cancelled' });
    expect(b!.getSnapshot().value).toBe('open');
    // A different finishTimeoutMs is a different start.
    expect(new LeanActor(shared, { finishTimeoutMs: 2000 }, host).start().getSnapshot().context.finishTimeoutMs).toBe(2000);
  });
});
