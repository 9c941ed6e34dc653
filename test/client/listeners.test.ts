import { describe, expect, it, vi } from 'vitest';
import { createActor, setup } from 'xstate';
import { NotificationListeners, ListenerClosedError, ListenerNotFoundError, SubscribeFailedError } from '../../src/client/listeners.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { RequestAbortedError, RpcError, WrongEraError } from '../../src/protocol/errors.ts';
import { FilterError } from '../../src/protocol/filter.ts';
import { RecordingPeer } from './recording-peer.ts';

function setupRegistry(options: { autoComplete?: boolean } = {}) {
  const peer = new RecordingPeer(options);
  const registry = new NotificationListeners(peer, { generation: 1 });
  return { peer, registry };
}

function inbox() {
  const messages: SubscriberMessage[] = [];
  const subscriber = (message: SubscriberMessage): void => {
    messages.push(message);
  };
  const summary = () =>
    messages.map((m) =>
      m.type === 'notification' ? `${m.method} ${String(m.params.uri ?? '')}`.trim() : m.type === 'closed' ? `closed ${m.reason.type}` : 'reconnected',
    );
  return { messages, subscriber, summary };
}

const UPDATED = 'notifications/resources/updated';
const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';

describe('notification listeners: filtering and registration', () => {
  it('delivers only what each filter asks for, one copy per matching listener', async () => {
    const { registry } = setupRegistry();
    const a = inbox();
    const b = inbox();
    await registry.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] }, a.subscriber);
    await registry.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['file:///b'] }, b.subscriber);
    registry.dispatch(TOOLS, {});
    registry.dispatch(PROMPTS, {});
    registry.dispatch(UPDATED, { uri: 'file:///a' });
    registry.dispatch(UPDATED, { uri: 'file:///b' });
    registry.dispatch(UPDATED, { uri: 'file:///unlisted' });
    expect(a.summary()).toEqual([TOOLS, `${UPDATED} file:///a`]);
    expect(b.summary()).toEqual([TOOLS, `${UPDATED} file:///b`]);
    expect(a.messages[0]).toMatchObject({ type: 'notification', ref: { kind: 'listener' } });
  });

  it('gives each matching listener its own copy: one subscriber changing its params changes nothing for another', async () => {
    const { registry } = setupRegistry();
    const a = inbox();
    const b = inbox();
    const params = (message: SubscriberMessage | undefined) => (message as unknown as { params: { detail: { n: number } } }).params;
    // `a` changes its params as it receives them, before `b` has received anything.
    await registry.subscribeNotifications({ toolsListChanged: true }, (message: SubscriberMessage) => {
      a.subscriber(message);
      if (message.type === 'notification') params(message).detail.n = 2;
    });
    await registry.subscribeNotifications({ toolsListChanged: true }, b.subscriber);
    registry.dispatch(TOOLS, { detail: { n: 1 } });
    expect(params(a.messages[0])).toEqual({ detail: { n: 2 } });
    expect(params(b.messages[0])).toEqual({ detail: { n: 1 } });
  });

  it.each([
    [{ taskIds: ['t1'] }, 'task_ids_unsupported'],
    [{ toolsListChanged: true, bogus: 1 }, 'unknown_key'],
    [{ toolsListChanged: 'yes' }, 'wrong_type'],
    [{ resourceSubscriptions: ['not a uri'] }, 'malformed_uri'],
    [{}, 'empty'],
  ])('rejects the filter %j with a typed %s error and sends nothing', async (filter, problem) => {
    const { peer, registry } = setupRegistry();
    await expect(registry.subscribeNotifications(filter, () => {})).rejects.toMatchObject({ name: 'FilterError', problem });
    await expect(registry.subscribeNotifications(filter, () => {})).rejects.toBeInstanceOf(FilterError);
    expect(peer.sent).toEqual([]);
  });

  it('refuses a modern connection with the use-listen error and sends nothing', async () => {
    const { peer, registry } = setupRegistry();
    peer.era = 'modern';
    const error = await registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongEraError);
    expect(error).toMatchObject({ code: 'use_listen' });
    expect(peer.sent).toEqual([]);
  });

  it('subscribes a shared URI once and unsubscribes it only with its last listener', async () => {
    const { peer, registry } = setupRegistry();
    const first = await registry.subscribeNotifications({ resourceSubscriptions: ['file:///x'] }, () => {});
    const second = await registry.subscribeNotifications({ resourceSubscriptions: ['file:///x', 'file:///y'] }, () => {});
    expect(peer.log()).toEqual(['sub file:///x', 'sub file:///y']);
    await registry.unsubscribeNotifications(first);
    expect(peer.log()).toEqual(['sub file:///x', 'sub file:///y']);
    expect([...peer.subscriptions]).toEqual(['file:///x', 'file:///y']);
    await registry.unsubscribeNotifications(second);
    expect(peer.log()).toEqual(['sub file:///x', 'sub file:///y', 'unsub file:///x', 'unsub file:///y']);
    expect(peer.subscriptions.size).toBe(0);
  });

  it('fails the whole registration on a refused subscribe and rolls back only what that call acquired', async () => {
    const { peer, registry } = setupRegistry();
    await registry.subscribeNotifications({ resourceSubscriptions: ['file:///shared'] }, () => {});
    peer.failing.add('file:///bad');
    const error = await registry
      .subscribeNotifications({ resourceSubscriptions: ['file:///shared', 'file:///own', 'file:///bad'] }, () => {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubscribeFailedError);
    expect(error).toMatchObject({ code: 'subscribe_failed', uri: 'file:///bad' });
    expect((error as SubscribeFailedError).cause).toBeInstanceOf(RpcError);
    expect(peer.log()).toEqual(['sub file:///shared', 'sub file:///own', 'sub file:///bad', 'unsub file:///own']);
    expect([...peer.subscriptions]).toEqual(['file:///shared']);
  });

  it('gives a typed not-found error for an unknown or already removed reference', async () => {
    const { registry } = setupRegistry();
    const a = inbox();
    const ref = await registry.subscribeNotifications({ toolsListChanged: true }, a.subscriber);
    await registry.unsubscribeNotifications(ref);
    expect(a.summary()).toEqual(['closed local']);
    await expect(registry.unsubscribeNotifications(ref)).rejects.toBeInstanceOf(ListenerNotFoundError);
    await expect(registry.unsubscribeNotifications({ id: 'listener-999' })).rejects.toMatchObject({ code: 'listener_not_found' });
  });
});

