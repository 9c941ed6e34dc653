/**
 * The server-side machines on their own: fake actors and the simulated clock.
 */
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { listenStreamMachine } from '../../machines/listen-stream.machine.ts';
import { serverSessionMachine } from '../../machines/server-session.machine.ts';

const neverFinishes = fromPromise<void, void>(() => new Promise<void>(() => {}));

describe('listen-stream machine', () => {
  it('opens only after the acknowledgment was sent', () => {
    const actor = createActor(listenStreamMachine, { input: { finishTimeoutMs: 1000 } }).start();
    expect(actor.getSnapshot().value).toBe('acknowledging');
    actor.send({ type: 'ack.sent' });
    expect(actor.getSnapshot().value).toBe('open');
  });

  it('ends with the reason: client cancel, transport loss, overflow', () => {
    const cases = [
      [{ type: 'client.cancelled' }, { type: 'client_cancelled' }],
      [{ type: 'transport.closed' }, { type: 'transport_closed' }],
      [{ type: 'overflow', maxPending: 8 }, { type: 'slow_consumer', maxPending: 8 }],
    ] as const;
    for (const [event, reason] of cases) {
      const actor = createActor(listenStreamMachine, { input: { finishTimeoutMs: 1000 } }).start();
      actor.send({ type: 'ack.sent' });
      actor.send(event);
      expect(actor.getSnapshot().status).toBe('done');
      expect(actor.getSnapshot().output).toEqual(reason);
    }
  });

  it('completes once the completion is flushed', async () => {
    const flushed = fromPromise<void, void>(async () => {});
    const actor = createActor(listenStreamMachine.provide({ actors: { finish: flushed } }), { input: { finishTimeoutMs: 1000 } }).start();
    actor.send({ type: 'ack.sent' });
    actor.send({ type: 'server.complete' });
    expect(actor.getSnapshot().value).toBe('closing');
    await new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    expect(actor.getSnapshot().output).toEqual({ type: 'completed' });
  });

  it('cuts a completion that never flushes after finishTimeout', () => {
    const clock = new SimulatedClock();
    const actor = createActor(listenStreamMachine.provide({ actors: { finish: neverFinishes } }), { input: { finishTimeoutMs: 5000 }, clock }).start();
    actor.send({ type: 'ack.sent' });
    actor.send({ type: 'server.complete' });
    clock.increment(4999);
    expect(actor.getSnapshot().value).toBe('closing');
    clock.increment(1);
    expect(actor.getSnapshot().output).toEqual({ type: 'completed' });
  });

  it('ignores deliveries-related events once closed', () => {
    const actor = createActor(listenStreamMachine, { input: { finishTimeoutMs: 1000 } }).start();
    actor.send({ type: 'client.cancelled' });
    actor.send({ type: 'ack.sent' });
    expect(actor.getSnapshot().output).toEqual({ type: 'client_cancelled' });
  });
});

describe('server-session machine', () => {
  const versions = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

  it('keeps a supported requested version and falls back to the latest otherwise', () => {
    for (const [requested, negotiated] of [['2025-03-26', '2025-03-26'], ['2099-01-01', '2025-11-25'], [undefined, '2025-11-25']] as const) {
      const actor = createActor(serverSessionMachine, { input: { supportedVersions: versions } }).start();
      actor.send({ type: 'initialize', requestedVersion: requested, clientCapabilities: { roots: {} } });
      expect(actor.getSnapshot().context.protocolVersion).toBe(negotiated);
      expect(actor.getSnapshot().context.clientCapabilities).toEqual({ roots: {} });
    }
  });

  it('goes uninitialized → initializing → initialized → closed with the reason', () => {
    const actor = createActor(serverSessionMachine, { input: { supportedVersions: versions } }).start();
    actor.send({ type: 'initialized' });
    expect(actor.getSnapshot().value).toBe('uninitialized');
    actor.send({ type: 'initialize', requestedVersion: '2025-11-25', clientCapabilities: {} });
    expect(actor.getSnapshot().value).toBe('initializing');
    actor.send({ type: 'initialized' });
    expect(actor.getSnapshot().value).toBe('initialized');
    actor.send({ type: 'end', reason: { type: 'client_deleted' } });
    expect(actor.getSnapshot().output).toEqual({ type: 'client_deleted' });
  });
});
