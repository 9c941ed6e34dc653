/**
 * Random interleavings of registrations, removals, subscriber exits, refused
 * subscribes and reconnects (requests completing at random points, pending
 * requests failing when the transport drops) against the recording peer.
 *
 * The model: a listener is live from its registration resolving until the
 * test removes it (unsubscribe, abort, subscriber stop). A URI is lost when a
 * `reconnected` report lists it as failed and stays lost until a registration
 * naming it resolves. After every quiescent point (connected, no request in
 * flight) the server's subscriptions equal the URIs of live listeners minus
 * the lost ones, and the registry's own bookkeeping says the same. At every
 * `resources/unsubscribe` the peer receives, no live listener names that URI,
 * the URI worker holds it for no listener (pending registrations included),
 * and no request is sent while another is still in flight (the URI worker
 * serializes them, so request completions can only interleave with the
 * registry's own operations, which is what the steps randomize).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, setup, type AnyActorRef } from 'xstate';
import { NotificationListeners, type ListenerRef } from '../../src/client/listeners.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { RecordingPeer } from './recording-peer.ts';

const POOL = ['file:///a', 'file:///b', 'file:///c', 'file:///d'];

type Step =
  | { kind: 'register'; uris: number[]; actorSubscriber: boolean }
  | { kind: 'remove' | 'abort' | 'exit'; pick: number }
  | { kind: 'refuse'; uri: number; on: boolean }
  | { kind: 'complete' }
  | { kind: 'drop'; failPendingFirst: boolean }
  | { kind: 'reconnect' }
  | { kind: 'quiesce' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('register' as const), uris: fc.uniqueArray(fc.nat(POOL.length - 1), { maxLength: 3 }), actorSubscriber: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('remove' as const, 'abort' as const, 'exit' as const), pick: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refuse' as const), uri: fc.nat(POOL.length - 1), on: fc.boolean() }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'complete' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), failPendingFirst: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'quiesce' as const }) },
);

interface Handle {
  uris: string[];
  state: 'pending' | 'live' | 'gone';
  ref?: ListenerRef;
  controller: AbortController;
  actor?: AnyActorRef;
}

/** Lets every promise chain already started run to its end (no timers involved). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

async function run(steps: Step[]): Promise<void> {
  const peer = new RecordingPeer({ autoComplete: false });
  const registry = new NotificationListeners(peer, { generation: 1 });
  let generation = 1;
  const handles: Handle[] = [];
  const lost = new Set<string>();
  const violations: string[] = [];
  const liveUris = () => new Set(handles.filter((h) => h.state === 'live').flatMap((h) => h.uris));

  peer.onSend = (request) => {
    // The worker runs one request at a time: nothing may still be in flight when the next one goes out.
    if (peer.pendingCount > 0) violations.push(`${request.method} ${request.uri} sent while another request was in flight`);
    if (request.method === 'resources/unsubscribe' && liveUris().has(request.uri)) {
      violations.push(`unsubscribe ${request.uri} while a live listener names it`);
    }
    // The worker's own holders include listeners whose registration is still pending.
    const holders = registry.uriState().holders[request.uri];
    if (request.method === 'resources/unsubscribe' && holders !== undefined) {
      violations.push(`unsubscribe ${request.uri} while the worker still has it held by ${holders.join(', ')}`);
    }
  };
  const onMessage = (message: SubscriberMessage) => {
    if (message.type !== 'reconnected' || !('report' in message)) return;
    for (const uri of message.report.resubscribed) lost.delete(uri);
    for (const { uri } of message.report.failed) lost.add(uri);
  };
  const sinkMachine = setup({ types: { events: {} as SubscriberMessage } }).createMachine({
    on: { '*': { actions: ({ event }) => onMessage(event) } },
  });

  const pick = (index: number, states: Handle['state'][]) => {
    const candidates = handles.filter((h) => states.includes(h.state));
    return candidates.length === 0 ? undefined : candidates[index % candidates.length];
  };

  const reconnect = () => {
    peer.reconnect();
    generation += 1;
    peer.announce({ type: 'connection.ready', era: 'legacy', generation });
  };

  const quiesce = async () => {
    if (!peer.connected) reconnect();
    await flush();
    while (peer.pendingCount > 0) {
      peer.completeNext();
      await flush();
    }
    expect(handles.filter((h) => h.state === 'pending')).toEqual([]);
    const live = liveUris();
    for (const uri of lost) if (!live.has(uri)) lost.delete(uri);
    const expected = [...live].filter((uri) => !lost.has(uri)).sort();
    expect([...peer.subscriptions].sort()).toEqual(expected);
    const state = registry.uriState();
    expect(Object.keys(state.holders).sort()).toEqual([...live].sort());
    expect([...state.lost].sort()).toEqual([...lost].sort());
    expect(violations).toEqual([]);
  };

  for (const step of steps) {
    switch (step.kind) {
      case 'register': {
        const handle: Handle = { uris: step.uris.map((i) => POOL[i]!), state: 'pending', controller: new AbortController() };
        if (step.actorSubscriber) handle.actor = createActor(sinkMachine).start();
        handles.push(handle);
        const filter = handle.uris.length > 0 ? { resourceSubscriptions: handle.uris } : { toolsListChanged: true };
        registry.subscribeNotifications(filter, handle.actor ?? onMessage, { signal: handle.controller.signal }).then(
          (ref) => {
            handle.ref = ref;
            handle.state = 'live';
            for (const uri of handle.uris) lost.delete(uri);
          },
          () => {
            handle.state = 'gone';
          },
        );
        break;
      }
      case 'remove': {
        const handle = pick(step.pick, ['live']);
        if (!handle) break;
        handle.state = 'gone';
        void registry.unsubscribeNotifications(handle.ref!);
        break;
      }
      case 'abort': {
        const handle = pick(step.pick, ['live', 'pending']);
        if (!handle) break;
        handle.state = 'gone';
        handle.controller.abort();
        break;
      }
      case 'exit': {
        const handle = pick(step.pick, ['live', 'pending']);
        if (!handle?.actor) break;
        handle.state = 'gone';
        handle.actor.stop();
        break;
      }
      case 'refuse':
        if (step.on) peer.failing.add(POOL[step.uri]!);
        else peer.failing.delete(POOL[step.uri]!);
        break;
      case 'complete':
        peer.completeNext();
        break;
      case 'drop':
        if (!peer.connected) break;
        peer.drop();
        // The real client may fail pending requests before or after telling the registry.
        if (step.failPendingFirst) await flush();
        peer.announce({ type: 'connection.lost', cause: 'dropped' });
        break;
      case 'reconnect':
        if (!peer.connected) reconnect();
        break;
      case 'quiesce':
        await quiesce();
        break;
    }
    await flush();
  }
  await quiesce();
  peer.announce({ type: 'connection.closed', reason: { type: 'disconnected' } });
}

describe('notification listeners under random interleavings', () => {
  it('keep the server subscription set equal to the live listeners’ URIs minus lost ones, and never unsubscribe a held URI', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => run(steps)),
      { numRuns: 1000 },
    );
    // Bounded by its 1,000 runs, not by waiting: ~2.5 s of CPU, which on a loaded 2-core machine (two suites and a
    // busy loop per core, load ~18) took more than the default 20 s.
  }, 120_000);
});
