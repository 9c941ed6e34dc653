/**
 * Rule 3 of issue 15 in the machine that holds it: the connection machine
 * sends each lifecycle event to the children registered in its system, on
 * the transition that announces it, in the order connection-children.ts
 * gives (the URI worker last on `connection.ready` and `connection.lost`,
 * first on the rest), and tells a
 * child that stopped nothing more. Children here are recording actors made
 * with xstate's public `parent` and `systemId` options; time is the
 * simulated clock.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, emit, setup, type AnyActorRef } from 'xstate';
import { memberId, URI_WORKER_ID } from '../../machines/connection-children.ts';
import { registerChild } from '../../src/runtime/xstate-internals.ts';
import { harness } from './connection-harness.ts';

/** Every event each recording child received, as `<name> <type>`, in the order they arrived. */
function recorder(parent: AnyActorRef) {
  const heard: string[] = [];
  const child = (name: string, systemId = memberId(name)): AnyActorRef =>
    createActor(
      setup({}).createMachine({
        initial: 'running',
        states: {
          running: { on: { end: 'ended', '*': { actions: ({ event }) => heard.push(`${name} ${event.type}`) } } },
          ended: { type: 'final' },
        },
      }),
      { parent, systemId },
    ).start();
  return { heard, child };
}

describe('connection machine: its children hear its lifecycle from it', () => {
  it('tells every child each lifecycle event, the worker last on ready and lost and first on the rest, and a child that ended nothing', async () => {
    const h = harness({ eras: ['legacy', 'legacy'] });
    const { heard, child } = recorder(h.actor);
    child('worker', URI_WORKER_ID);
    child('listener');
    const stream = child('stream');
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    expect(heard).toEqual(['listener connection.ready', 'stream connection.ready', 'worker connection.ready']);

    stream.send({ type: 'end' }); // a child that ends leaves the connection's system
    h.clock.increment(1_000); // ready as long as the longest reconnect delay: an ordinary loss, not a quick one
    heard.length = 0;
    h.transports[0]!.fail(new Error('exited'));
    expect(heard).toEqual(['listener connection.lost', 'worker connection.lost']);
    h.clock.increment(75);
    h.transports[1]!.open();
    await h.settle();
    expect(heard.slice(2)).toEqual(['listener connection.ready', 'worker connection.ready']);

    heard.length = 0;
    h.actor.send({ type: 'disconnect' });
    expect(heard).toEqual(['worker connection.closed', 'listener connection.closed']);
  });

  it('tells a child that ended nothing even while its owner has not released it yet', async () => {
    const h = harness({ eras: ['legacy'] });
    const { heard, child } = recorder(h.actor);
    child('listener');
    // Registered as the client registers its listeners (src/client/connection.ts adopt): it stays until released.
    const ended = createActor(setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } })).start();
    registerChild(h.actor, memberId('ended'), ended);
    expect(ended.getSnapshot().status).toBe('done');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      h.actor.send({ type: 'connect' });
      h.transports[0]!.open();
      await h.settle();
      h.actor.send({ type: 'disconnect' });
      expect(heard).toEqual(['listener connection.ready', 'listener connection.closed']);
      // xstate warns of every event sent to a stopped actor: none was.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('tells children of a ready after its watchers: a child a watcher ends on hearing it hears no ready', async () => {
    const h = harness({ eras: ['legacy', 'legacy'] });
    const { heard, child } = recorder(h.actor);
    child('worker', URI_WORKER_ID);
    child('kept');
    const dropped = child('dropped');
    // As the change cache does on a reconnect whose capabilities changed: it closes the listener it no longer needs.
    h.actor.on('connection.ready', (ready) => {
      heard.push(`watcher connection.ready ${ready.generation}`);
      if (ready.generation === 2) dropped.send({ type: 'end' });
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      h.actor.send({ type: 'connect' });
      h.transports[0]!.open();
      await h.settle();
      h.clock.increment(1_000);
      h.transports[0]!.fail(new Error('exited'));
      h.clock.increment(75);
      heard.length = 0;
      h.transports[1]!.open();
      await h.settle();
      expect(heard).toEqual(['watcher connection.ready 2', 'kept connection.ready', 'worker connection.ready']);
      expect(dropped.getSnapshot().status).toBe('done');
      // xstate warns of every event sent to a stopped actor: none was.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('tells the worker of a loss after the members: a listener the worker rejects on hearing it has heard it, and nothing more', async () => {
    const h = harness({ eras: ['legacy'] });
    const { heard, child } = recorder(h.actor);
    const registering = child('registering');
    // As the URI worker does: a loss finishes a failed registration's rollback at once, and the registry ends its listener.
    const worker = createActor(
      setup({ types: { emitted: {} as { type: 'acquire.failed' } } }).createMachine({
        on: { 'connection.lost': { actions: [({ event }) => heard.push(`worker ${event.type}`), emit({ type: 'acquire.failed' })] } },
      }),
      { parent: h.actor, systemId: URI_WORKER_ID },
    ).start();
    worker.on('acquire.failed', () => registering.send({ type: 'end' }));
    h.actor.send({ type: 'connect' });
    h.transports[0]!.open();
    await h.settle();
    heard.length = 0;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      h.transports[0]!.fail(new Error('exited'));
      expect(heard).toEqual(['registering connection.lost', 'worker connection.lost']);
      expect(registering.getSnapshot().status).toBe('done');
      // xstate warns of every event sent to a stopped actor: none was.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('tells children the era changed; members end on it and hear no ready after it, the worker does', async () => {
    const h = harness({ eras: ['legacy', 'modern'] });
    const { heard, child } = recorder(h.actor);
    child('worker', URI_WORKER_ID);
    // A member as the client's are: a listener or stream ends on leaving its era.
    const member = createActor(
      setup({}).createMachine({
        initial: 'running',
        states: {
          running: { on: { 'connection.era_changed': 'ended', '*': { actions: ({ event }) => heard.push(`listener ${event.type}`) } } },
          ended: { type: 'final', entry: () => heard.push('listener ended') },
        },
      }),
      { parent: h.actor, systemId: memberId('listener') },
    ).start();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      h.actor.send({ type: 'connect' });
      h.transports[0]!.open();
      await h.settle();
      h.clock.increment(1_000); // ready as long as the longest reconnect delay: an ordinary loss, not a quick one
      h.transports[0]!.fail(new Error('exited'));
      h.clock.increment(75);
      h.transports[1]!.open();
      await h.settle();
      expect(heard).toEqual([
        'listener connection.ready',
        'worker connection.ready',
        'listener connection.lost',
        'worker connection.lost',
        'worker connection.era_changed',
        'listener ended',
        'worker connection.ready',
      ]);
      expect(member.getSnapshot().status).toBe('done');
      // xstate warns of every event sent to a stopped actor: none was.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
