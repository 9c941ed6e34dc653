import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { uriWorkerMachine, type UriWorkerEmitted, type WireOp } from '../../machines/uri-worker.machine.ts';

interface PendingCall {
  op: WireOp;
  resolve(): void;
  reject(cause: unknown): void;
}

/** A worker whose wire requests stay pending until the test settles them. */
function startWorker({ generation }: { generation: number | undefined } = { generation: 1 }) {
  const calls: PendingCall[] = [];
  let onCall: (() => void) | undefined;
  const wire = fromPromise<void, WireOp>(
    ({ input }) =>
      new Promise<void>((resolve, reject) => {
        calls.push({ op: input, resolve: () => resolve(), reject });
        onCall?.();
      }),
  );
  const actor = createActor(uriWorkerMachine.provide({ actors: { wire } }), { input: { generation } });
  const emitted: UriWorkerEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  const log = () => calls.map((call) => `${call.op.op} ${call.op.uri}`);
  /** Waits for the n-th wire request (1-based). */
  const call = (n: number) =>
    new Promise<PendingCall>((resolve) => {
      const check = () => {
        if (calls.length >= n) resolve(calls[n - 1]!);
        else onCall = check;
      };
      check();
    });
  const idle = () => waitFor(actor, (s) => s.matches('idle'));
  return { actor, calls, emitted, log, call, idle };
}

