import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { listenerMachine, type ListenerEmitted } from '../../machines/listener.machine.ts';

function startListener(uris: string[] = ['file:///a'], generation: number | undefined = 1) {
  const actor = createActor(listenerMachine, { input: { id: 'l1', uris, generation } });
  const delivered: ListenerEmitted[] = [];
  actor.on('*', (event) => delivered.push(event));
  actor.start();
  return { actor, delivered };
}

const updated = (uri: string) => ({ type: 'notification.received' as const, method: 'notifications/resources/updated', params: { uri } });

describe('listener machine', () => {
  it('delivers nothing until registered, then delivers what the registry routes to it', () => {
    const { actor, delivered } = startListener();
    actor.send(updated('file:///a'));
    expect(delivered).toEqual([]);
    actor.send({ type: 'registration.done' });
    actor.send(updated('file:///a'));
    expect(delivered).toEqual([{ type: 'deliver.notification', method: 'notifications/resources/updated', params: { uri: 'file:///a' } }]);
  });

  it('pauses delivery from a loss until the report of the matching reconnect, limited to its own URIs', () => {
    const { actor, delivered } = startListener(['file:///a', 'file:///b']);
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'connection.lost' });
    actor.send(updated('file:///a'));
    actor.send({ type: 'connection.ready', generation: 2 });
    actor.send(updated('file:///a'));
    expect(actor.getSnapshot().value).toBe('resubscribing');
    expect(delivered).toEqual([]);
    actor.send({
      type: 'resubscribe.done',
      generation: 2,
      report: { resubscribed: ['file:///a', 'file:///other'], failed: [{ uri: 'file:///b', reason: 'x' }, { uri: 'file:///z', reason: 'y' }] },
    });
    expect(delivered).toEqual([
      { type: 'deliver.reconnected', report: { resubscribed: ['file:///a'], failed: [{ uri: 'file:///b', reason: 'x' }] } },
    ]);
    expect(actor.getSnapshot().value).toBe('active');
  });

  it('never delivers the report of an older reconnect after a newer one began', () => {
    const { actor, delivered } = startListener();
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'connection.lost' });
    actor.send({ type: 'connection.ready', generation: 2 });
    actor.send({ type: 'connection.lost' });
    actor.send({ type: 'connection.ready', generation: 3 });
    actor.send({ type: 'resubscribe.done', generation: 2, report: { resubscribed: ['file:///a'], failed: [] } });
    expect(delivered).toEqual([]);
    actor.send({ type: 'resubscribe.done', generation: 3, report: { resubscribed: ['file:///a'], failed: [] } });
    expect(delivered).toHaveLength(1);
    actor.send({ type: 'resubscribe.done', generation: 2, report: { resubscribed: [], failed: [] } });
    expect(delivered).toHaveLength(1);
  });

  it('treats a ready for a new session without a loss first as a reconnect', () => {
    const { actor } = startListener();
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'connection.ready', generation: 1 });
    expect(actor.getSnapshot().value).toBe('active');
    actor.send({ type: 'connection.ready', generation: 2 });
    expect(actor.getSnapshot().value).toBe('resubscribing');
  });

  it('gets no report for a reconnect that happened while it was registering', () => {
    const { actor, delivered } = startListener();
    actor.send({ type: 'connection.lost' });
    actor.send({ type: 'connection.ready', generation: 2 });
    actor.send({ type: 'resubscribe.done', generation: 2, report: { resubscribed: [], failed: [] } });
    actor.send({ type: 'registration.done' });
    expect(actor.getSnapshot().value).toBe('active');
    actor.send({ type: 'connection.ready', generation: 2 });
    expect(actor.getSnapshot().value).toBe('active');
    expect(delivered).toEqual([]);
  });

  it.each([
    { type: 'reconnect_exhausted', cause: 'down', attempts: 5 },
    { type: 'transport_closed', cause: 'eof' },
    { type: 'era_changed', era: 'modern' },
    { type: 'disconnected' },
    { type: 'shutdown', cause: 'stop' },
  ] as const)('closes with $type and tells the subscriber', (reason) => {
    const { actor, delivered } = startListener();
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'connection.lost' });
    actor.send(reason.type === 'era_changed' ? { type: 'connection.era_changed', to: reason.era } : { type: 'connection.closed', reason });
    expect(delivered).toEqual([{ type: 'deliver.closed', reason }]);
    expect(actor.getSnapshot().output).toEqual({ type: 'closed', reason });
  });

  it('closes locally on removal, telling the subscriber, and silently when the subscriber exited', () => {
    const removed = startListener();
    removed.actor.send({ type: 'registration.done' });
    removed.actor.send({ type: 'close' });
    expect(removed.delivered).toEqual([{ type: 'deliver.closed', reason: { type: 'local' } }]);

    const exited = startListener();
    exited.actor.send({ type: 'registration.done' });
    exited.actor.send({ type: 'subscriber.stopped' });
    expect(exited.delivered).toEqual([]);
    expect(exited.actor.getSnapshot().output).toEqual({ type: 'closed', reason: { type: 'local' } });
  });

  it('decides the reason when the mailbox sheds a delivery: delivery_dropped with the cap, told to the subscriber', () => {
    const { actor, delivered } = startListener();
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'delivery.dropped', cap: 4 });
    expect(delivered).toEqual([{ type: 'deliver.closed', reason: { type: 'delivery_dropped', cap: 4 } }]);
    expect(actor.getSnapshot().output).toEqual({ type: 'closed', reason: { type: 'delivery_dropped', cap: 4 } });
  });

  it('stays in the legacy era: an era change back to legacy ends nothing', () => {
    const { actor } = startListener();
    actor.send({ type: 'registration.done' });
    actor.send({ type: 'connection.era_changed', to: 'legacy' });
    expect(actor.getSnapshot().value).toBe('active');
  });

  it('ends rejected, telling nobody, when the registration fails, is withdrawn or the connection ends first', () => {
    const failed = startListener();
    failed.actor.send({ type: 'registration.failed', uri: 'file:///a', cause: 'denied' });
    expect(failed.actor.getSnapshot().output).toEqual({
      type: 'rejected',
      rejection: { type: 'subscribe_failed', uri: 'file:///a', cause: 'denied' },
    });

    const withdrawn = startListener();
    withdrawn.actor.send({ type: 'subscriber.stopped' });
    expect(withdrawn.actor.getSnapshot().output).toEqual({ type: 'rejected', rejection: { type: 'withdrawn' } });

    const closed = startListener();
    closed.actor.send({ type: 'connection.closed', reason: { type: 'disconnected' } });
    expect(closed.actor.getSnapshot().output).toEqual({ type: 'rejected', rejection: { type: 'closed', reason: { type: 'disconnected' } } });
    expect([...failed.delivered, ...withdrawn.delivered, ...closed.delivered]).toEqual([]);
  });
});