describe('notification listeners: races on the wire', () => {
  it('runs a registration that races the release of the same URI after the unsubscribe', async () => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    const registering = registry.subscribeNotifications({ resourceSubscriptions: ['file:///x'] }, () => {});
    await peer.waitForPending();
    peer.completeNext();
    const first = await registering;
    const released = registry.unsubscribeNotifications(first);
    await peer.waitForPending();
    const second = registry.subscribeNotifications({ resourceSubscriptions: ['file:///x'] }, () => {});
    peer.completeNext(); // the unsubscribe
    await released;
    await peer.waitForPending();
    peer.completeNext(); // the new subscribe
    await second;
    expect(peer.log()).toEqual(['sub file:///x', 'unsub file:///x', 'sub file:///x']);
    expect([...peer.subscriptions]).toEqual(['file:///x']);
  });

  it('never unsubscribes a URI another listener acquired while a failing registration rolls back', async () => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    peer.failing.add('file:///bad');
    const failing = registry.subscribeNotifications({ resourceSubscriptions: ['file:///x', 'file:///bad'] }, () => {});
    await peer.waitForPending();
    // A second listener asks for file:///x while the first one's subscribe is still in flight.
    const other = registry.subscribeNotifications({ resourceSubscriptions: ['file:///x'] }, () => {});
    peer.completeNext(); // sub x (ok)
    await peer.waitForPending();
    peer.completeNext(); // sub bad (refused)
    await peer.waitForPending();
    peer.completeNext(); // the rollback: unsub x, the first listener was its only holder
    await expect(failing).rejects.toBeInstanceOf(SubscribeFailedError);
    await peer.waitForPending();
    peer.completeNext(); // the second listener subscribes x afresh
    await other;
    expect(peer.log()).toEqual(['sub file:///x', 'sub file:///bad', 'unsub file:///x', 'sub file:///x']);
    expect([...peer.subscriptions]).toEqual(['file:///x']);
    expect(registry.uriState().holders).toEqual({ 'file:///x': ['listener-2'] });
  });

  it('rejects a registration whose rollback the transport loss finishes, and sends its stopped listener nothing', async () => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    peer.failing.add('file:///bad');
    const failing = registry.subscribeNotifications({ resourceSubscriptions: ['file:///x', 'file:///bad'] }, () => {});
    const rejected = failing.catch((error: unknown) => error);
    await peer.waitForPending();
    peer.completeNext(); // sub x (ok)
    await peer.waitForPending();
    peer.completeNext(); // sub bad (refused)
    await peer.waitForPending(); // the rollback's unsub x is in flight
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      // Announced before the pending unsubscribe fails: the worker settles the rollback offline and rejects the listener.
      peer.drop();
      peer.announce({ type: 'connection.lost', cause: 'dropped' });
      expect(await rejected).toBeInstanceOf(SubscribeFailedError);
      // xstate warns of every event sent to a stopped actor: none was.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect(peer.log()).toEqual(['sub file:///x', 'sub file:///bad', 'unsub file:///x']);
    expect(registry.uriState()).toEqual({ holders: {}, lost: [] });
  });
});