describe('URI worker', () => {
  it('subscribes a shared URI once and unsubscribes it only when its last holder leaves', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///x'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'uris.acquire', listenerId: 'b', uris: ['file:///x'] });
    await w.idle();
    w.actor.send({ type: 'uris.release', listenerId: 'a' });
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///x']);
    w.actor.send({ type: 'uris.release', listenerId: 'b' });
    (await w.call(2)).resolve();
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///x', 'unsubscribe file:///x']);
    expect(w.emitted.map((e) => e.type)).toEqual(['acquire.done', 'acquire.done', 'release.done', 'release.done']);
    expect(w.actor.getSnapshot().context.holders).toEqual({});
  });

  it('rolls back a failed acquire without touching a URI another listener holds', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///shared'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'uris.acquire', listenerId: 'b', uris: ['file:///shared', 'file:///own', 'file:///bad'] });
    (await w.call(2)).resolve();
    (await w.call(3)).reject(new Error('nope'));
    (await w.call(4)).resolve();
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///shared', 'subscribe file:///own', 'subscribe file:///bad', 'unsubscribe file:///own']);
    expect(w.emitted.at(-1)).toMatchObject({ type: 'acquire.failed', listenerId: 'b', uri: 'file:///bad' });
    expect(w.actor.getSnapshot().context.holders).toEqual({ 'file:///shared': ['a'] });
  });

  it('runs an acquire that races a release of the same URI after the unsubscribe', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///x'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'uris.release', listenerId: 'a' });
    const unsubscribe = await w.call(2);
    w.actor.send({ type: 'uris.acquire', listenerId: 'b', uris: ['file:///x'] });
    expect(w.calls).toHaveLength(2);
    unsubscribe.resolve();
    (await w.call(3)).resolve();
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///x', 'unsubscribe file:///x', 'subscribe file:///x']);
    expect(w.actor.getSnapshot().context.holders).toEqual({ 'file:///x': ['b'] });
  });

  it('withdraws a queued acquire when its listener is released before it runs', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///a'] });
    const first = await w.call(1);
    w.actor.send({ type: 'uris.acquire', listenerId: 'b', uris: ['file:///b'] });
    w.actor.send({ type: 'uris.release', listenerId: 'b' });
    first.resolve();
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///a']);
    expect(w.emitted.map((e) => `${e.type}`)).toEqual(['acquire.cancelled', 'acquire.done', 'release.done']);
  });

  it('re-subscribes held URIs after a reconnect and reports what failed, keeping failed URIs held but lost', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1', 'file:///2'] });
    (await w.call(1)).resolve();
    (await w.call(2)).resolve();
    await w.idle();
    w.actor.send({ type: 'connection.lost' });
    expect(w.actor.getSnapshot().context.lost).toEqual(['file:///1', 'file:///2']);
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
    (await w.call(3)).resolve();
    const cause = new Error('gone');
    (await w.call(4)).reject(cause);
    await w.idle();
    expect(w.emitted.at(-1)).toEqual({
      type: 'resubscribe.done',
      generation: 2,
      report: { resubscribed: ['file:///1'], failed: [{ uri: 'file:///2', reason: cause }] },
    });
    expect(w.actor.getSnapshot().context).toMatchObject({ lost: ['file:///2'], holders: { 'file:///2': ['a'] } });
    // The next listener asking for the lost URI goes to the wire again.
    w.actor.send({ type: 'uris.acquire', listenerId: 'b', uris: ['file:///2'] });
    (await w.call(5)).resolve();
    await w.idle();
    expect(w.log().slice(4)).toEqual(['subscribe file:///2']);
    expect(w.actor.getSnapshot().context).toMatchObject({ lost: [], holders: { 'file:///2': ['a', 'b'] } });
  });

  it('drops a lost URI without an unsubscribe when its last holder leaves', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'connection.lost' });
    w.actor.send({ type: 'uris.release', listenerId: 'a' });
    expect(w.emitted.at(-1)).toEqual({ type: 'release.done', listenerId: 'a' });
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///1']);
    expect(w.emitted.at(-1)).toEqual({ type: 'resubscribe.done', generation: 2, report: { resubscribed: [], failed: [] } });
  });

  it('never reports a re-subscription that a newer loss interrupted', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'connection.lost' });
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
    const stale = await w.call(2);
    w.actor.send({ type: 'connection.lost' });
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 3 });
    stale.resolve();
    (await w.call(3)).resolve();
    await w.idle();
    const reports = w.emitted.filter((e) => e.type === 'resubscribe.done');
    expect(reports).toEqual([{ type: 'resubscribe.done', generation: 3, report: { resubscribed: ['file:///1'], failed: [] } }]);
  });

  it('resumes an acquire interrupted by a transport loss once the connection is back', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1', 'file:///2'] });
    (await w.call(1)).resolve();
    const interrupted = await w.call(2);
    w.actor.send({ type: 'connection.lost' });
    interrupted.reject(new Error('connection lost'));
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
    (await w.call(3)).resolve(); // re-subscription of file:///1, already held
    (await w.call(4)).resolve(); // the acquire continues with file:///2
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///1', 'subscribe file:///2', 'subscribe file:///1', 'subscribe file:///2']);
    expect(w.emitted.map((e) => e.type)).toEqual(['resubscribe.done', 'acquire.done']);
    expect(w.actor.getSnapshot().context).toMatchObject({ lost: [], holders: { 'file:///1': ['a'], 'file:///2': ['a'] } });
  });

  it('withdraws an interrupted acquire whose listener was released while it ran', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1'] });
    await w.call(1);
    w.actor.send({ type: 'uris.release', listenerId: 'a' });
    w.actor.send({ type: 'connection.lost' });
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 2 });
    await w.idle();
    expect(w.log()).toEqual(['subscribe file:///1']);
    expect(w.emitted.map((e) => e.type)).toEqual(['acquire.cancelled', 'release.done', 'resubscribe.done']);
    expect(w.actor.getSnapshot().context.holders).toEqual({});
  });

  it('waits for the first connection before running acquires', async () => {
    const w = startWorker({ generation: undefined });
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1'] });
    expect(w.calls).toHaveLength(0);
    w.actor.send({ type: 'connection.ready', era: 'legacy', generation: 1 });
    (await w.call(1)).resolve();
    await w.idle();
    expect(w.emitted.map((e) => e.type)).toEqual(['resubscribe.done', 'acquire.done']);
  });

  it('forgets everything when the peer turns out to be modern and ends on close', async () => {
    const w = startWorker();
    w.actor.send({ type: 'uris.acquire', listenerId: 'a', uris: ['file:///1'] });
    (await w.call(1)).resolve();
    await w.idle();
    w.actor.send({ type: 'connection.lost' });
    w.actor.send({ type: 'connection.era_changed', to: 'modern' });
    w.actor.send({ type: 'connection.ready', era: 'modern', generation: 2 });
    expect(w.actor.getSnapshot().value).toBe('paused');
    expect(w.actor.getSnapshot().context.holders).toEqual({});
    w.actor.send({ type: 'close' });
    expect(w.actor.getSnapshot().status).toBe('done');
  });
});
