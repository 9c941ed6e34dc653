import { createTestClient, streamActorOf } from '../../src/testing/index.ts';
/**
 * What a real server will not do, from the scripted peer, served over the
 * in-memory pair (the stdio framing; the peer's process boundary is the
 * subject of malformed-frames, client-robustness and the stdio transport's
 * process tests, and listen-real shows the cancel on a real stdio wire): a broader
 * acknowledgment, a result or a cancel before the ack (also one tagged with
 * the stream's subscription id), a server cancel of an open stream, an ack
 * that never comes, events for types and ids nobody asked for. The peer
 * records what it received, so "nothing sent" is checked where it lands.
 */
import { describe, expect, it } from 'vitest';
import type { NotificationFilter } from '../../src/protocol/filter.ts';
import { SimulatedClock } from 'xstate';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { AcknowledgmentViolationError, HonoredFilterTooBroadError, ListenAckTimeoutError, ListenNotAcknowledgedError } from '../../src/client/subscription.ts';
import { RpcError, WrongEraError } from '../../src/protocol/errors.ts';
import { FilterError } from '../../src/protocol/filter.ts';
import { scriptedMemory } from '../fixtures/scripted-memory.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

async function scripted(listen: string, era: 'modern' | 'legacy' = 'modern', clock?: SimulatedClock): Promise<McpClient> {
  const client = createTestClient({ transport: scriptedMemory(['--era', era, '--listen', listen]), ...(clock ? { clock } : {}) });
  clients.push(client);
  await client.connect();
  return client;
}

const received = async (client: McpClient) =>
  (await client.request('script/received')).messages as { method: string; params: Record<string, unknown> }[];

/** Every request the peer received, script/* control requests left out. */
const requestsReceived = async (client: McpClient) =>
  ((await client.request('script/requests')).requests as { id: unknown; method: string }[]).filter(
    (request) => !request.method.startsWith('script/'),
  );

/**
 * What a promise settled to once the peer answered two requests sent after
 * it: the peer writes in order, so all it sent before is handled by the
 * first answer, and the second round trip leaves no reaction pending.
 * `pending` if it has not settled by then.
 */
async function outcomeAfterRoundTrips<T>(client: McpClient, promise: Promise<T>): Promise<{ value: T } | { error: unknown } | 'pending'> {
  let outcome: { value: T } | { error: unknown } | 'pending' = 'pending';
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  await client.request('tools/list');
  await client.request('tools/list');
  return outcome;
}

const tagged = (id: unknown, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: { 'io.modelcontextprotocol/subscriptionId': id } } });

