import { describe, expect, it } from 'vitest';
import { assign, createActor, setup, SimulatedClock, type InspectionEvent } from 'xstate';
import type { Era } from '../../machines/era.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import type { ListenHandlers, RequestOptions } from '../../src/client/ports.ts';
import type { Clock } from '../../src/runtime/actor-options.ts';
import { streamActorOf } from '../../src/testing/index.ts';
import { AnnouncingOwner } from './announcing-owner.ts';
import type { RelistenPolicy } from '../../machines/subscription.machine.ts';
import {
  createListenStream,
  DeliveryDroppedError,
  HonoredFilterTooBroadError,
  ListenAckTimeoutError,
  ListenNotAcknowledgedError,
  type ListenOptions,
  type StreamConnection,
} from '../../src/client/subscription.ts';
import { openSubscription } from '../../src/client/open-subscription.ts';
import { ConnectionLostError, RpcError, WrongEraError } from '../../src/protocol/errors.ts';
import { FilterError, type NotificationFilter } from '../../src/protocol/filter.ts';
import type { JsonObject, RequestId } from '../../src/protocol/jsonrpc.ts';

interface WireStream {
  id: RequestId;
  filter: NotificationFilter;
  handlers: ListenHandlers;
  cancelled: boolean;
  released: boolean;
}
interface PendingRequest {
  method: string;
  params: JsonObject | undefined;
  options: RequestOptions | undefined;
  resolve: (result: JsonObject) => void;
  reject: (error: unknown) => void;
}

/** Plays the connection: records what is sent, routes only to streams whose route is still held, owns the streams' actors. */
class FakeListenPort extends AnnouncingOwner implements StreamConnection {
  clock: Clock | undefined = undefined;
  era: Era | undefined = 'modern';
  serverCapabilities: JsonObject | undefined = {};
  relisten: RelistenPolicy | false = false;
  readonly streams: WireStream[] = [];
  readonly requests: PendingRequest[] = [];
  #nextId = 40;

  nextRequestId(): RequestId {
    return this.#nextId++;
  }

  openListen(id: RequestId, filter: NotificationFilter, handlers: ListenHandlers) {
    const stream: WireStream = { id, filter, handlers, cancelled: false, released: false };
    this.streams.push(stream);
    return {
      cancel: () => {
        if (!stream.released) stream.cancelled = true;
        stream.released = true;
      },
      release: () => {
        stream.released = true;
      },
    };
  }

  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return new Promise((resolve, reject) => this.requests.push({ method, params, options, resolve, reject }));
  }

  /** The live wire stream (latest open, route not released). */
  live(): WireStream {
    const stream = this.streams.at(-1);
    if (!stream || stream.released) throw new Error('no live stream');
    return stream;
  }

  ack(honored: NotificationFilter): void {
    this.live().handlers.acknowledged(honored);
  }

  /** What the connection does with a tagged notification: only a held route receives it. */
  emit(method: string, params: JsonObject): void {
    const stream = this.streams.at(-1);
    if (stream && !stream.released) stream.handlers.notification(method, params);
  }

  take(method: string): PendingRequest[] {
    return this.requests.filter((r) => r.method === method);
  }
}

const UPDATED = 'notifications/resources/updated';
const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const filter = { toolsListChanged: true, resourceSubscriptions: ['file:///a', 'file:///b'] };
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function recordingCallback() {
  const got: SubscriberMessage[] = [];
  const callback = (message: SubscriberMessage) => void got.push(message);
  const summary = () =>
    got.map((m) => (m.type === 'notification' ? `${m.method.split('/')[1]}${typeof m.params.uri === 'string' ? ` ${m.params.uri}` : ''}` : m.type));
  return { got, callback, summary };
}

async function opened(port = new FakeListenPort(), options: ListenOptions = {}, honored: NotificationFilter = filter) {
  const sub = recordingCallback();
  const opening = openSubscription(port, filter, sub.callback, options);
  port.ack(honored);
  const stream = await opening;
  return { port, stream, ...sub };
}

