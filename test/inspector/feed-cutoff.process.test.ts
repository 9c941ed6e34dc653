/**
 * The inspector's feed (`/feed`, Server-Sent Events) drops a page that stops
 * reading once more than 1 MB of feed is waiting for it, instead of buffering
 * without bound in the watcher; a page that reconnects (as EventSource does)
 * starts again from the present. The inspector runs in this process, fed by a
 * real xstate actor, and is read over loopback HTTP.
 */
import { get, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { startInspector, type RunningInspector } from '../../src/cli/inspect.ts';
import type { FeedMessage } from '../../src/inspector/inspection-feed.ts';

/**
 * More than the server can have handed to the kernel for a reader that stopped:
 * the 1 MB limit plus the send buffer's 4 MB ceiling (net.ipv4.tcp_wmem) and a
 * paused receiver's window, with room to spare.
 */
const DRIVEN_BYTES = 8 * 1024 * 1024;

/** Flips on every event; events are what fills the feed (their types, the only part of an event it carries). */
const toggle = createMachine({ id: 'toggle', initial: 'off', states: { off: { on: { '*': 'on' } }, on: { on: { '*': 'off' } } } });
/** A long event type, so a few events make megabytes of feed. */
const BULKY = { type: `flip-${'x'.repeat(16 * 1024)}` };

let inspector: RunningInspector | undefined;
const responses: IncomingMessage[] = [];
afterEach(async () => {
  for (const response of responses.splice(0)) response.destroy();
  await inspector?.stop();
  inspector = undefined;
});

const open = (url: string) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    get(url, (response) => {
      responses.push(response);
      resolve(response);
    }).on('error', reject);
  });

/** Bytes a response delivered until it closed, and whether it ended as a complete HTTP response. */
const drain = (response: IncomingMessage) =>
  new Promise<{ bytes: number; complete: boolean }>((resolve) => {
    let bytes = 0;
    response.on('data', (chunk: Buffer) => (bytes += chunk.length));
    response.on('error', () => {});
    response.once('close', () => resolve({ bytes, complete: response.complete }));
    response.resume();
  });

/** The feed's messages until `done` says enough. */
const readUntil = (response: IncomingMessage, done: (messages: FeedMessage[]) => boolean) =>
  new Promise<FeedMessage[]>((resolve, reject) => {
    const messages: FeedMessage[] = [];
    let text = '';
    response.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const events = text.split('\n\n');
      text = events.pop()!;
      for (const event of events) messages.push(JSON.parse(event.replace(/^data: /, '')) as FeedMessage);
      if (done(messages)) resolve(messages);
    });
    response.once('close', () => reject(new Error(`the feed closed after ${JSON.stringify(messages)}`)));
  });

describe('inspector feed for a page that stops reading', () => {
  it('is cut off once more than 1 MB is unread, and a reconnect gets the present', async () => {
    inspector = await startInspector({ host: '127.0.0.1', port: 0 });
    const actor = createActor(toggle, { inspect: inspector.inspect }).start();

    const stalled = await open(inspector.feed);
    stalled.pause(); // This page stops reading.
    // A second page keeps reading, so the test knows how much feed the server produced.
    const reading = await open(inspector.feed);
    let produced = 0;
    reading.on('data', (chunk: Buffer) => (produced += chunk.length));

    while (produced < DRIVEN_BYTES) {
      for (let flip = 0; flip < 16; flip++) actor.send(BULKY);
      // Let the sockets move what they can before the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    }

    // The stalled page, reading again, finds its response ended early: never whole, and far short of what was produced.
    const stalledResult = await drain(stalled);
    expect(stalledResult.complete).toBe(false);
    expect(stalledResult.bytes).toBeLessThan(produced);
    expect(reading.destroyed).toBe(false);

    // Reconnecting (as EventSource does) starts from the present: the actor and the state it is in now.
    // Leave the actor out of its initial state, so the present differs from the start.
    if (actor.getSnapshot().value === 'off') actor.send({ type: 'flip' });
    const again = await open(inspector.feed);
    const messages = await readUntil(again, (seen) => seen.some((message) => message.type === 'state'));
    expect(messages[0]).toMatchObject({ type: 'actor', name: 'toggle' });
    expect(messages.find((message) => message.type === 'state')).toMatchObject({ states: ['on'], status: 'active' });
    actor.stop();
  });
});
