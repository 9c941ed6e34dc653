import { describe, expect, it } from 'vitest';
import { retryDelay, serverAskedMs } from '../../machines/backoff.ts';
import { backoffDelay } from '../../machines/connection.machine.ts';
import { HttpStatusError, NegotiationError } from '../../src/protocol/errors.ts';
import { harness } from './connection-harness.ts';

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

  it("firstConnect 'retry': a failed first connect is retried with the backoff, announced as reconnecting, never as lost", async () => {
    const h = harness({ eras: ['modern'], firstConnect: 'retry' });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.fail(new Error('ECONNREFUSED'));
    expect(h.state()).toBe('reconnecting');
    expect(h.emitted).toEqual([{ type: 'connection.reconnecting', attempt: 1, quickReadies: 0, delayMs: 75, cause: new Error('ECONNREFUSED') }]);
    h.clock.increment(75);
    h.transports[1]!.fail(new Error('ECONNREFUSED'));
    expect(h.emitted.at(-1)).toEqual({ type: 'connection.reconnecting', attempt: 2, quickReadies: 0, delayMs: 150, cause: new Error('ECONNREFUSED') });
    h.clock.increment(150);
    h.transports[2]!.open();
    await h.settle();
    expect(h.state()).toEqual({ online: { ready: 'modern' } });
    expect(h.emitted.at(-1)).toMatchObject({ type: 'connection.ready', generation: 1 });
    expect(h.emitted.some((event) => event.type === 'connection.lost' || event.type === 'connection.failed')).toBe(false);
  });

  it("waits as long as a failure's Retry-After asked, up to maxRetryAfterMs, and goes back to the backoff after", async () => {
    const h = harness({ eras: ['modern'], firstConnect: 'retry', backoff: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 } });
    h.actor.send({ type: 'connect' });
    const busy = new HttpStatusError(503, 'Service Unavailable', undefined, 3_000);
    h.transports[0]!.fail(busy);
    expect(h.emitted.at(-1)).toEqual({ type: 'connection.reconnecting', attempt: 1, quickReadies: 0, delayMs: 3_000, cause: busy });
    h.clock.increment(2_999);
    expect(h.transports).toHaveLength(1);
    h.clock.increment(1);
    expect(h.transports).toHaveLength(2);
    // Past the bound: a minute asked, five seconds waited.
    const limited = new HttpStatusError(429, 'Too Many Requests', undefined, 60_000);
    h.transports[1]!.fail(limited);
    expect(h.emitted.at(-1)).toMatchObject({ attempt: 2, delayMs: 5_000 });
    h.clock.increment(5_000);
    // A failure that asks for nothing: the backoff's own delay (attempt 3: 400 ms, half jitter).
    h.transports[2]!.fail(new Error('ECONNREFUSED'));
    expect(h.emitted.at(-1)).toMatchObject({ attempt: 3, delayMs: 300 });
  });

  it('finds a Retry-After wrapped by a negotiation failure, and takes no ask shorter than the backoff', () => {
    const backoff = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 10_000 };
    const wrapped = new NegotiationError('initialize failed', { cause: new HttpStatusError(503, 'Service Unavailable', undefined, 30_000) });
    expect(serverAskedMs(wrapped)).toBe(30_000);
    expect(retryDelay(1, backoff, 1, wrapped)).toBe(30_000);
    // Unbounded asks stop at the default bound, a minute.
    expect(retryDelay(1, backoff, 1, new HttpStatusError(503, '', undefined, 86_400_000))).toBe(60_000);
    // Shorter than the backoff: the backoff.
    expect(retryDelay(3, backoff, 1, new HttpStatusError(503, '', undefined, 1_000))).toBe(4_000);
    // maxRetryAfterMs 0 ignores every ask.
    expect(retryDelay(1, { ...backoff, maxRetryAfterMs: 0 }, 1, wrapped)).toBe(1_000);
    for (const junk of [{ retryAfterMs: -5 }, { retryAfterMs: Number.NaN }, { retryAfterMs: '30' }, 'busy', null, undefined]) {
      expect(serverAskedMs(junk)).toBeUndefined();
    }
  });

  it("firstConnect 'retry': once its attempts are spent, the first connect fails with the last cause and returns to idle", async () => {
    const h = harness({ eras: [], firstConnect: 'retry', backoff: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 1_000 } });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.fail(new Error('refused 0'));
    h.clock.increment(75);
    h.transports[1]!.fail(new Error('refused 1'));
    h.clock.increment(150);
    h.transports[2]!.fail(new Error('refused 2'));
    expect(h.state()).toBe('idle');
    expect(h.emitted.map((event) => event.type)).toEqual(['connection.reconnecting', 'connection.reconnecting', 'connection.failed']);
    expect(h.emitted.at(-1)).toEqual({ type: 'connection.failed', cause: new Error('refused 2') });
  });

  it("firstConnect 'retry' without reconnection (backoff false) fails at once", () => {
    const h = harness({ eras: [], firstConnect: 'retry', backoff: false });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.fail(new Error('refused'));
    expect(h.state()).toBe('idle');
    expect(h.emitted).toEqual([{ type: 'connection.failed', cause: new Error('refused') }]);
  });

  it('reconnects with backoff after a loss and re-negotiates', async () => {
    const h = harness({ eras: ['legacy', 'legacy'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.clock.increment(1_000); // ready as long as the longest reconnect delay: an ordinary loss, not a quick one
    h.transports[0]!.fail(new Error('exited'));
    expect(h.state()).toBe('reconnecting');
    expect(h.transports[0]!.closed).toBe(true);
    const reconnecting = h.emitted.find((e) => e.type === 'connection.reconnecting');
    expect(reconnecting).toEqual({ type: 'connection.reconnecting', attempt: 1, quickReadies: 0, delayMs: 75, cause: new Error('exited') });
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

  it('with maxAttempts Infinity keeps reconnecting, every delay capped, until a transport opens', async () => {
    const h = harness({ eras: ['modern', 'modern'], backoff: { maxAttempts: Infinity, baseDelayMs: 100, maxDelayMs: 1_000 }, random: 1 });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    h.clock.increment(1_000); // ready as long as the longest reconnect delay: an ordinary loss, not a quick one
    h.transports[0]!.fail('gone');
    for (let attempt = 1; attempt <= 200; attempt++) {
      h.clock.increment(1_000);
      h.transports[attempt]!.fail(`refused ${attempt}`);
    }
    expect(h.state()).toBe('reconnecting');
    const delays = h.emitted.filter((e) => e.type === 'connection.reconnecting').map((e) => (e as { delayMs: number }).delayMs);
    expect(delays).toHaveLength(201);
    expect(delays.slice(0, 5)).toEqual([100, 200, 400, 800, 1_000]);
    expect(Math.max(...delays)).toBe(1_000);
    h.clock.increment(1_000);
    h.transports[201]!.open();
    await h.settle();
    expect(h.state()).toEqual({ online: { ready: 'modern' } });
  });

  it('a server lost right after each ready is reconnected ever less often, up to maxDelayMs; a ready that lasted starts over', async () => {
    const h = harness({ eras: Array(8).fill('modern'), backoff: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 }, random: 1 });
    const delays = () => h.emitted.filter((e) => e.type === 'connection.reconnecting').map((e) => (e as { delayMs: number }).delayMs);
    h.actor.send({ type: 'connect' });
    let transport = 0;
    const readyThenLost = async (readyForMs: number) => {
      h.transports[transport]!.open();
      await h.settle();
      expect(h.state()).toEqual({ online: { ready: 'modern' } });
      h.clock.increment(readyForMs);
      h.transports[transport]!.fail('crashed');
      h.clock.increment(delays().at(-1)!);
      transport++;
    };
    // A crash loop: every ready ends at once. Each counts as a further attempt, so maxAttempts (3) is never reached.
    for (let i = 0; i < 5; i++) await readyThenLost(0);
    expect(delays()).toEqual([200, 400, 800, 1_000, 1_000]);
    // Ready for just under maxDelayMs is still quick; for maxDelayMs, it lasted: the next loss is an ordinary one.
    await readyThenLost(999);
    await readyThenLost(1_000);
    expect(delays().slice(5)).toEqual([1_000, 100]);
    expect(h.emitted.filter((e) => e.type === 'connection.reconnecting').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    // What the cache counts against its own bound: the quick readies before each reconnect.
    expect(h.emitted.filter((e) => e.type === 'connection.reconnecting').map((e) => (e as { quickReadies: number }).quickReadies)).toEqual([1, 2, 3, 4, 5, 6, 0]);
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

  it('a reconnect to a server that was modern probes patiently; the first contact eagerly', async () => {
    const h = harness({ eras: ['silent', 'silent'] });
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    expect(h.negotiation()).toEqual({ probing: 'eager' });
    const modern = harness({ eras: ['modern', 'silent'] });
    modern.actor.send({ type: 'connect' });
    modern.transports[0]!.open();
    await modern.settle();
    modern.transports[0]!.fail('restart');
    modern.clock.increment(1_000);
    modern.transports[1]!.open();
    expect(modern.negotiation()).toEqual({ probing: 'patient' });
    // The probe timeout passes without consequence; only an ordinary request's patience ends the wait.
    modern.clock.increment(29_999);
    expect(modern.negotiation()).toEqual({ probing: 'patient' });
    expect(modern.emitted.filter((e) => e.type === 'connection.era_changed')).toEqual([]);
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