describe('openSubscription: before anything is sent', () => {
  it('rejects on a legacy connection with WrongEraError and sends nothing', async () => {
    const port = new FakeListenPort();
    port.era = 'legacy';
    const error = await openSubscription(port, filter, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongEraError);
    expect((error as WrongEraError).code).toBe('use_subscribe_notifications');
    expect(port.streams).toEqual([]);
  });

  it.each([[{}], [{ toolsListChanged: 'yes' }], [{ bogus: true }], [{ resourceSubscriptions: ['file:///a', 'file:///a'] }]])(
    'rejects the filter %o with FilterError and sends nothing',
    async (bad) => {
      const port = new FakeListenPort();
      await expect(openSubscription(port, bad, () => undefined)).rejects.toBeInstanceOf(FilterError);
      expect(port.streams).toEqual([]);
    },
  );

  it('allows taskIds only when the server advertises the tasks extension', async () => {
    const port = new FakeListenPort();
    await expect(openSubscription(port, { taskIds: ['t1'] }, () => undefined)).rejects.toMatchObject({ problem: 'task_ids_unsupported' });
    port.serverCapabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const opening = openSubscription(port, { taskIds: ['t1'] }, () => undefined);
    expect(port.live().filter).toEqual({ taskIds: ['t1'] });
    port.ack({ taskIds: ['t1'] });
    await expect(opening).resolves.toMatchObject({ honoredFilter: { taskIds: ['t1'] } });
  });
});

describe('openSubscription: opening', () => {
  it('sends the validated filter under a fresh id and resolves on the acknowledgment', async () => {
    const { port, stream } = await opened();
    expect(port.streams.map((s) => [s.id, s.filter])).toEqual([[40, filter]]);
    expect(stream.id).toBe(40);
    expect(stream.ref).toEqual({ kind: 'stream', id: 40 });
    expect(stream.requestedFilter).toEqual(filter);
    expect(stream.honoredFilter).toEqual(filter);
  });

  it('exposes a narrower honored filter and never delivers outside it', async () => {
    const { port, stream, summary } = await opened(undefined, {}, { resourceSubscriptions: ['file:///a'] });
    expect(stream.honoredFilter).toEqual({ resourceSubscriptions: ['file:///a'] });
    port.emit(TOOLS, {});
    port.emit(UPDATED, { uri: 'file:///b' });
    port.emit(UPDATED, { uri: 'file:///a' });
    expect(summary()).toEqual(['resources file:///a']);
  });

  it('rejects a broader acknowledgment with HonoredFilterTooBroadError and cancels on the wire', async () => {
    const port = new FakeListenPort();
    const { callback, got } = recordingCallback();
    const opening = openSubscription(port, filter, callback);
    port.ack({ ...filter, promptsListChanged: true });
    await expect(opening).rejects.toBeInstanceOf(HonoredFilterTooBroadError);
    expect(port.streams[0]?.cancelled).toBe(true);
    expect(got.at(-1)).toMatchObject({ type: 'closed', reason: { type: 'refused' } });
  });

  it('rejects with the server error when the listen fails before the ack', async () => {
    const port = new FakeListenPort();
    const opening = openSubscription(port, filter, () => undefined);
    const error = new RpcError({ code: -32602, message: 'bad filter' }, 'subscriptions/listen');
    port.live().handlers.error(error);
    await expect(opening).rejects.toBe(error);
    expect(port.streams[0]).toMatchObject({ cancelled: false, released: true });
  });

  it.each([
    ['a result', (p: FakeListenPort) => p.live().handlers.result({}), { type: 'graceful' }],
    ['a server cancel', (p: FakeListenPort) => p.live().handlers.cancelled('bye'), { type: 'remote', cause: 'bye' }],
    ['an ended stream', (p: FakeListenPort) => p.live().handlers.ended('eof'), { type: 'remote', cause: 'eof' }],
  ] as const)('rejects at once on %s before the ack', async (_, act, reason) => {
    const port = new FakeListenPort();
    const stream = createListenStream(port, filter, () => undefined);
    act(port);
    const error = await stream.acknowledged.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListenNotAcknowledgedError);
    expect((error as ListenNotAcknowledgedError).reason).toEqual(reason);
    await expect(stream.closed).resolves.toEqual(reason);
  });

  it('rejects with ListenAckTimeoutError when no ack comes within the ack timeout, and cancels', async () => {
    const port = new FakeListenPort();
    const clock = new SimulatedClock();
    port.clock = clock;
    const opening = openSubscription(port, filter, () => undefined, { ackTimeoutMs: 2_000 });
    clock.increment(2_000);
    const error = await opening.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListenAckTimeoutError);
    expect((error as ListenAckTimeoutError).timeoutMs).toBe(2_000);
    expect(port.streams[0]?.cancelled).toBe(true);
  });

  it('close() before the ack rejects with ListenNotAcknowledgedError (local) and cancels', async () => {
    const port = new FakeListenPort();
    const stream = createListenStream(port, filter, () => undefined);
    stream.close();
    const error = await stream.acknowledged.catch((e: unknown) => e);
    expect((error as ListenNotAcknowledgedError).reason).toEqual({ type: 'local' });
    expect(port.streams[0]?.cancelled).toBe(true);
  });

  it('a connection loss before the ack is not the end: the listen is sent again on ready and then resolves', async () => {
    const port = new FakeListenPort();
    const { callback, got } = recordingCallback();
    const stream = createListenStream(port, filter, callback);
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce({ type: 'connection.ready', era: 'modern', generation: 2 });
    expect(port.streams.map((s) => [s.id, s.released])).toEqual([[40, true], [40, false]]);
    port.ack(filter);
    await stream.acknowledged;
    expect(port.requests).toEqual([]); // nothing to resync: nothing was delivered yet
    expect(got).toEqual([]);
  });

  it('a port that throws on openListen ends the stream as remote with that cause', async () => {
    const port = new FakeListenPort();
    const failure = new Error('not connected');
    port.openListen = () => {
      throw failure;
    };
    const stream = createListenStream(port, filter, () => undefined);
    await expect(stream.closed).resolves.toEqual({ type: 'remote', cause: failure });
    await expect(stream.acknowledged).rejects.toMatchObject({ reason: { type: 'remote' }, cause: failure });
  });

  it('a wire cancel that throws still closes the stream as local, and the release still happens', async () => {
    const port = new FakeListenPort();
    const open = port.openListen.bind(port);
    const failure = new Error('transport gone');
    port.openListen = (id, requested, handlers) => {
      const handle = open(id, requested, handlers);
      return {
        cancel: () => {
          throw failure;
        },
        release: handle.release,
      };
    };
    const { stream } = await opened(port);
    stream.close();
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
    expect(port.streams[0]?.released).toBe(true);
  });

  it('delivers nothing the server sends before the ack', async () => {
    const port = new FakeListenPort();
    const { callback, got } = recordingCallback();
    const opening = openSubscription(port, filter, callback);
    port.emit(TOOLS, {});
    port.ack(filter);
    await opening;
    expect(got).toEqual([]);
  });
});