describe('listen against a scripted peer', () => {
  it('a broader acknowledgment ends the stream with a typed error and cancels it on the wire', async () => {
    const client = await scripted('broader');
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HonoredFilterTooBroadError);
    expect((await received(client)).map((message) => message.method)).toEqual(['notifications/cancelled']);
  });

  it('a malformed acknowledgment refuses the stream with a typed error and cancels it on the wire', async () => {
    const client = await scripted('malformed');
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FilterError);
    expect(failure).toMatchObject({ problem: 'wrong_type' });
    expect(client.state).toBe('online.ready.modern');
    expect((await received(client)).map((message) => message.method)).toEqual(['notifications/cancelled']);
  });

  it.each([
    ['reack-broader', 'broader_than_honored'],
    ['reack-malformed', 'malformed'],
  ])('a second acknowledgment of an open stream (%s) ends it as a protocol violation and cancels it on the wire', async (behaviour, problem) => {
    const client = await scripted(behaviour);
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    const reason = await stream.closed;
    expect(reason.type).toBe('protocol_violation');
    const error = (reason as { error: unknown }).error;
    expect(error).toBeInstanceOf(AcknowledgmentViolationError);
    expect(error).toMatchObject({ problem, subscriptionId: stream.id, honored: { toolsListChanged: true } });
    if (problem === 'malformed') expect((error as Error).cause).toBeInstanceOf(FilterError);
    const cancels = (await received(client)).filter((message) => message.method === 'notifications/cancelled');
    expect(cancels).toEqual([expect.objectContaining({ params: expect.objectContaining({ requestId: stream.id }) })]);
    expect(client.state).toBe('online.ready.modern');
  });

  it('a repeated acknowledgment within the honored filter changes nothing', async () => {
    const client = await scripted('reack-same');
    const inbox: SubscriberMessage[] = [];
    const stream = await client.listen({ toolsListChanged: true }, (message) => void inbox.push(message));
    // The peer answers in order: once this request is answered, both acknowledgments were read.
    await client.request('tools/list');
    expect(streamActorOf(stream).getSnapshot().value).toEqual({ listening: 'active' });
    expect(inbox).toEqual([]);
    stream.close();
    expect(await stream.closed).toEqual({ type: 'local' });
  });

  it('a narrower acknowledgment is kept as the honored filter', async () => {
    const client = await scripted('narrower');
    const stream = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://a'] }, () => {});
    expect(stream.honoredFilter).toEqual({ toolsListChanged: true });
    expect(stream.requestedFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://a'] });
  });

  it('an error before the ack rejects with the server’s error', async () => {
    const client = await scripted('error');
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ rpcCode: -32602 });
  });

  it.each([
    ['result', 'graceful'],
    ['cancel', 'remote'],
  ])('a %s before the ack rejects at once (%s)', async (behaviour, reason) => {
    const client = await scripted(behaviour);
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ListenNotAcknowledgedError);
    expect((failure as ListenNotAcknowledgedError).reason.type).toBe(reason);
  });

  it('a cancel tagged with the stream’s subscription id before the ack rejects at once, without waiting for the ack timeout', async () => {
    // The ack timeout runs on a clock nobody advances: only the cancel can end the opening.
    const client = await scripted('cancel-tagged', 'modern', new SimulatedClock());
    const opening = client.listen({ toolsListChanged: true }, () => {});
    const outcome = await outcomeAfterRoundTrips(client, opening);
    expect(outcome).toMatchObject({ error: expect.any(ListenNotAcknowledgedError) });
    const failure = (outcome as { error: ListenNotAcknowledgedError }).error;
    expect(failure.reason.type).toBe('remote');
  });

  it.each([
    ['tagged with its subscription id', true],
    ['untagged', false],
  ])('a server cancel of an open stream, %s, closes it as remote at once', async (_how, tag) => {
    const client = await scripted('honor');
    const messages: SubscriberMessage[] = [];
    const stream = await client.listen({ toolsListChanged: true }, (message) => void messages.push(message));
    const closed = stream.closed;
    await client.request('script/cancel', { requestId: stream.id, tagged: tag });
    expect(await outcomeAfterRoundTrips(client, closed)).toMatchObject({ value: { type: 'remote' } });
    expect(messages).toMatchObject([{ type: 'closed', reason: { type: 'remote' } }]);
  });

  it('an ack that never comes times out the opening only', async () => {
    const client = await scripted('silent');
    const failure = await client.listen({ toolsListChanged: true }, () => {}, { ackTimeoutMs: 50 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ListenAckTimeoutError);
  });

  it('never delivers a type outside the honored filter; unknown ids and untagged events fall through to fallback handlers', async () => {
    const client = await scripted('honor');
    const messages: SubscriberMessage[] = [];
    const stream = await client.listen({ toolsListChanged: true }, (message) => void messages.push(message));
    const fallback: string[] = [];
    client.onNotification('*', (params, method) => fallback.push(`${method} ${JSON.stringify(params._meta ?? null)}`));
    await client.request('script/emit', {
      lines: [
        tagged(stream.id, 'notifications/prompts/list_changed'),
        tagged(stream.id, 'notifications/resources/updated', { uri: 'test://unlisted' }),
        tagged(stream.id, 'notifications/tools/list_changed'),
        tagged(424242, 'notifications/tools/list_changed'),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
      ],
    });
    await client.request('tools/list');
    expect(messages.map((message) => (message.type === 'notification' ? message.method : message.type))).toEqual([
      'notifications/tools/list_changed',
    ]);
    expect(fallback).toEqual([
      'notifications/tools/list_changed {"io.modelcontextprotocol/subscriptionId":424242}',
      'notifications/tools/list_changed null',
    ]);
  });

  it('never delivers an update for a URI outside the honored list, even tagged with the stream id', async () => {
    const client = await scripted('honor');
    const messages: SubscriberMessage[] = [];
    const stream = await client.listen({ resourceSubscriptions: ['test://listed'] }, (message) => void messages.push(message));
    await client.request('script/emit', {
      lines: [
        tagged(stream.id, 'notifications/resources/updated', { uri: 'test://other' }),
        tagged(stream.id, 'notifications/resources/updated', { uri: 'test://listed/child' }),
        tagged(stream.id, 'notifications/resources/updated', { uri: 'test://listed' }),
      ],
    });
    await client.request('tools/list');
    expect(messages.map((message) => (message.type === 'notification' ? message.params.uri : message.type))).toEqual(['test://listed']);
  });

  it('close() sends notifications/cancelled for the listen request id and awaits no response', async () => {
    const client = await scripted('honor');
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    stream.close();
    expect(await stream.closed).toEqual({ type: 'local' });
    const cancels = (await received(client)).filter((message) => message.method === 'notifications/cancelled');
    expect(cancels.map((message) => message.params.requestId)).toEqual([stream.id]);
  });

  it('a stream has no deadline once open', async () => {
    // Requests time out after 20 ms; the negotiation waits at least the probe timeout, made long for a peer slow to start.
    const client = createClient({ transport: scriptedMemory(['--listen', 'honor']), requestTimeoutMs: 20, probeTimeoutMs: 60_000 });
    clients.push(client);
    await client.connect();
    const stream = await client.listen({ toolsListChanged: true }, () => {});
    await expect(client.request('script/hold')).rejects.toMatchObject({ code: 'request_timeout' });
    expect(streamActorOf(stream).getSnapshot().status).toBe('active');
  });

  it('rejects bad filters before anything is sent', async () => {
    const client = await scripted('honor');
    for (const filter of [{}, { bogus: 1 }, { toolsListChanged: 1 }, { resourceSubscriptions: ['a', 'a'] }, { resourceSubscriptions: ['nope'] }, { taskIds: ['t1'] }]) {
      // Typed as a filter read from JSON would be: only the run-time check stands between it and the wire.
      await expect(client.listen(filter as unknown as NotificationFilter, () => {})).rejects.toBeInstanceOf(FilterError);
    }
    expect((await received(client)).filter((message) => message.method !== 'notifications/initialized')).toEqual([]);
    expect((await requestsReceived(client)).map((request) => request.method)).not.toContain('subscriptions/listen');
  });

  it('on a legacy connection listen rejects with the typed error and sends nothing', async () => {
    const client = await scripted('honor', 'legacy');
    expect(client.era).toBe('legacy');
    const before = await requestsReceived(client);
    const failure = await client.listen({ toolsListChanged: true }, () => {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongEraError);
    expect(failure).toMatchObject({ code: 'use_subscribe_notifications' });
    expect(await requestsReceived(client)).toEqual(before);
    expect(before.map((request) => request.method)).not.toContain('subscriptions/listen');
    expect((await received(client)).map((message) => message.method)).toEqual(['notifications/initialized']);
  });
});
