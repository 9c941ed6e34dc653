/**
 * The client's actor logic (src/client/actor-logic.ts) invoked by a host's
 * own xstate machine, against the official @modelcontextprotocol/server 2.4.0
 * over stdio in a child process: a modern listen stream, a legacy listener
 * and the change cache, each a child of the host in the host's actor system.
 */
import { describe, expect, it, vi } from 'vitest';
import { assign, createActor, setup, waitFor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { changeCacheLogic, listenerLogic, listenLogic, type SubscriptionEvent } from '../../src/client/actor-logic.ts';
import type { McpClient } from '../../src/client/client.ts';
import type { CacheEvent } from '../../src/cache/types.ts';
import { FilterError } from '../../src/protocol/filter.ts';
import { officialRecorded, sharedOfficialRecorded } from './official-recorded.ts';

const connected = officialRecorded();
// The modern tests stop what they started (the host and its child) and leave the connection up: one client serves them.
const sharedModern = sharedOfficialRecorded();

/** A host that watches one subscription while in `watching`, counting what its child sends. */
function subscriptionHost(logic: typeof listenLogic | typeof listenerLogic) {
  return setup({
    types: {
      context: {} as { input: { client: McpClient; filter: object }; acknowledgedId: string | number | undefined; notifications: string[]; closed: string | undefined; error: unknown },
      input: {} as { client: McpClient; filter: object },
      events: {} as SubscriptionEvent | { type: 'stop' },
    },
    actors: { subscription: logic },
  }).createMachine({
    context: ({ input }) => ({ input, acknowledgedId: undefined, notifications: [], closed: undefined, error: undefined }),
    initial: 'watching',
    states: {
      watching: {
        invoke: {
          id: 'subscription',
          src: 'subscription',
          input: ({ context }) => ({ client: context.input.client, filter: context.input.filter as never }),
          onDone: 'ended',
          onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
        },
        on: {
          acknowledged: { actions: assign({ acknowledgedId: ({ event }) => event.ref.id }) },
          notification: { actions: assign({ notifications: ({ context, event }) => [...context.notifications, event.method] }) },
          closed: { actions: assign({ closed: ({ event }) => event.reason.type }) },
          stop: 'stopped',
        },
      },
      ended: {},
      failed: {},
      stopped: {},
    },
  });
}

describe('actor logic a host machine invokes', () => {
  it('a modern listen stream is the host child: acknowledged, notifications as events from it, stopping it cancels the listen', async () => {
    const { client, wire } = await sharedModern('modern');
    const inspection: InspectionEvent[] = [];
    const host = createActor(subscriptionHost(listenLogic), { input: { client, filter: { toolsListChanged: true } }, inspect: (event) => void inspection.push(event) });
    host.start();
    const live = await waitFor(host, (snapshot) => snapshot.context.acknowledgedId !== undefined);
    const child = live.children.subscription as AnyActorRef;
    expect(child).toBeDefined();

    await client.callTool('emit', { kind: 'tools', count: 2 });
    await waitFor(host, (snapshot) => snapshot.context.notifications.length === 2);
    expect(host.getSnapshot().context.notifications).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);

    // The child is in the host's system, and what it delivers is an event from it to the host.
    const created = inspection.find((event) => event.type === '@xstate.actor' && event.actorRef === child);
    expect(created?.rootId).toBe(host.sessionId);
    const delivered = inspection.filter((event) => event.type === '@xstate.event' && event.event.type === 'notification');
    expect(delivered).toHaveLength(2);
    expect(delivered.every((event) => event.type === '@xstate.event' && event.sourceRef === child && event.actorRef === host)).toBe(true);

    host.send({ type: 'stop' });
    expect(host.getSnapshot().value).toBe('stopped');
    const listenId = live.context.acknowledgedId;
    await vi.waitFor(() => expect(wire.calls('notifications/cancelled').some((call) => call.params.requestId === listenId)).toBe(true));
    host.stop();
  });

  it('a legacy listener: acknowledged once registered, notifications, then done after closed when the client disconnects', async () => {
    const { client } = await connected('legacy');
    const host = createActor(subscriptionHost(listenerLogic), { input: { client, filter: { toolsListChanged: true } } });
    host.start();
    await waitFor(host, (snapshot) => snapshot.context.acknowledgedId !== undefined);
    await client.callTool('emit', { kind: 'tools' });
    await waitFor(host, (snapshot) => snapshot.context.notifications.length === 1);
    await client.close();
    const ended = await waitFor(host, (snapshot) => snapshot.value === 'ended');
    expect(ended.context.closed).toBe('disconnected');
    host.stop();
  });

  it('a filter that does not validate fails the child: the host takes onError with the FilterError', async () => {
    const { client } = await sharedModern('modern');
    const host = createActor(subscriptionHost(listenLogic), { input: { client, filter: { toolsListChange: true } } });
    host.start();
    const failed = await waitFor(host, (snapshot) => snapshot.value === 'failed');
    expect(failed.context.error).toBeInstanceOf(FilterError);
    host.stop();
  });

  it('the change cache as a child keeps the host tool list: the first fetch, then a refetch after a change', async () => {
    const { client } = await sharedModern('modern');
    const replaced: unknown[][] = [];
    const keeper = setup({
      types: { context: {} as { tools: unknown[] }, events: {} as CacheEvent },
      actors: { cache: changeCacheLogic },
    }).createMachine({
      context: { tools: [] },
      invoke: { src: 'cache', input: { client, interest: { tools: true } } },
      on: {
        replaced: {
          guard: ({ event }) => event.key === 'tools',
          actions: assign({ tools: ({ event }) => event.value as unknown[] }),
        },
      },
    });
    const host = createActor(keeper);
    host.subscribe((snapshot) => {
      if (replaced.at(-1) !== snapshot.context.tools) replaced.push(snapshot.context.tools);
    });
    host.start();
    await waitFor(host, (snapshot) => snapshot.context.tools.length > 0);
    const names = (host.getSnapshot().context.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('emit');
    const before = replaced.length;
    await client.callTool('emit', { kind: 'tools' });
    await waitFor(host, () => replaced.length > before);
    host.stop();
  });
});