describe('notification listeners: subscriber lifecycle', () => {
  const sink = setup({}).createMachine({ on: { '*': {} } });

  it('removes the listener and releases its URIs when a subscribing actor stops', async () => {
    const { peer, registry } = setupRegistry();
    const actor = createActor(sink).start();
    await registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, actor);
    const released = new Promise<void>((resolve) => (peer.onSend = (r) => r.method === 'resources/unsubscribe' && resolve()));
    actor.stop();
    await released;
    expect(peer.log()).toEqual(['sub file:///a', 'unsub file:///a']);
  });

  it('delivers messages to a subscribing actor as events', async () => {
    const { registry } = setupRegistry();
    const received: string[] = [];
    const recorder = setup({ types: { events: {} as SubscriberMessage } }).createMachine({
      on: { '*': { actions: ({ event }) => received.push(event.type) } },
    });
    const actor = createActor(recorder).start();
    const ref = await registry.subscribeNotifications({ toolsListChanged: true }, actor);
    registry.dispatch(TOOLS, {});
    await registry.unsubscribeNotifications(ref);
    expect(received).toEqual(['notification', 'closed']);
  });

  it('removes the listener on an aborted signal, telling it closed(local), and withdraws a pending registration with a typed abort', async () => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    const controller = new AbortController();
    const a = inbox();
    const registering = registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, a.subscriber, { signal: controller.signal });
    await peer.waitForPending();
    peer.completeNext();
    await registering;
    controller.abort('done');
    await peer.waitForPending();
    peer.completeNext();
    expect(peer.log()).toEqual(['sub file:///a', 'unsub file:///a']);
    expect(a.summary()).toEqual(['closed local']);

    const pending = new AbortController();
    const withdrawn = registry.subscribeNotifications({ resourceSubscriptions: ['file:///b'] }, () => {}, { signal: pending.signal });
    await peer.waitForPending();
    pending.abort('changed my mind');
    await expect(withdrawn).rejects.toBeInstanceOf(RequestAbortedError);
    peer.completeNext(); // sub b completes after the abort ...
    await peer.waitForPending();
    peer.completeNext(); // ... and is released again
    expect(peer.log().slice(2)).toEqual(['sub file:///b', 'unsub file:///b']);
    expect(peer.subscriptions.size).toBe(0);
    await expect(registry.subscribeNotifications({ toolsListChanged: true }, () => {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      RequestAbortedError,
    );
  });
});