describe('ListenStream: delivery and closing', () => {
  it('delivers each allowed notification to the subscriber, with the stream ref', async () => {
    const { port, got } = await opened();
    const params = { uri: 'file:///b', _meta: { 'io.modelcontextprotocol/subscriptionId': 40 } };
    port.emit(UPDATED, params);
    port.emit(PROMPTS, {});
    expect(got).toEqual([{ type: 'notification', ref: { kind: 'stream', id: 40 }, method: UPDATED, params }]);
  });

  it('close() is idempotent: local, cancelled on the wire once, the closed message once', async () => {
    const { port, stream, got } = await opened();
    stream.close();
    stream.close();
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
    expect(port.streams[0]).toMatchObject({ cancelled: true, released: true });
    expect(got.filter((m) => m.type === 'closed')).toHaveLength(1);
    port.emit(TOOLS, {});
    expect(got.filter((m) => m.type === 'notification')).toHaveLength(0);
  });

  it('a subscriber may close the stream from inside its callback', async () => {
    const port = new FakeListenPort();
    const seen: string[] = [];
    let stream: Awaited<ReturnType<typeof openSubscription>> | undefined;
    const opening = openSubscription(port, filter, (m) => {
      seen.push(m.type);
      if (m.type === 'notification') stream?.close();
    });
    port.ack(filter);
    stream = await opening;
    port.emit(TOOLS, {});
    port.emit(TOOLS, {});
    expect(seen).toEqual(['notification', 'closed']);
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
  });

  it('a result after open closes gracefully without a wire cancel', async () => {
    const { port, stream } = await opened();
    port.live().handlers.result({ resultType: 'complete' });
    await expect(stream.closed).resolves.toEqual({ type: 'graceful' });
    expect(port.streams[0]).toMatchObject({ cancelled: false, released: true });
  });

  it('notifications never go through a machine transition', async () => {
    const events: string[] = [];
    const inspect = (e: InspectionEvent) => {
      if (e.type === '@xstate.event') events.push(e.event.type);
    };
    const { port } = await opened(undefined, { inspect });
    const before = events.length;
    expect(events).toContain('listen.acknowledged'); // the inspector does see lifecycle events
    for (let n = 0; n < 1_000; n++) port.emit(UPDATED, { uri: 'file:///a' });
    expect(events.length).toBe(before);
  });

  it('a callback that throws is reported and the stream goes on', async () => {
    const port = new FakeListenPort();
    const reported: unknown[] = [];
    let calls = 0;
    const opening = openSubscription(port, filter, () => {
      calls++;
      throw new Error('subscriber bug');
    }, { onSubscriberError: (e) => reported.push(e.cause) });
    port.ack(filter);
    const stream = await opening;
    port.emit(TOOLS, {});
    port.emit(TOOLS, {});
    expect(calls).toBe(2);
    expect(reported).toHaveLength(2);
    stream.close();
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
  });

  it('an iterator subscriber gets the messages, then closed', async () => {
    const port = new FakeListenPort();
    const opening = openSubscription(port, filter, 'iterator');
    port.ack(filter);
    const stream = await opening;
    port.emit(TOOLS, {});
    port.live().handlers.result({});
    const seen: string[] = [];
    for await (const m of stream) seen.push(m.type);
    expect(seen).toEqual(['notification', 'closed']);
  });

  it('a slow iterator at its cap ends the stream as delivery_dropped and throws DeliveryDroppedError', async () => {
    const port = new FakeListenPort();
    const opening = openSubscription(port, filter, 'iterator', { mailboxCap: 2 });
    port.ack(filter);
    const stream = await opening;
    for (let n = 0; n < 3; n++) port.emit(TOOLS, { n });
    await expect(stream.closed).resolves.toEqual({ type: 'delivery_dropped', cap: 2 });
    expect(port.streams[0]?.cancelled).toBe(true);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const m of stream) seen.push(m.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['notification', 'notification', 'closed']);
    expect(error).toBeInstanceOf(DeliveryDroppedError);
  });

  it('a slow callback at its cap ends the stream as delivery_dropped; its closed message says why', async () => {
    const port = new FakeListenPort();
    const got: SubscriberMessage[] = [];
    const never = new Promise<void>(() => undefined);
    const opening = openSubscription(port, filter, (m) => {
      got.push(m);
      return m.type === 'notification' ? never : undefined;
    }, { mailboxCap: 3 });
    port.ack(filter);
    const stream = await opening;
    for (let n = 0; n < 5; n++) port.emit(TOOLS, { n });
    await expect(stream.closed).resolves.toEqual({ type: 'delivery_dropped', cap: 3 });
    expect(got.map((m) => m.type)).toEqual(['notification', 'notification', 'notification', 'closed']);
    expect(got.at(-1)).toMatchObject({ reason: { type: 'delivery_dropped', cap: 3 } });
    expect(port.streams[0]?.cancelled).toBe(true);
  });

  it('an actor subscriber receives events; when it stops the stream closes as local', async () => {
    const recorder = setup({ types: { context: {} as { seen: string[] }, events: {} as SubscriberMessage } }).createMachine({
      context: { seen: [] },
      on: { '*': { actions: assign({ seen: ({ context, event }) => [...context.seen, event.type] }) } },
    });
    const subscriber = createActor(recorder).start();
    const port = new FakeListenPort();
    const opening = openSubscription(port, filter, subscriber);
    port.ack(filter);
    const stream = await opening;
    port.emit(TOOLS, {});
    expect(subscriber.getSnapshot().context.seen).toEqual(['notification']);
    subscriber.stop();
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
    expect(port.streams[0]?.cancelled).toBe(true);
  });
});

