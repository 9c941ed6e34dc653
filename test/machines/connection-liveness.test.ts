import { describe, expect, it } from 'vitest';
import { harness } from './connection-harness.ts';

/** A ready modern connection (probe timeout 2 s, the harness's negotiation settings). */
async function readyModern(options: Parameters<typeof harness>[0] = { eras: ['modern', 'modern'] }) {
  const h = harness(options);
  h.actor.send({ type: 'connect' });
  h.transports[0]!.open();
  await h.settle();
  expect(h.state()).toEqual({ online: { ready: 'modern' } });
  return h;
}

const endedAlone = (h: Awaited<ReturnType<typeof readyModern>>) => h.emitted.filter((event) => event.type === 'listen.ended_alone');

describe('connection machine: the liveness verdict after an unanswered stream end', () => {
  it('probes the peer once for every stream that ends meanwhile; an answer means those streams ended alone and the transport stays', async () => {
    const h = await readyModern();
    h.actor.send({ type: 'listen.ended_unanswered', id: 7, cause: 'stream 7 ended' });
    h.actor.send({ type: 'listen.ended_unanswered', id: 'b', cause: 'stream b ended' });
    expect(h.probes).toHaveLength(1);
    expect(endedAlone(h)).toEqual([]);

    h.probes[0]!.answer();
    expect(endedAlone(h)).toEqual([
      { type: 'listen.ended_alone', id: 7, cause: 'stream 7 ended' },
      { type: 'listen.ended_alone', id: 'b', cause: 'stream b ended' },
    ]);
    expect(h.probes[0]!.stopped).toBe(true);
    expect(h.state()).toEqual({ online: { ready: 'modern' } });
    expect(h.transports[0]!.closed).toBe(false);
    expect(h.emitted.some((event) => event.type === 'connection.lost')).toBe(false);

    // The verdict is given: the next unanswered end starts a probe of its own.
    h.actor.send({ type: 'listen.ended_unanswered', id: 8, cause: 'stream 8 ended' });
    expect(h.probes).toHaveLength(2);
  });

  it('a peer silent for the probe timeout, on the machine clock, is judged there: the stream ended alone and the probe is abandoned', async () => {
    const h = await readyModern();
    h.actor.send({ type: 'listen.ended_unanswered', id: 1, cause: 'ended' });
    h.clock.increment(1_999);
    expect(endedAlone(h)).toEqual([]);
    expect(h.probes[0]!.stopped).toBe(false);

    h.clock.increment(1);
    expect(endedAlone(h)).toEqual([{ type: 'listen.ended_alone', id: 1, cause: 'ended' }]);
    expect(h.probes[0]!.stopped).toBe(true);
    expect(h.state()).toEqual({ online: { ready: 'modern' } });
  });

  it('a failed probe is a lost transport: the connection announces the loss and reconnects, and no stream is told it ended alone', async () => {
    const h = await readyModern();
    h.clock.increment(1_000); // ready as long as the longest reconnect delay: an ordinary loss, not a quick one
    h.actor.send({ type: 'listen.ended_unanswered', id: 1, cause: 'ended' });
    h.probes[0]!.fail('connection reset');
    expect(h.state()).toBe('reconnecting');
    expect(h.emitted).toContainEqual({ type: 'connection.lost', cause: 'connection reset' });
    expect(h.transports[0]!.closed).toBe(true);
    expect(h.probes[0]!.stopped).toBe(true);

    // The abandoned probe's timer never fires a verdict, and the held end is forgotten with the transport.
    h.clock.increment(100);
    h.transports[1]!.open();
    await h.settle();
    h.clock.increment(10_000);
    expect(endedAlone(h)).toEqual([]);
    expect(h.state()).toEqual({ online: { ready: 'modern' } });

    h.actor.send({ type: 'listen.ended_unanswered', id: 2, cause: 'ended again' });
    h.probes[1]!.answer();
    expect(endedAlone(h)).toEqual([{ type: 'listen.ended_alone', id: 2, cause: 'ended again' }]);
  });

  it('a transport that fails while the probe runs ends the probe with it; the held streams pause with every other', async () => {
    const h = await readyModern();
    h.actor.send({ type: 'listen.ended_unanswered', id: 1, cause: 'ended' });
    h.transports[0]!.fail('exit 1');
    expect(h.probes[0]!.stopped).toBe(true);
    expect(h.emitted).toContainEqual({ type: 'connection.lost', cause: 'exit 1' });
    h.clock.increment(2_000);
    expect(endedAlone(h)).toEqual([]);
  });

  it('is no question before the connection is ready: an unanswered end then starts no probe', () => {
    const h = harness({ eras: ['modern'] });
    h.actor.send({ type: 'connect' });
    h.actor.send({ type: 'listen.ended_unanswered', id: 1, cause: 'ended' });
    expect(h.probes).toHaveLength(0);
    expect(h.state()).toEqual({ online: 'connecting' });
  });
});
