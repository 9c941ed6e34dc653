import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import {
  backoffDelay,
  connectionMachine,
  type ConnectionEmitted,
  type Negotiated,
} from '../../machines/connection.machine.ts';

const negotiated = (era: 'legacy' | 'modern'): Negotiated => ({
  era,
  protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
  capabilities: {},
  serverInfo: undefined,
  instructions: undefined,
});

/** A transport that the test opens and fails by hand, and a negotiation that answers from a script. */
function harness(options: { eras: ('legacy' | 'modern' | Error)[]; backoff?: false; random?: number }) {
  const clock = new SimulatedClock();
  const transports: { open(): void; fail(cause: unknown): void; closed: boolean }[] = [];
  const eras = [...options.eras];
  const machine = connectionMachine.provide({
    actors: {
      transport: fromCallback(({ sendBack }) => {
        const handle = {
          closed: false,
          open: () => sendBack({ type: 'transport.opened' }),
          fail: (cause: unknown) => sendBack({ type: 'transport.failed', cause }),
        };
        transports.push(handle);
        return () => {
          handle.closed = true;
        };
      }),
      negotiate: fromPromise(async () => {
        const next = eras.shift() ?? eras.at(-1) ?? 'modern';
        if (next instanceof Error) throw next;
        return negotiated(next);
      }),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: {
      backoff: options.backoff === false ? false : { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 },
      random: () => options.random ?? 0.5,
    },
  });
  const emitted: ConnectionEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { actor, clock, transports, emitted, settle, state: () => actor.getSnapshot().value };
}

describe('connection machine', () => {
  it('connects, negotiates and becomes ready in the negotiated era', async () => {
    const h = harness({ eras: ['modern'] });
    h.actor.send({ type: 'connect' });
    expect(h.state()).toEqual({ online: 'connecting' });
    h.transports[0]!.open();
    await h.settle();
    expect(h.state()).toEqual({ online: { ready: 'modern' } });
    expect(h.emitted).toContainEqual(expect.objectContaining({ type: 'connection.ready', era: 'modern', generation: 1 }));
  });

  it('returns to idle and reports the cause when the first connect fails', async () => {
    const h = harness({ eras: [] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.fail(new Error('ENOENT'));
    expect(h.state()).toBe('idle');
    expect(h.emitted).toEqual([{ type: 'connection.failed', cause: new Error('ENOENT') }]);
    expect(h.transports[0]!.closed).toBe(true);
  });

  it('reconnects with backoff after a loss and re-negotiates', async () => {
    const h = harness({ eras: ['legacy', 'legacy'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.transports[0]!.fail(new Error('exited'));
    expect(h.state()).toBe('reconnecting');
    expect(h.transports[0]!.closed).toBe(true);
    const reconnecting = h.emitted.find((e) => e.type === 'connection.reconnecting');
    expect(reconnecting).toEqual({ type: 'connection.reconnecting', attempt: 1, delayMs: 75, cause: new Error('exited') });
    h.clock.increment(74);
    expect(h.state()).toBe('reconnecting');
    h.clock.increment(1);
    expect(h.state()).toEqual({ online: 'connecting' });
    h.transports[1]!.open();
    await h.settle();
    expect(h.state()).toEqual({ online: { ready: 'legacy' } });
    expect(h.actor.getSnapshot().context.generation).toBe(2);
    expect(h.emitted.map((e) => e.type)).toEqual([
      'connection.ready',
      'connection.lost',
      'connection.reconnecting',
      'connection.ready',
    ]);
  });

  it('ends as reconnect_exhausted after the maximum attempts', async () => {
    const h = harness({ eras: ['modern'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.transports[0]!.fail('gone');
    for (let attempt = 1; attempt <= 3; attempt++) {
      h.clock.increment(1_000);
      h.transports[attempt]!.fail(`refused ${attempt}`);
    }
    expect(h.state()).toBe('closed');
    expect(h.actor.getSnapshot().output).toEqual({ type: 'reconnect_exhausted', cause: 'refused 3', attempts: 3 });
    expect(h.emitted.filter((e) => e.type === 'connection.reconnecting').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3]);
  });

  it('closes as transport_closed when reconnection is disabled', async () => {
    const h = harness({ eras: ['modern'], backoff: false });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.transports[0]!.fail('exit 1');
    expect(h.actor.getSnapshot().output).toEqual({ type: 'transport_closed', cause: 'exit 1' });
  });

  it('announces an era change before the new ready', async () => {
    const h = harness({ eras: ['modern', 'legacy'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.transports[0]!.fail('restart');
    h.clock.increment(1_000);
    h.transports[1]!.open();
    await h.settle();
    expect(h.state()).toEqual({ online: { ready: 'legacy' } });
    const types = h.emitted.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['connection.era_changed', 'connection.ready']);
    expect(h.emitted.at(-2)).toEqual({ type: 'connection.era_changed', from: 'modern', to: 'legacy' });
  });

  it('counts a failed re-negotiation as a failed attempt', async () => {
    const h = harness({ eras: ['modern', new Error('legacy peer, modern pinned'), 'modern'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.transports[0]!.fail('restart');
    h.clock.increment(1_000);
    h.transports[1]!.open();
    await h.settle();
    expect(h.state()).toBe('reconnecting');
    expect(h.actor.getSnapshot().context.attempt).toBe(2);
  });

  it('disconnect and shutdown close with their reasons from any state', async () => {
    const a = harness({ eras: ['modern'] });
    a.actor.send({ type: 'connect' });
    a.actor.send({ type: 'disconnect' });
    expect(a.actor.getSnapshot().output).toEqual({ type: 'disconnected' });
    expect(a.transports[0]!.closed).toBe(true);
    const b = harness({ eras: ['modern'] });
    b.actor.send({ type: 'shutdown', cause: 'SIGTERM' });
    expect(b.actor.getSnapshot().output).toEqual({ type: 'shutdown', cause: 'SIGTERM' });
    expect(b.emitted).toEqual([{ type: 'connection.closed', reason: { type: 'shutdown', cause: 'SIGTERM' } }]);
  });

  it('bounds every backoff delay by the maximum, jitter included', () => {
    const backoff = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(1, backoff, 0)).toBe(50);
    expect(backoffDelay(1, backoff, 0.999)).toBeLessThanOrEqual(100);
    expect(backoffDelay(8, backoff, 0.999)).toBeLessThanOrEqual(1_000);
    expect(backoffDelay(8, backoff, 0)).toBe(500);
  });
});