describe('notification listeners: iterator subscribers', () => {
  it('yields messages to a for-await loop that ends after closed', async () => {
    const { registry } = setupRegistry();
    const ref = await registry.subscribeNotifications({ toolsListChanged: true }, 'iterator');
    registry.dispatch(TOOLS, {});
    registry.dispatch(PROMPTS, {});
    const released = registry.unsubscribeNotifications(ref);
    const seen: string[] = [];
    for await (const message of ref) seen.push(message.type === 'notification' ? message.method : message.type);
    await released;
    expect(seen).toEqual([TOOLS, 'closed']);
  });

  it('removes the listener and releases its URIs when the loop stops iterating', async () => {
    const { peer, registry } = setupRegistry();
    const ref = await registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, 'iterator');
    registry.dispatch(UPDATED, { uri: 'file:///a' });
    const released = new Promise<void>((resolve) => (peer.onSend = (r) => r.method === 'resources/unsubscribe' && resolve()));
    for await (const message of ref) {
      expect(message).toMatchObject({ type: 'notification', params: { uri: 'file:///a' } });
      break;
    }
    await released;
    expect(peer.log()).toEqual(['sub file:///a', 'unsub file:///a']);
    await expect(registry.unsubscribeNotifications(ref)).rejects.toBeInstanceOf(ListenerNotFoundError);
  });

  it('closes the listener with delivery_dropped when its mailbox overflows', async () => {
    const peer = new RecordingPeer();
    const registry = new NotificationListeners(peer, { generation: 1, mailboxCap: 2 });
    const ref = await registry.subscribeNotifications({ toolsListChanged: true }, 'iterator');
    for (let i = 0; i < 3; i++) registry.dispatch(TOOLS, {});
    const seen: string[] = [];
    const ended = (async () => {
      for await (const message of ref) seen.push(message.type === 'closed' ? `closed ${message.reason.type}` : message.type);
    })();
    await expect(ended).rejects.toMatchObject({ code: 'delivery_dropped' });
    expect(seen).toEqual(['notification', 'notification', 'closed delivery_dropped']);
  });
});

