/**
 * The connection actor owns the actors built on it (issue 15, rule 3): a
 * listen stream (lean runtime), a legacy listener and the URI worker are its
 * children in the inspection feed (`_parent`, one `rootId`), and the
 * lifecycle events they receive come from it (`@xstate.event` whose
 * `sourceRef` is the connection actor), not from code that forwards them.
 * Our client and our server joined by the in-memory pair: this is about
 * ownership, not a process boundary. Also issue 16: what a client and a
 * stream show of themselves is their public surface only.
 */
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { createClient, type ClientOptions, type McpClient } from '../../src/client/client.ts';
import type { McpServer } from '../../src/server/index.ts';
import { connectionActorOf } from '../../src/testing/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });

/** A connected client of a fresh fixture server, and every inspection event its actors reported. */
async function inspected(options: Partial<ClientOptions> = {}) {
  const server = buildFixtureServer();
  servers.push(server);
  const events: InspectionEvent[] = [];
  const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), inspect: (event) => events.push(event), ...options });
  clients.push(client);
  await client.connect();
  return { client, events };
}

/** The machine id an actor runs (`connection`, `listener`, `uriWorker`, `subscription`). */
const machineOf = (actor: object): string | undefined => (actor as { logic?: { id?: string } }).logic?.id;

/** The actors the feed announced (`@xstate.actor`), by the machine they run. */
const announced = (events: InspectionEvent[], machine: string): AnyActorRef[] =>
  events.flatMap((event) => (event.type === '@xstate.actor' && machineOf(event.actorRef) === machine ? [event.actorRef as AnyActorRef] : []));

/** The lifecycle events (`connection.*`) `from` sent to `to`, as the feed saw them (a child's `xstate.init` comes from its parent too). */
const sentBy = (events: InspectionEvent[], from: AnyActorRef, to: AnyActorRef): string[] =>
  events.flatMap((event) =>
    event.type === '@xstate.event' && event.sourceRef === from && event.actorRef === to && event.event.type.startsWith('connection.') ? [event.event.type] : [],
  );

describe('the connection actor owns its children', () => {
  it('modern: the listen stream is the connection actor’s child and hears connection.closed from it', async () => {
    const { client, events } = await inspected();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    const connection = connectionActorOf(client);
    const [streamActor, ...others] = announced(events, 'subscription');
    expect(others).toEqual([]);
    expect(streamActor!._parent).toBe(connection);
    const rootIds = new Set(events.filter((event) => event.actorRef === streamActor).map((event) => event.rootId));
    expect(rootIds).toEqual(new Set([connection.sessionId]));

    await client.close();
    await expect(stream.closed).resolves.toEqual({ type: 'disconnected' });
    expect(sentBy(events, connection, streamActor!)).toEqual(['connection.closed']);
  });

  it('legacy: the listener and the URI worker are the connection actor’s children and hear its lifecycle from it, worker first', async () => {
    const { client, events } = await inspected({ era: 'legacy' });
    const listener = await client.subscribeNotifications({ resourceSubscriptions: ['test://resource/1'] }, () => {});
    const connection = connectionActorOf(client);
    const [worker] = announced(events, 'uriWorker');
    const [listenerActor] = announced(events, 'listener');
    expect(worker!._parent).toBe(connection);
    expect(listenerActor!._parent).toBe(connection);
    expect(listenerActor!.id).toBe(listener.id);
    // The first ready was announced before the listener existed; the worker, created with the client, heard it.
    expect(sentBy(events, connection, worker!)).toEqual(['connection.ready']);

    await client.close();
    expect(sentBy(events, connection, worker!)).toEqual(['connection.ready', 'connection.closed']);
    expect(sentBy(events, connection, listenerActor!)).toEqual(['connection.closed']);
    const closedTo = events.flatMap((event) =>
      event.type === '@xstate.event' && event.sourceRef === connection && event.event.type === 'connection.closed' ? [event.actorRef] : [],
    );
    expect(closedTo).toEqual([worker, listenerActor]);
  });
});

describe('what a long-lived connection actor hears is bounded', () => {
  /** The event types the connection actor received, as the feed saw them. */
  const heardBy = (events: InspectionEvent[], connection: AnyActorRef): Set<string> =>
    new Set(events.flatMap((event) => (event.type === '@xstate.event' && event.actorRef === connection ? [event.event.type] : [])));

  // xstate keeps, per state node of a machine, the transitions it looked up for every event type the node ever saw, for
  // as long as the machine lives: a type new with each child (its done event, `xstate.done.actor.<id>`) grew a client
  // by ~450 B for every listener it ever had.
  it.each(['legacy', 'modern'] as const)('%s: listeners and streams that come and go add no event type the connection actor hears', async (era) => {
    const { client, events } = await inspected({ era });
    const connection = connectionActorOf(client);
    const comeAndGo = async (count: number) => {
      for (let i = 0; i < count; i++) {
        if (era === 'legacy') {
          const listener = await client.subscribeNotifications({ toolsListChanged: true, resourceSubscriptions: ['test://resource/1'] }, () => {});
          await client.unsubscribeNotifications(listener);
        } else {
          const stream = await client.listen({ toolsListChanged: true }, () => {});
          await stream.close();
        }
      }
    };
    await comeAndGo(3);
    const heard = heardBy(events, connection);
    await comeAndGo(20);
    expect(heardBy(events, connection)).toEqual(heard);
  });
});

describe('only the public surface is public (issue 16)', () => {
  it('a client shows no connection or actor, and a stream’s own keys are its public fields', async () => {
    const { client } = await inspected();
    expect('connection' in client).toBe(false);
    expect('actor' in client).toBe(false);
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    expect(Object.keys(stream).sort()).toEqual(['acknowledged', 'id', 'ref', 'requestedFilter']);
    for (const internal of ['actor', 'handleLifecycle', 'port', 'mailbox', 'holdCap', 'cap', 'clock']) {
      expect(Object.keys(stream)).not.toContain(internal);
    }
    expect('handleLifecycle' in stream).toBe(false);
    expect('actor' in stream).toBe(false);
  });
});
