/**
 * Our server over stdio (a child process), with the official client 2.x as
 * the peer, in both eras.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { MAX_FRAME_DEPTH } from '../../src/protocol/jsonrpc.ts';
import { OWN_FIXTURE_LISTS } from '../interop/official-clients.ts';
import {
  ALL_CHANGES,
  closeAllPeers,
  closePeersExcept,
  connectStdio,
  NotificationLog,
  progressOnWire,
  PROMPTS_CHANGED,
  RESOURCE_UPDATED,
  RESOURCES_CHANGED,
  TOOLS_CHANGED,
} from './official-peers.ts';

// The modern tests that only listen and call on a connection they leave up share one client: a stdio server is one
// per client, and the official client's modern connect starts a probe child beside it, two own-server starts a
// connection. After each test every stream it opened on that client is closed, so no test hears another's, and every
// other client is closed; the test that counts the server's streams and the one that shuts the server down keep a
// connection of their own.
let shared: Promise<{ client: Client; listens: MockInstance<Client['listen']> }> | undefined;
async function sharedModern(): Promise<Client> {
  shared ??= connectStdio('modern').then((client) => ({ client, listens: vi.spyOn(client, 'listen') }));
  return (await shared).client;
}
afterEach(async () => {
  const kept = await shared;
  if (kept) {
    const streams = kept.listens.mock.settledResults.flatMap((result) => (result.type === 'fulfilled' ? [result.value] : []));
    kept.listens.mockClear();
    await Promise.all(streams.map((stream) => stream.close()));
  }
  await closePeersExcept(new Set(kept ? [kept.client] : []));
});
afterAll(async () => {
  shared = undefined;
  await closeAllPeers();
});

const textOf = (result: unknown): string => ((result as { content: { text: string }[] }).content[0]!.text);

describe('modern era over stdio', () => {
  it('acknowledges listen with the honored subset and delivers only what was asked', async () => {
    const client = await connectStdio('modern', ['--features', 'tools,resources,subscribe']);
    const log = new NotificationLog(client, ALL_CHANGES);
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    // prompts.listChanged is not advertised by this fixture, so it is not honored.
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await client.callTool({ name: 'emit', arguments: { kind: 'prompts' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'resources' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'tools' } });
    await log.waitFor(TOOLS_CHANGED);
    expect(log.methods()).toEqual([TOOLS_CHANGED]);
  });

  it('delivers a resource update only for the URIs the filter names', async () => {
    const client = await sharedModern();
    const log = new NotificationLog(client, ALL_CHANGES);
    await client.listen({ resourceSubscriptions: ['test://resource/1'] });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/2' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'tools' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/1' } });
    await log.waitFor(RESOURCE_UPDATED);
    expect(log.seen).toEqual([{ method: RESOURCE_UPDATED, params: expect.objectContaining({ uri: 'test://resource/1' }) }]);
  });

  it('ends listen streams gracefully when the server closes', async () => {
    const client = await connectStdio('modern');
    const subscription = await client.listen({ toolsListChanged: true });
    await client.callTool({ name: 'shutdown', arguments: {} });
    await expect(subscription.closed).resolves.toBe('graceful');
  });

  it('stops a stream the client closed and keeps the others', async () => {
    const client = await connectStdio('modern');
    const log = new NotificationLog(client, ALL_CHANGES);
    const tools = await client.listen({ toolsListChanged: true });
    await client.listen({ promptsListChanged: true });
    await tools.close();
    await expect(tools.closed).resolves.toBe('local');
    const stats = await client.callTool({ name: 'stats', arguments: {} });
    expect(JSON.parse(textOf(stats))).toMatchObject({ openStreams: 1 });
    await client.callTool({ name: 'emit', arguments: { kind: 'tools' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'prompts' } });
    await log.waitFor(PROMPTS_CHANGED);
    expect(log.methods()).toEqual([PROMPTS_CHANGED]);
  });

  it('sends progress to the caller of a tool', async () => {
    const client = await sharedModern();
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: () => {} });
    expect(textOf(result)).toBe('done 3');
    expect(progressOnWire(client)).toEqual([1, 2, 3]);
  });
});

describe('legacy era over stdio', () => {
  it('broadcasts list changes unsolicited and resource updates to subscribed URIs only', async () => {
    const client = await connectStdio('legacy');
    const log = new NotificationLog(client, ALL_CHANGES);
    await client.subscribeResource({ uri: 'test://resource/1' });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/2' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/1' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'resources' } });
    await log.waitFor(RESOURCES_CHANGED);
    await client.unsubscribeResource({ uri: 'test://resource/1' });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/1' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'tools' } });
    await log.waitFor(TOOLS_CHANGED);
    expect(log.methods()).toEqual([RESOURCE_UPDATED, RESOURCES_CHANGED, TOOLS_CHANGED]);
    expect(log.seen[0]!.params).toEqual({ uri: 'test://resource/1' });
  });

  it('refuses a subscription past maxSubscribedUriBytes with -32000 naming the limit; the ones held stay, and an unsubscribe makes room', async () => {
    // 40 bytes: two 17-byte URIs fit, a third does not.
    const client = await connectStdio('legacy', ['--max-subscribed-bytes', '40']);
    const log = new NotificationLog(client, [RESOURCE_UPDATED]);
    await client.subscribeResource({ uri: 'test://resource/1' });
    await client.subscribeResource({ uri: 'test://resource/2' });
    await client.subscribeResource({ uri: 'test://resource/2' }); // held already: costs nothing
    const refused = await client.subscribeResource({ uri: 'test://resource/3' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32000, data: { limit: 'maxSubscribedUriBytes', max: 40 } });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/3' } });
    await client.callTool({ name: 'emit', arguments: { kind: 'updated', uri: 'test://resource/2' } });
    await log.waitFor(RESOURCE_UPDATED);
    expect(log.seen.map((seen) => seen.params)).toEqual([{ uri: 'test://resource/2' }]);
    await client.unsubscribeResource({ uri: 'test://resource/1' });
    await client.subscribeResource({ uri: 'test://resource/3' });
  });

  it('negotiates the requested legacy version and paginates lists', async () => {
    const client = await connectStdio('legacy', ['--page-size', '2']);
    expect(client.getServerVersion()).toEqual({ name: 'own-fixture', version: '1.0.0' });
    // Every tool in pages of two: the client walks every cursor.
    const all = await client.listTools();
    expect(all.tools.map((tool) => tool.name)).toEqual(OWN_FIXTURE_LISTS.tools);
  });
});

describe('a request larger than maxBodyBytes', () => {
  it.each(['legacy', 'modern'] as const)('%s: the official client gets -32700 for it at once (the id it writes last is read), and the connection goes on', async (era) => {
    const client = await connectStdio(era, ['--max-body', '4096']);
    // A timeout far past the test's own: only an answer under the request's id ends the call in time.
    const failure = await client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(20_000) } }, { timeout: 600_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32700, message: expect.stringContaining('exceeds the 4096 limit') });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'small' } })).content).toEqual([{ type: 'text', text: 'small' }]);
  });
});

describe('a request nested deeper than MAX_FRAME_DEPTH', () => {
  it.each(['legacy', 'modern'] as const)('%s: the official client gets -32600 for it under its id at once, and the connection goes on', async (era) => {
    const client = await connectStdio(era);
    const deep = JSON.parse('['.repeat(MAX_FRAME_DEPTH) + ']'.repeat(MAX_FRAME_DEPTH)) as unknown[];
    // A timeout far past the test's own: only an answer under the request's id ends the call in time.
    const failure = await client.callTool({ name: 'echo', arguments: { text: 'x', deep } }, { timeout: 600_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32600, message: expect.stringContaining(`nests deeper than ${MAX_FRAME_DEPTH} levels`) });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'small' } })).content).toEqual([{ type: 'text', text: 'small' }]);
  });
});
