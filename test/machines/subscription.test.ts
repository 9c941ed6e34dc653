/**
 * The subscription machine's rules, run twice: under xstate's `createActor`
 * and under the LeanActor the client runs every stream in, so the two
 * runtimes are held to the same behaviour (delayed transitions, emitted
 * events after their transition, events sent meanwhile processed in order).
 */
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type SnapshotFrom } from 'xstate';
import { LeanActor } from '../../src/runtime/lean-actor.ts';
import {
  subscriptionMachine,
  type ListenCommand,
  type ListenInput,
  type RelistenPolicy,
  type SubscriptionEvent,
} from '../../machines/subscription.machine.ts';
import {
  AcknowledgmentViolationError,
  HonoredFilterTooBroadError,
  ListenAckTimeoutError,
  ListenStalledError,
  ResyncInterruptedError,
} from '../../machines/subscription-errors.ts';

const requested = { toolsListChanged: true, resourceSubscriptions: ['file:///a', 'file:///b'] };

type Runtime = 'xstate actor' | 'lean actor';

/** Records what the machine emits for its I/O; the test plays the wire and the resync fetch. */
function harness(runtime: Runtime, ackTimeoutMs = 1_000, relisten: RelistenPolicy | false = false, holdCap = 4, stallAfterMs = 0) {
  const log: string[] = [];
  const listens: ListenInput[] = [];
  const deliveries: Omit<Extract<ListenCommand, { type: 'route.deliver' }>, 'type'>[] = [];
  let route: 'none' | 'delivery' | 'holding' = 'none';
  const resyncs: { honored: unknown; resolve: (s: object) => void; reject: (e: unknown) => void }[] = [];
  /** Plays the I/O: records what the machine asked for, under the names of the wire stream and the route it starts or stops. */
  const perform = (command: ListenCommand): void => {
    if (command.type === 'listen.open') {
      listens.push({ subscriptionId: command.subscriptionId, filter: command.filter });
      log.push(`listen.open ${String(command.subscriptionId)}`);
    } else if (command.type === 'route.deliver') {
      deliveries.push({ honored: command.honored, resynced: command.resynced });
      route = 'delivery';
      log.push('delivery.start');
    } else if (command.type === 'route.hold') {
      route = 'holding';
      log.push('holding.start');
    } else if (command.type === 'route.stop') {
      log.push(`${route}.stop`);
      route = 'none';
    } else if (command.type === 'resync.start') {
      resyncs.push({
        honored: command.honored,
        resolve: (snapshot) => actor.send({ type: 'resync.done', snapshot }),
        reject: (error) => actor.send({ type: 'resync.failed', error }),
      });
      log.push('resync.start');
    } else {
      log.push(command.type);
    }
  };
  const clock = new SimulatedClock();
  const input = { subscriptionId: 7, requested, ackTimeoutMs, holdCap, relisten, stallAfterMs };
  const actor: { send(event: SubscriptionEvent): void; getSnapshot(): SnapshotFrom<typeof subscriptionMachine> } =
    runtime === 'lean actor' ? new LeanActor(subscriptionMachine, input, { clock, onEmit: perform, onSnapshot: () => undefined }).start() : xstateActor();
  function xstateActor() {
    const started = createActor(subscriptionMachine, { input, clock });
    started.on('*', perform);
    return started.start();
  }
  const state = () => actor.getSnapshot().value;
  const output = () => actor.getSnapshot().output;
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  const open = () => actor.send({ type: 'listen.acknowledged', honored: requested });
  return { actor, clock, log, listens, deliveries, resyncs, state, output, flush, open };
}

