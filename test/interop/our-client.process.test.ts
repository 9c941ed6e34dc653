/**
 * Interop matrix, direction B: our client (`createClient`) against every
 * official server, on each transport the peer has: the official server
 * 2.4.0 (serveStdio in both eras, createMcpHandler over HTTP modern), the
 * sdk 1.32.2 server (legacy, stdio and sessionful HTTP) and
 * server-everything (legacy, stdio and its own streamableHttp). One row per
 * peer in server-peers.ts.
 *
 * None of these servers paginates (the SDKs' McpServer hands every list out
 * in one page and ignores cursors), so what a real peer shows here is that
 * our client's cursor walk stops after the one page it gets: one list
 * request per list on the wire. Several pages from a real peer are shown
 * the other way round (official-clients.process.test.ts against our server).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';
import { WireRecord } from '../client/recording-transport.ts';
import { SERVER_PEERS, stopAllServers, type ServerPeer, type Watching } from './server-peers.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const PEER_TIMEOUT = 60_000; // server-everything sends its resource updates every 5 s
const LIST_METHODS = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
} as const;

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

const { clients } = closedAfterEach({ clients: [] as McpClient[] });
// A stdio child that outlived its client is killed after its row (stopAllServers), not after each test: the row's
// shared connection keeps its child across tests.

/** A connected client of its own; `perTest` ones are closed after each test, the others by their owner. */
async function connect(peer: ServerPeer, perTest = true): Promise<{ client: McpClient; wire: WireRecord }> {
  const wire = new WireRecord(await peer.open());
  const client = createClient({ transport: wire.factory, era: peer.ask, reconnect: false });
  if (perTest) clients.push(client);
  await client.connect();
  return { client, wire };
}

const keyOf = (item: Record<string, unknown>) => item.uriTemplate ?? item.uri ?? item.name;
const textOf = (blocks: unknown) => (blocks as { text?: string }[])[0]?.text;

/** A subscriber that records every message, with a wait for one notification line. */
function watching(): Watching & { subscriber: ReturnType<typeof inbox>['subscriber'] } {
  const box = inbox();
  return {
    subscriber: box.subscriber,
    notifications: box.notifications,
    async until(line) {
      while (!box.notifications().includes(line)) await box.next('notification');
    },
  };
}

describe.each(SERVER_PEERS.map((peer) => [peer.name, peer.transport, peer] as const))('our client against %s over %s', (_name, _transport, peer) => {
  // The listing and the read-and-call tests share one connection (over stdio, one server process fewer per row):
  // neither changes the server, and the listing counts its requests on a wire that sends nothing else lists.
  let shared: ReturnType<typeof connect> | undefined;
  const sharedConnection = () => (shared ??= connect(peer, false));
  // An HTTP peer serves the whole row (server-peers.ts).
  afterAll(async () => {
    const connection = shared;
    shared = undefined;
    // A connection that failed to open has nothing to close; its test already failed with why.
    await connection?.then(({ client }) => client.close(), () => undefined);
    await stopAllServers();
  });
  it(`negotiates the ${peer.era} era and lists tools, prompts, resources and templates to the last page`, { timeout: PEER_TIMEOUT }, async () => {
    const { client, wire } = await sharedConnection();
    expect(client.era).toBe(peer.era);
    const listed = {
      tools: (await client.listTools()).map(keyOf),
      prompts: (await client.listPrompts()).map(keyOf),
      resources: (await client.listResources()).map(keyOf),
      resourceTemplates: (await client.listResourceTemplates()).map(keyOf),
    };
    expect(listed).toEqual(peer.lists);
    const requests = Object.values(LIST_METHODS).map((method) => wire.calls(method).map((call) => call.params.cursor));
    expect(requests).toEqual([[undefined], [undefined], [undefined], [undefined]]);
  });

  it('reads a resource and calls a tool', { timeout: PEER_TIMEOUT }, async () => {
    const { client } = await sharedConnection();
    const read = await client.readResource(peer.read.uri);
    expect(textOf(read.contents)).toEqual(peer.read.text);
    const called = await client.callTool(peer.call.name, peer.call.args);
    expect(textOf(called.content)).toBe(peer.call.text);
  });

  // Every peer has a tool with an outputSchema (the SDKs make it from zod): once listed, our client checks its results.
  it('checks a structured result against the listed outputSchema', { timeout: PEER_TIMEOUT }, async () => {
    const { client } = await sharedConnection();
    const errors: Error[] = [];
    const reporting = client.onError((error) => errors.push(error));
    const listed = (await client.listTools()).find((tool) => tool.name === peer.structured.name);
    expect(listed?.outputSchema).toMatchObject({ type: 'object' });
    const called = await client.callTool(peer.structured.name, peer.structured.args);
    expect(called.structuredContent).toEqual(peer.structured.content);
    reporting.unsubscribe();
    // The schema compiled (one that does not is reported here), so the result was checked.
    expect(errors).toEqual([]);
  });

  it("sends a call's meta (trace context, a vendor's key) in its _meta, where the server's handler reads it", { timeout: PEER_TIMEOUT }, async () => {
    const { client, wire } = await sharedConnection();
    const meta = { traceparent: TRACEPARENT, 'com.example/tenant': 'acme' };
    const called = peer.requestMeta === undefined
      ? await client.callTool(peer.call.name, peer.call.args, { meta })
      : await client.callTool(peer.requestMeta, {}, { meta });
    expect(wire.calls('tools/call').at(-1)!.params._meta).toMatchObject(meta);
    if (peer.requestMeta === undefined) expect(textOf(called.content)).toBe(peer.call.text);
    else expect(JSON.parse(textOf(called.content) ?? '')).toEqual(meta);
  });

  const way = peer.era === 'modern' ? 'a listen stream' : 'a notification listener';
  it(`receives list changes and the watched resource's updates through ${way}, and nothing else`, { timeout: PEER_TIMEOUT }, async () => {
    const { client } = await connect(peer);
    const watch = watching();
    const filter = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: [peer.watched] };
    if (peer.era === 'modern') await client.listen(filter, watch.subscriber);
    else await client.subscribeNotifications(filter, watch.subscriber);
    const expected = await peer.provoke(client, watch);
    expect(watch.notifications()).toEqual(expected);
  });
});