describe('ListenStream: connection lifecycle', () => {
  const ready = { type: 'connection.ready', era: 'modern', generation: 2 } as const;

  it('pauses, reopens under the same id, resyncs, then delivers the snapshot, held events in order, then live', async () => {
    const { port, stream, got, summary } = await opened();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    expect(port.streams[0]?.released).toBe(true);
    port.streams[0]?.handlers.notification(TOOLS, {}); // a stale route: must not deliver
    expect(got).toEqual([]);

    port.announce(ready);
    expect(port.streams.map((s) => s.id)).toEqual([40, 40]);
    port.ack({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] });
    expect(stream.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] });

    port.emit(UPDATED, { uri: 'file:///a', n: 1 });
    port.emit(TOOLS, {});
    const [toolsPage1] = port.take('tools/list');
    toolsPage1?.resolve({ tools: [{ name: 'one' }], nextCursor: 'c2' });
    await flush();
    const toolsPage2 = port.take('tools/list')[1];
    expect(toolsPage2?.params).toEqual({ cursor: 'c2' });
    toolsPage2?.resolve({ tools: [{ name: 'two' }] });
    port.take('resources/read')[0]?.resolve({ contents: [{ uri: 'file:///a', text: 'A' }] });
    expect(port.take('resources/read').map((r) => r.params)).toEqual([{ uri: 'file:///a' }]);
    expect(port.take('prompts/list')).toEqual([]);
    await flush();

    port.emit(UPDATED, { uri: 'file:///a', n: 2 });
    expect(summary()).toEqual(['reconnected', 'resources file:///a', 'tools', 'resources file:///a']);
    expect(got[0]).toMatchObject({
      type: 'reconnected',
      snapshot: { tools: [{ name: 'one' }, { name: 'two' }], contents: { 'file:///a': { contents: [{ uri: 'file:///a', text: 'A' }] } } },
    });
    expect(got.map((m) => (m.type === 'notification' ? m.params.n : undefined))).toEqual([undefined, 1, undefined, 2]);
  });

  it('a failed resources/read is an Error in the snapshot, not the end of the stream', async () => {
    const { port, got } = await opened(undefined, {}, { resourceSubscriptions: ['file:///a'] });
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(ready);
    port.ack({ resourceSubscriptions: ['file:///a'] });
    const failure = new RpcError({ code: -32002, message: 'not found' });
    port.take('resources/read')[0]?.reject(failure);
    await flush();
    expect(got[0]).toMatchObject({ type: 'reconnected', snapshot: { contents: { 'file:///a': failure } } });
  });

  it('a list the server fails during resync ends the stream as refused', async () => {
    const { port, stream } = await opened();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(ready);
    port.ack(filter);
    const failure = new RpcError({ code: -32603, message: 'boom' });
    port.take('tools/list')[0]?.reject(failure);
    await expect(stream.closed).resolves.toEqual({ type: 'refused', error: failure });
  });

  it('a resync cut by the connection waits for the next ready', async () => {
    const { port, stream } = await opened();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(ready);
    port.ack(filter);
    port.take('tools/list')[0]?.reject(new ConnectionLostError('tools/list'));
    await flush();
    expect(streamActorOf(stream).getSnapshot().value).toBe('paused');
    port.announce({ type: 'connection.ready', era: 'modern', generation: 3 });
    expect(port.streams.map((s) => s.id)).toEqual([40, 40, 40]);
  });

  it('events held during the resync count against the cap', async () => {
    const { port, stream } = await opened(undefined, { mailboxCap: 2 });
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(ready);
    port.ack(filter);
    for (let n = 0; n < 3; n++) port.emit(TOOLS, { n });
    await expect(stream.closed).resolves.toEqual({ type: 'delivery_dropped', cap: 2 });
  });

  it('a refused re-listen ends the stream as refused', async () => {
    const { port, stream } = await opened();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(ready);
    const error = new RpcError({ code: -32600, message: 'no' });
    port.live().handlers.error(error);
    await expect(stream.closed).resolves.toEqual({ type: 'refused', error });
  });

  it.each([
    [{ type: 'connection.era_changed', from: 'modern', to: 'legacy' }, { type: 'era_changed', era: 'legacy' }],
    [{ type: 'connection.closed', reason: { type: 'reconnect_exhausted', cause: 'x', attempts: 3 } }, { type: 'reconnect_exhausted', cause: 'x', attempts: 3 }],
    [{ type: 'connection.closed', reason: { type: 'disconnected' } }, { type: 'disconnected' }],
    [{ type: 'connection.closed', reason: { type: 'transport_closed', cause: 'eof' } }, { type: 'remote', cause: 'eof' }],
  ] as const)('%o while paused closes the stream as %o', async (event, reason) => {
    const { port, stream, got } = await opened();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    port.announce(event);
    await expect(stream.closed).resolves.toEqual(reason);
    expect(got.at(-1)).toEqual({ type: 'closed', ref: stream.ref, reason });
  });

  it('a lifecycle event after the stream closed is ignored', async () => {
    const { port, stream } = await opened();
    stream.close();
    port.announce({ type: 'connection.lost', cause: 'eof' });
    await expect(stream.closed).resolves.toEqual({ type: 'local' });
  });
});