describe.each<Runtime>(['xstate actor', 'lean actor'])('%s', (runtime) => {
  describe('subscription machine: opening', () => {
    it('sends the listen and installs no route until acknowledged', () => {
      const h = harness(runtime);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      expect(h.listens).toEqual([{ subscriptionId: 7, filter: requested }]);
      expect(h.log).toEqual(['listen.open 7']);
    });

    it('an acknowledgment equal to the request activates delivery with that filter', () => {
      const h = harness(runtime);
      h.open();
      expect(h.state()).toEqual({ listening: 'active' });
      expect(h.deliveries).toEqual([{ honored: requested, resynced: undefined }]);
    });

    it('a narrower acknowledgment is kept as the honored filter', () => {
      const h = harness(runtime);
      const narrower = { resourceSubscriptions: ['file:///a'] };
      h.actor.send({ type: 'listen.acknowledged', honored: narrower });
      expect(h.actor.getSnapshot().context.honored).toEqual(narrower);
      expect(h.deliveries[0]?.honored).toEqual(narrower);
    });

    it('a broader acknowledgment is refused with a typed error and cancelled on the wire', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'listen.acknowledged', honored: { ...requested, promptsListChanged: true } });
      expect(h.state()).toBe('closed');
      const reason = h.output();
      expect(reason?.type).toBe('refused');
      expect(reason?.type === 'refused' && reason.error).toBeInstanceOf(HonoredFilterTooBroadError);
      expect(h.log).toEqual(['listen.open 7', 'listen.cancel', 'listen.release']);
    });

    it('a malformed acknowledgment is refused with its error and cancelled on the wire', () => {
      const h = harness(runtime);
      const error = new Error('toolsListChanged must be a boolean');
      h.actor.send({ type: 'listen.ack_malformed', error });
      expect(h.output()).toEqual({ type: 'refused', error });
      expect(h.log).toEqual(['listen.open 7', 'listen.cancel', 'listen.release']);
    });

    it('an acknowledgment naming an unrequested URI is broader too', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'listen.acknowledged', honored: { resourceSubscriptions: ['file:///c'] } });
      expect(h.output()?.type).toBe('refused');
    });

    it('no acknowledgment within the ack timeout closes as remote with ListenAckTimeoutError and cancels', () => {
      const h = harness(runtime, 1_000);
      h.clock.increment(999);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      h.clock.increment(1);
      const reason = h.output();
      expect(reason?.type).toBe('remote');
      expect(reason?.type === 'remote' && reason.cause).toBeInstanceOf(ListenAckTimeoutError);
      expect(h.log).toEqual(['listen.open 7', 'listen.cancel', 'listen.release']);
    });

    it('an error before the ack is refused with the server error, released not cancelled', () => {
      const h = harness(runtime);
      const error = new Error('nope');
      h.actor.send({ type: 'listen.error', error });
      expect(h.output()).toEqual({ type: 'refused', error });
      expect(h.log).toEqual(['listen.open 7', 'listen.release']);
    });

    it('a result before the ack closes at once as graceful', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'listen.result', result: {} });
      expect(h.output()).toEqual({ type: 'graceful' });
    });

    it('a server cancel before the ack closes at once as remote', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'listen.cancelled', reason: 'shutting down' });
      expect(h.output()).toEqual({ type: 'remote', cause: 'shutting down' });
      expect(h.log).toEqual(['listen.open 7', 'listen.release']);
    });
  });

  describe('subscription machine: open stream', () => {
    it('has no deadline once open', () => {
      const h = harness(runtime, 1_000);
      h.open();
      h.clock.increment(3_600_000);
      expect(h.state()).toEqual({ listening: 'active' });
    });

    it.each([
      ['listen.result', { type: 'listen.result', result: {} }, { type: 'graceful' }],
      ['listen.cancelled', { type: 'listen.cancelled', reason: undefined }, { type: 'remote', cause: undefined }],
      ['listen.ended', { type: 'listen.ended', cause: 'eof' }, { type: 'remote', cause: 'eof' }],
    ] as const)('%s after open ends the stream without a wire cancel', (_, event, reason) => {
      const h = harness(runtime);
      h.open();
      h.actor.send(event);
      expect(h.output()).toEqual(reason);
      expect(h.log).toEqual(['listen.open 7', 'delivery.start', 'delivery.stop', 'listen.release']);
    });

    it('close() is local and cancels on the wire', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'close' });
      expect(h.output()).toEqual({ type: 'local' });
      // Delivery stops first, then the peer is told, then the route is dropped.
      expect(h.log).toEqual(['listen.open 7', 'delivery.start', 'delivery.stop', 'listen.cancel', 'listen.release']);
    });

    it('a stopped subscriber closes the stream as local and cancels', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'subscriber.stopped' });
      expect(h.output()).toEqual({ type: 'local' });
      expect(h.log).toContain('listen.cancel');
    });

    it('a second acknowledgment broader than the honored filter is a protocol violation: ended and cancelled on the wire', () => {
      const h = harness(runtime);
      const narrower = { toolsListChanged: true };
      h.actor.send({ type: 'listen.acknowledged', honored: narrower });
      // Still within what was requested, but more than the server honored before.
      h.actor.send({ type: 'listen.acknowledged', honored: requested });
      const reason = h.output();
      expect(reason?.type).toBe('protocol_violation');
      const error = reason?.type === 'protocol_violation' ? reason.error : undefined;
      expect(error).toBeInstanceOf(AcknowledgmentViolationError);
      expect(error).toMatchObject({ problem: 'broader_than_honored', honored: narrower, acknowledged: requested, subscriptionId: 7 });
      expect(h.log).toEqual(['listen.open 7', 'delivery.start', 'delivery.stop', 'listen.cancel', 'listen.release']);
    });

    it('a malformed second acknowledgment is a protocol violation too, its FilterError the cause', () => {
      const h = harness(runtime);
      h.open();
      const cause = new Error('malformed filter');
      h.actor.send({ type: 'listen.ack_malformed', error: cause });
      const reason = h.output();
      expect(reason?.type).toBe('protocol_violation');
      expect(reason?.type === 'protocol_violation' && reason.error).toMatchObject({ problem: 'malformed', cause });
      expect(h.log).toContain('listen.cancel');
    });

    it('a second acknowledgment within the honored filter changes nothing', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'listen.acknowledged', honored: requested });
      h.actor.send({ type: 'listen.acknowledged', honored: { toolsListChanged: true } });
      expect(h.state()).toEqual({ listening: 'active' });
      expect(h.actor.getSnapshot().context.honored).toEqual(requested);
      expect(h.log).toEqual(['listen.open 7', 'delivery.start']);
    });

    it('a dropped delivery closes as delivery_dropped with the cap and cancels', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'delivery.dropped', cap: 4 });
      expect(h.output()).toEqual({ type: 'delivery_dropped', cap: 4 });
      expect(h.log).toContain('listen.cancel');
    });
  });

  describe('subscription machine: restarts', () => {
    const ready = { type: 'connection.ready', era: 'modern', generation: 2 } as const;

    it('pauses on connection loss: the route and the wire stream are dropped, nothing is delivered', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      expect(h.state()).toBe('paused');
      expect(h.log).toEqual(['listen.open 7', 'delivery.start', 'delivery.stop', 'listen.release']);
    });

    it('paused has no deadline and ignores a second loss', () => {
      const h = harness(runtime, 1_000);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.clock.increment(60_000);
      h.actor.send({ type: 'connection.lost', cause: 'again' });
      expect(h.state()).toBe('paused');
    });

    it('reopens under the same subscription id, resyncs with the holding route, then delivers the snapshot', async () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.log.length = 0;
      h.actor.send(ready);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      expect(h.listens.map((l) => l.subscriptionId)).toEqual([7, 7]);
      h.open();
      expect(h.state()).toEqual({ listening: 'resyncing' });
      expect(h.resyncs[0]?.honored).toEqual(requested);
      const snapshot = { tools: [] };
      h.resyncs[0]?.resolve(snapshot);
      await h.flush();
      expect(h.state()).toEqual({ listening: 'active' });
      expect(h.deliveries.at(-1)).toEqual({ honored: requested, resynced: snapshot });
      // The holding route goes before the delivering one starts, so held events flush in order.
      expect(h.log).toEqual(['listen.open 7', 'holding.start', 'resync.start', 'resync.cancel', 'holding.stop', 'delivery.start']);
      expect(h.actor.getSnapshot().context.resynced).toBe(snapshot);
      h.actor.send({ type: 'connection.lost', cause: 'again' });
      expect(h.actor.getSnapshot().context.resynced).toBeUndefined();
    });

    it('counts what the route holds during a resync and ends as delivery_dropped past the hold cap, cancelling', () => {
      const h = harness(runtime, 1_000, false, 2);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      h.open();
      h.actor.send({ type: 'notification.held' });
      h.actor.send({ type: 'notification.held' });
      expect(h.state()).toEqual({ listening: 'resyncing' });
      h.actor.send({ type: 'notification.held' });
      expect(h.output()).toEqual({ type: 'delivery_dropped', cap: 2 });
      expect(h.log.slice(-4)).toEqual(['resync.cancel', 'holding.stop', 'listen.cancel', 'listen.release']);
    });

    it('holds up to the cap afresh in every resync', async () => {
      const h = harness(runtime, 1_000, false, 1);
      h.open();
      for (const round of [1, 2]) {
        h.actor.send({ type: 'connection.lost', cause: 'eof' });
        h.actor.send(ready);
        h.open();
        h.actor.send({ type: 'notification.held' });
        h.resyncs[round - 1]?.resolve({});
        await h.flush();
        expect(h.state()).toEqual({ listening: 'active' });
      }
    });

    it('the re-listen ack timeout applies in reopening', () => {
      const h = harness(runtime, 500);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      h.clock.increment(500);
      expect(h.output()?.type).toBe('remote');
    });

    it('a re-listen refused by the new peer ends as refused', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      const error = new Error('no');
      h.actor.send({ type: 'listen.error', error });
      expect(h.output()).toEqual({ type: 'refused', error });
    });

    it('a broader re-acknowledgment is refused too', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      h.actor.send({ type: 'listen.acknowledged', honored: { promptsListChanged: true } });
      expect(h.output()?.type).toBe('refused');
      expect(h.log.at(-2)).toBe('listen.cancel');
    });

    it('a loss before the first ack reopens as opening (no snapshot to reconcile)', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      h.open();
      expect(h.deliveries).toEqual([{ honored: requested, resynced: undefined }]);
    });

    it('a resync interrupted by the connection goes back to paused', async () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      h.open();
      h.resyncs[0]?.reject(new ResyncInterruptedError());
      await h.flush();
      expect(h.state()).toBe('paused');
    });

    it('a resync the server fails ends as refused with that error', async () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send(ready);
      h.open();
      const error = new Error('tools/list failed');
      h.resyncs[0]?.reject(error);
      await h.flush();
      expect(h.output()).toEqual({ type: 'refused', error });
    });

    it('close while paused is local with nothing to cancel', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send({ type: 'close' });
      expect(h.output()).toEqual({ type: 'local' });
      expect(h.log).not.toContain('listen.cancel');
    });

    it('a reconnect that lands on a legacy server ends as era_changed', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send({ type: 'connection.era_changed', from: 'modern', to: 'legacy' });
      expect(h.output()).toEqual({ type: 'era_changed', era: 'legacy' });
    });

    it('a ready in the legacy era without an era_changed also ends as era_changed', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
      expect(h.output()).toEqual({ type: 'era_changed', era: 'legacy' });
    });
  });

  describe('subscription machine: connection closed', () => {
    it.each([
      [{ type: 'reconnect_exhausted', cause: 'refused', attempts: 5 }, { type: 'reconnect_exhausted', cause: 'refused', attempts: 5 }],
      [{ type: 'disconnected' }, { type: 'disconnected' }],
      [{ type: 'shutdown', cause: 'sigterm' }, { type: 'shutdown', cause: 'sigterm' }],
      [{ type: 'transport_closed', cause: 'eof' }, { type: 'remote', cause: 'eof' }],
    ] as const)('connection.closed %o ends the stream as %o', (reason, expected) => {
      for (const pause of [false, true]) {
        const h = harness(runtime);
        h.open();
        if (pause) h.actor.send({ type: 'connection.lost', cause: 'eof' });
        h.actor.send({ type: 'connection.closed', reason });
        expect(h.output()).toEqual(expected);
        expect(h.log).not.toContain('listen.cancel');
      }
    });

    it('connection.closed while opening ends it too', () => {
      const h = harness(runtime);
      h.actor.send({ type: 'connection.closed', reason: { type: 'disconnected' } });
      expect(h.output()).toEqual({ type: 'disconnected' });
    });
  });

  describe('subscription machine: a stream the server ends unanswered', () => {
    // No jitter (random 1): the delays are 100 ms, then 200 ms.
    const relisten = { backoff: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 1_000 }, random: () => 1 };
    const ended = () => ({ type: 'listen.ended', cause: 'eof' }) as const;
    /** Ends the run unanswered, waits out the backoff, and has the re-listen acknowledged and resynced. */
    const relistenOnce = (h: ReturnType<typeof harness>, delayMs: number) => {
      h.actor.send(ended());
      h.clock.increment(delayMs);
      h.open();
      h.resyncs.at(-1)?.resolve({});
    };

    it('ends as remote while reconnection is off', () => {
      const h = harness(runtime);
      h.open();
      h.actor.send(ended());
      expect(h.output()).toEqual({ type: 'remote', cause: 'eof' });
    });

    it('listens again under the same id after the backoff, and resyncs once acknowledged', () => {
      const h = harness(runtime, 1_000, relisten);
      h.open();
      h.log.length = 0;
      h.actor.send(ended());
      expect(h.state()).toBe('relistening');
      expect(h.log).toEqual(['delivery.stop', 'listen.release']);
      h.clock.increment(99);
      expect(h.state()).toBe('relistening');
      h.clock.increment(1);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      expect(h.listens.map((listen) => listen.subscriptionId)).toEqual([7, 7]);
      h.open();
      expect(h.state()).toEqual({ listening: 'resyncing' });
      expect(h.resyncs).toHaveLength(1);
    });

    it('a stream never acknowledged listens again as opening', () => {
      const h = harness(runtime, 1_000, relisten);
      h.actor.send(ended());
      h.clock.increment(100);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
    });

    it('gives up after its attempts as reconnect_exhausted; a run delivering longer than the longest delay (on the machine clock) starts the count again', () => {
      const h = harness(runtime, 1_000, relisten);
      h.open();
      relistenOnce(h, 100);
      relistenOnce(h, 200);
      expect(h.state()).toEqual({ listening: 'relistened' });
      // This run delivers past maxDelayMs: recovered, so the next end is attempt 1 again, not 3.
      h.clock.increment(1_000);
      h.actor.send(ended());
      expect(h.state()).toBe('relistening');
      h.clock.increment(100);
      h.open();
      h.resyncs.at(-1)?.resolve({});
      relistenOnce(h, 200);
      h.actor.send(ended());
      expect(h.output()).toEqual({ type: 'reconnect_exhausted', cause: 'eof', attempts: 2 });
    });

    it('a run shorter than the longest delay forgives nothing', () => {
      const h = harness(runtime, 1_000, relisten);
      h.open();
      relistenOnce(h, 100);
      relistenOnce(h, 200);
      h.clock.increment(999);
      h.actor.send(ended());
      expect(h.output()).toEqual({ type: 'reconnect_exhausted', cause: 'eof', attempts: 2 });
    });

    it('a stream that never re-listened holds no recovery timer (most of 10,000 open streams)', () => {
      const h = harness(runtime, 1_000, relisten);
      h.open();
      expect(h.state()).toEqual({ listening: 'active' });
      relistenOnce(h, 100);
      expect(h.state()).toEqual({ listening: 'relistened' });
    });

    it('closing or losing the connection while it waits', () => {
      const closed = harness(runtime, 1_000, relisten);
      closed.open();
      closed.actor.send(ended());
      closed.actor.send({ type: 'close' });
      expect(closed.output()).toEqual({ type: 'local' });
      expect(closed.log).not.toContain('listen.cancel');

      const lost = harness(runtime, 1_000, relisten);
      lost.open();
      lost.actor.send(ended());
      lost.actor.send({ type: 'connection.lost', cause: 'eof' });
      expect(lost.state()).toBe('paused');
      lost.clock.increment(1_000);
      expect(lost.state()).toBe('paused');
    });
  });

  describe('subscription machine: a stream gone silent', () => {
    const relisten = { backoff: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 1_000 }, random: () => 1 };
    const reports = (h: ReturnType<typeof harness>) => h.log.filter((entry) => entry === 'activity.report').length;

    it('is never judged while its server has sent no keep-alive', () => {
      const h = harness(runtime, 1_000, relisten, 4, 500);
      h.open();
      h.clock.increment(60_000);
      expect(h.state()).toEqual({ listening: 'active' });
      expect(reports(h)).toBe(0);
    });

    it('after the first keep-alive, reports every window; a silent window cancels the run and listens again under the same id', () => {
      const h = harness(runtime, 1_000, relisten, 4, 500);
      h.open();
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(499);
      expect(reports(h)).toBe(0);
      h.clock.increment(1);
      expect(reports(h)).toBe(1);
      h.actor.send({ type: 'listen.activity', heard: true });
      expect(h.state()).toEqual({ listening: 'active' });
      h.clock.increment(500);
      expect(reports(h)).toBe(2);
      h.log.length = 0;
      h.actor.send({ type: 'listen.activity', heard: false });
      expect(h.state()).toBe('relistening');
      expect(h.log).toEqual(['listen.cancel', 'delivery.stop', 'listen.release']);
      h.clock.increment(100);
      expect(h.listens.map((listen) => listen.subscriptionId)).toEqual([7, 7]);
      h.open();
      h.resyncs.at(-1)?.resolve({});
      expect(h.state()).toEqual({ listening: 'relistened' });
      // The new run is judged only once its own first keep-alive arrives.
      h.clock.increment(5_000);
      expect(reports(h)).toBe(0);
    });

    it('with reconnection off, a silent window ends the stream as remote with ListenStalledError', () => {
      const h = harness(runtime, 1_000, false, 4, 500);
      h.open();
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(500);
      h.actor.send({ type: 'listen.activity', heard: false });
      const reason = h.output();
      expect(reason?.type === 'remote' && reason.cause).toBeInstanceOf(ListenStalledError);
      expect(reason?.type === 'remote' && (reason.cause as ListenStalledError).stallAfterMs).toBe(500);
    });

    it('leaving the run cancels the report that was due', () => {
      const h = harness(runtime, 1_000, relisten, 4, 500);
      h.open();
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(200);
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send({ type: 'connection.ready', era: 'modern', generation: 2 });
      // Listening again before the old report was due (at 500 ms): the new run has heard no keep-alive, so none comes.
      h.clock.increment(900);
      expect(h.state()).toEqual({ listening: 'awaitingAck' });
      expect(reports(h)).toBe(0);
    });

    it('with no stall window, keep-alives start no judging', () => {
      const h = harness(runtime, 1_000, relisten, 4, 0);
      h.open();
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(60_000);
      expect(reports(h)).toBe(0);
    });

    it('an answer that arrives after the run is over changes nothing, and no report is due after it', () => {
      const h = harness(runtime, 1_000, relisten, 4, 500);
      h.open();
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(500);
      h.actor.send({ type: 'connection.lost', cause: 'eof' });
      h.actor.send({ type: 'listen.activity', heard: false });
      expect(h.state()).toBe('paused');
      expect(h.log).not.toContain('listen.cancel');
      h.actor.send({ type: 'listen.keep_alive' });
      h.clock.increment(5_000);
      expect(reports(h)).toBe(1);
    });
  });
});