describe('notification listeners: reconnect and closed reasons', () => {
  it('pauses delivery, re-subscribes held URIs and reports resubscribed and failed ones to each listener', async () => {
    const { peer, registry } = setupRegistry();
    const a = inbox();
    const b = inbox();
    await registry.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['file:///ok', 'file:///flaky'] }, a.subscriber);
    await registry.subscribeNotifications({ resourceSubscriptions: ['file:///ok'] }, b.subscriber);
    peer.drop();
    peer.announce({ type: 'connection.lost', cause: 'eof' });
    peer.reconnect();
    peer.failing.add('file:///flaky');
    const reported = new Promise<void>((resolve) => {
      const poll = () => (b.messages.length > 0 ? resolve() : queueMicrotask(poll));
      poll();
    });
    peer.announce({ type: 'connection.ready', era: 'legacy', generation: 2 });
    registry.dispatch(TOOLS, {}); // arrives before the report: covered by it, not delivered
    await reported;
    expect(a.messages).toEqual([
      expect.objectContaining({
        type: 'reconnected',
        report: { resubscribed: ['file:///ok'], failed: [{ uri: 'file:///flaky', reason: expect.any(RpcError) }] },
      }),
    ]);
    expect(b.messages).toEqual([expect.objectContaining({ type: 'reconnected', report: { resubscribed: ['file:///ok'], failed: [] } })]);
    expect(registry.uriState().lost).toEqual(['file:///flaky']);
    registry.dispatch(TOOLS, {});
    expect(a.summary()).toEqual(['reconnected', TOOLS]);

    // The lost URI stays held; the next listener asking for it goes to the wire again.
    peer.failing.clear();
    await registry.subscribeNotifications({ resourceSubscriptions: ['file:///flaky'] }, () => {});
    expect(peer.sent.filter((r) => r.session === 2).map((r) => `${r.method} ${r.uri}`)).toEqual([
      'resources/subscribe file:///ok',
      'resources/subscribe file:///flaky',
      'resources/subscribe file:///flaky',
    ]);
    expect([...peer.subscriptions].sort()).toEqual(['file:///flaky', 'file:///ok']);
  });

  it('reports the reconnect to a listener that holds no URI (the worker has its report at once)', async () => {
    const { peer, registry } = setupRegistry();
    const listener = await registry.subscribeNotifications({ toolsListChanged: true }, 'iterator');
    const messages = listener[Symbol.asyncIterator]();
    peer.drop();
    peer.announce({ type: 'connection.lost', cause: 'eof' });
    peer.reconnect();
    peer.announce({ type: 'connection.ready', era: 'legacy', generation: 2 });
    expect((await messages.next()).value).toMatchObject({ type: 'reconnected', report: { resubscribed: [], failed: [] } });
    registry.dispatch(TOOLS, {});
    expect((await messages.next()).value).toMatchObject({ type: 'notification', method: TOOLS });
  });

  it('delivers only the newest report when a reconnect is interrupted by another loss', async () => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    const a = inbox();
    const registering = registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, a.subscriber);
    await peer.waitForPending();
    peer.completeNext();
    await registering;
    for (const generation of [2, 3]) {
      peer.drop();
      peer.announce({ type: 'connection.lost', cause: 'eof' });
      peer.reconnect();
      peer.announce({ type: 'connection.ready', era: 'legacy', generation });
      await peer.waitForPending();
    }
    peer.completeNext();
    await new Promise<void>((resolve) => {
      const poll = () => (a.messages.length > 0 ? resolve() : queueMicrotask(poll));
      poll();
    });
    expect(a.messages).toEqual([expect.objectContaining({ type: 'reconnected', report: { resubscribed: ['file:///a'], failed: [] } })]);
    expect(peer.sent.map((r) => r.session)).toEqual([1, 2, 3]);
  });

  it.each([
    { type: 'reconnect_exhausted', cause: 'down', attempts: 5 },
    { type: 'transport_closed', cause: 'eof' },
    { type: 'disconnected' },
    { type: 'shutdown', cause: 'stopping' },
  ] as const)('closes every listener with $type, rejects pending registrations and refuses new ones', async (reason) => {
    const { peer, registry } = setupRegistry({ autoComplete: false });
    const a = inbox();
    const registering = registry.subscribeNotifications({ toolsListChanged: true }, a.subscriber);
    await registering;
    const pending = registry.subscribeNotifications({ resourceSubscriptions: ['file:///p'] }, () => {});
    await peer.waitForPending();
    peer.drop();
    peer.announce({ type: 'connection.lost', cause: 'eof' });
    peer.announce({ type: 'connection.closed', reason });
    expect(a.messages).toEqual([expect.objectContaining({ type: 'closed', reason })]);
    await expect(pending).rejects.toEqual(new ListenerClosedError(reason));
    await expect(registry.subscribeNotifications({ toolsListChanged: true }, () => {})).rejects.toBeInstanceOf(ListenerClosedError);
    expect(peer.log()).toEqual(['sub file:///p']);
  });

  it('closes every listener with era_changed when a reconnect lands on a modern peer', async () => {
    const { peer, registry } = setupRegistry();
    const a = inbox();
    await registry.subscribeNotifications({ resourceSubscriptions: ['file:///a'] }, a.subscriber);
    peer.drop();
    peer.announce({ type: 'connection.lost', cause: 'eof' });
    peer.reconnect('modern');
    peer.announce({ type: 'connection.era_changed', from: 'legacy', to: 'modern' });
    peer.announce({ type: 'connection.ready', era: 'modern', generation: 2 });
    expect(a.summary()).toEqual(['closed era_changed']);
    expect(a.messages[0]).toMatchObject({ reason: { type: 'era_changed', era: 'modern' } });
    await expect(registry.subscribeNotifications({ toolsListChanged: true }, () => {})).rejects.toBeInstanceOf(WrongEraError);
    expect(peer.log()).toEqual(['sub file:///a']);
    expect(registry.uriState()).toEqual({ holders: {}, lost: [] });
  });
});
