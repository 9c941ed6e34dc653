/**
 * `watch --inspect` relays to the Stately inspector: a WebSocket at
 * `/stately/socket` on the same loopback server, read here with
 * `@statelyai/inspect`'s own `createWebSocketReceiver` (what Stately's tools
 * use to read a relay), while the watcher follows the demo. It carries actor
 * registrations with machine definitions, snapshots with state values and
 * context withheld, and events reduced to their type; a receiver that joins
 * late gets every live actor in its present state; a request addressed to
 * another host, or from a page elsewhere, is refused.
 */
import { request } from 'node:http';
import { createWebSocketReceiver } from '@statelyai/inspect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatelyMessage } from '../../src/inspector/stately-relay.ts';
import { killAllCliRuns, watchInspected, type CliRun } from './cli-process.ts';
import { ReceivedMessages } from './received-messages.ts';

/** Everything a Stately receiver got, and a way to wait for something in it. */
function receive(url: string): ReceivedMessages<StatelyMessage> {
  const received = new ReceivedMessages<StatelyMessage>('the relay');
  createWebSocketReceiver({ server: url }).subscribe((message) => received.push(message as unknown as StatelyMessage));
  return received;
}

type Registration = Extract<StatelyMessage, { type: '@xstate.actor' }>;
const registrations = (messages: StatelyMessage[]) => messages.filter((message): message is Registration => message.type === '@xstate.actor');
const registered = (messages: StatelyMessage[], name: string) => registrations(messages).find((message) => message.name === name);
const valueOf = (messages: StatelyMessage[], name: string) => {
  const session = registered(messages, name)?.sessionId;
  const last = messages.filter((message) => message.sessionId === session && message.type !== '@xstate.event').at(-1);
  return last && last.type !== '@xstate.event' ? last.snapshot.value : undefined;
};

/** An upgrade request to the relay with the given headers; resolves with the status it was answered with. */
const upgradeStatus = (socketUrl: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(socketUrl);
    const pending = request(
      { host: url.hostname, port: url.port, path: url.pathname, headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } },
      (response) => resolve(response.resume().statusCode!),
    );
    pending.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode!);
    });
    pending.on('error', reject).end();
  });

describe('watch --inspect: the Stately relay', () => {
  // One watcher for both tests (a run is a CLI and a demo process): the first receives from the relay as it goes, the
  // second only knocks on the relay's door; neither stops or reconfigures the watcher. It ends cleanly on SIGINT after both.
  let run: CliRun;
  let statelySocket: string;
  beforeAll(async () => {
    ({ run, statelySocket } = await watchInspected('modern'));
  });
  afterAll(async () => {
    try {
      // Undefined only when beforeAll failed, which vitest reports on its own.
      if (run !== undefined) {
        run.child.kill('SIGINT');
        expect((await run.exited).code).toBe(0);
      }
    } finally {
      await killAllCliRuns();
    }
  });

  it('sends registrations, state values and event types, never context; a late receiver gets the live actors as they are', async () => {
    expect(statelySocket).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/stately\/socket$/);
    const early = receive(statelySocket);
    await early.until((messages) => JSON.stringify(valueOf(messages, 'connection')) === JSON.stringify({ online: { ready: 'modern' } }), 'a ready connection');
    await run.event((event) => event.type === 'list', 'the first lists');
    await early.until((messages) => registered(messages, 'subscription') !== undefined && registered(messages, 'cache') !== undefined, 'the subscription and the cache');

    const connection = registered(early.seen, 'connection')!;
    expect(Object.keys(JSON.parse(connection.definition!).states)).toEqual(expect.arrayContaining(['idle', 'online', 'reconnecting', 'closed']));
    expect(connection.parentId).toBeUndefined();
    expect(registered(early.seen, 'negotiation')!.parentId).toBe(connection.sessionId);
    // Nothing of an actor's context or an event's payload: snapshots are status, value and the marker; events are a type.
    for (const message of early.seen) {
      if (message.type === '@xstate.event') expect(Object.keys(message.event)).toEqual(['type']);
      else {
        expect(message.snapshot.context).toEqual({ withheld: 'context' });
        expect(Object.keys(message.snapshot).sort()).toEqual(expect.arrayContaining(['context', 'status']));
        expect(Object.keys(message.snapshot).every((key) => ['context', 'status', 'value'].includes(key))).toBe(true);
      }
      if (message.type === '@xstate.snapshot') expect(Object.keys(message.event)).toEqual(['type']);
    }
    // Among them events whose payloads carry what the server said (its discover result, the negotiated era), reduced to a type.
    const eventTypes = early.seen.flatMap((message) => (message.type === '@xstate.event' ? [message.event.type] : []));
    expect(eventTypes).toEqual(expect.arrayContaining(['discover.modern', 'xstate.done.actor.negotiation', 'listen.acknowledged']));

    // A receiver that joins now is told of every live actor, each in the state it is in now.
    const late = receive(statelySocket);
    await late.until((messages) => registered(messages, 'uriWorker') !== undefined && registered(messages, 'subscription') !== undefined, 'the live actors');
    expect(registrations(late.seen).map((message) => message.name)).toEqual(expect.arrayContaining(['connection', 'cache', 'uriWorker']));
    expect(registered(late.seen, 'connection')).toMatchObject({ sessionId: connection.sessionId, snapshot: { status: 'active', value: { online: { ready: 'modern' } } } });
    expect(registered(late.seen, 'subscription')!.snapshot.value).toEqual(valueOf(early.seen, 'subscription'));
    expect(registered(late.seen, 'subscription')!.snapshot.value).toEqual({ listening: 'active' });
  });

  it('refuses a WebSocket addressed to another host name (421) or opened by a page elsewhere (403)', async () => {
    const port = new URL(statelySocket).port;
    expect(await upgradeStatus(statelySocket, { host: `attacker.example:${port}` })).toBe(421);
    expect(await upgradeStatus(statelySocket, { origin: 'https://attacker.example' })).toBe(403);
    expect(await upgradeStatus(statelySocket, { origin: `http://127.0.0.1:${port}` })).toBe(101);
    expect(await upgradeStatus(statelySocket, { 'sec-websocket-version': '8' })).toBe(426);
  });
});
