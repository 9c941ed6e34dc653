/**
 * `await using` on the client, a listen stream and a listener reference, and
 * `signal` on `listen`, against the official @modelcontextprotocol/server
 * 2.4.0 over stdio in a child process; cancels are read on the wire.
 */
import { describe, expect, it, vi } from 'vitest';
import { createClient, ListenerNotFoundError, RequestAbortedError, type ClosedReason, type ListenerRef, type McpClient } from '../../src/index.ts';
import { officialStdio } from '../fixtures/stdio-peers.ts';
import { officialRecorded, sharedOfficialRecorded } from './official-recorded.ts';
import type { WireRecord } from './recording-transport.ts';

const connected = officialRecorded();
// The two modern stream tests close what they open and leave the connection up: one client serves both.
const sharedModern = sharedOfficialRecorded();

const cancelled = (wire: WireRecord, id: unknown) => wire.calls('notifications/cancelled').some((call) => call.params.requestId === id);

describe('disposal and cancellation', () => {
  it('await using: the client closes (disconnected) at the end of its block', async () => {
    let outer: McpClient | undefined;
    {
      await using client = createClient({ transport: officialStdio().factory, era: 'modern', reconnect: false });
      outer = client;
      await client.connect();
      expect((await client.listTools()).length).toBeGreaterThan(0);
    }
    expect(outer.state).toBe('closed');
  });

  it('await using: a listen stream closes as local, cancelled on the wire, before the block is left', async () => {
    const { client, wire } = await sharedModern('modern');
    let id: unknown;
    let reason: ClosedReason | undefined;
    {
      await using stream = await client.listen({ toolsListChanged: true }, () => undefined);
      id = stream.id;
      void stream.closed.then((closed) => (reason = closed));
    }
    expect(reason).toEqual({ type: 'local' });
    await vi.waitFor(() => expect(cancelled(wire, id)).toBe(true));
  });

  it('await using: a legacy listener is unsubscribed at the end of its block, and disposing twice is harmless', async () => {
    const { client } = await connected('legacy');
    let ref: ListenerRef | undefined;
    {
      await using listener = await client.subscribeNotifications({ toolsListChanged: true }, () => undefined);
      ref = listener;
    }
    await expect(client.unsubscribeNotifications(ref)).rejects.toBeInstanceOf(ListenerNotFoundError);
    await ref[Symbol.asyncDispose]();
  });

  it('signal: aborting an open stream closes it as local; an aborted signal refuses to open; aborting while opening rejects', async () => {
    const { client, wire } = await sharedModern('modern');
    const controller = new AbortController();
    const stream = await client.listen({ toolsListChanged: true }, () => undefined, { signal: controller.signal });
    controller.abort();
    expect(await stream.closed).toEqual({ type: 'local' });
    await vi.waitFor(() => expect(cancelled(wire, stream.id)).toBe(true));

    await expect(client.listen({ toolsListChanged: true }, () => undefined, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RequestAbortedError);

    const opening = new AbortController();
    const pending = client.listen({ promptsListChanged: true }, () => undefined, { signal: opening.signal });
    opening.abort();
    await expect(pending).rejects.toBeInstanceOf(RequestAbortedError);
    // The connection is untouched: the next request still answers.
    expect((await client.listTools()).length).toBeGreaterThan(0);
  });
});
