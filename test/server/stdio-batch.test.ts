/**
 * JSON-RPC batches over stdio. A legacy session of a revision that has them
 * (2024-11-05, 2025-03-26: "MUST support receiving JSON-RPC batches") gets
 * one array line answering every request in the batch once all are done,
 * and nothing for a batch without requests; every other session, and a
 * connection before `initialize`, gets the one -32600 that an array was
 * before. The peers are scripted: no official client sends batches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { holdingServer } from './holding-server.ts';
import { serveInProcessStdio, type InProcessStdio } from './in-process-stdio.ts';
import type { Message } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A holding server (its `hold` waits for a cancel), closed after the test. */
function holding(): McpServer {
  server = holdingServer().server;
  return server;
}

async function session(version: string): Promise<InProcessStdio> {
  const peer = serveInProcessStdio(holding());
  peer.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'batcher', version: '1' } } });
  const answer = await peer.next((message) => message.id === 'init');
  expect(answer.result).toMatchObject({ protocolVersion: version });
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return peer;
}

const request = (id: number | string, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const batchLines = (peer: InProcessStdio) => peer.lines.filter((line): line is Message[] => Array.isArray(line));

describe.each(['2025-03-26', '2024-11-05'])('a %s session over stdio', (version) => {
  it('answers a batch with one array holding an answer for each request, invalid elements included, and nothing for its notifications', async () => {
    const peer = await session(version);
    peer.sendLine(JSON.stringify([
      request(1, 'tools/list'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } },
      request(2, 'tools/call', { name: 'echo', arguments: { text: 'in a batch' } }),
      42,
      request(3, 'no/such-method'),
    ]));
    await peer.next((message) => message.id === 3);
    const [answer] = batchLines(peer);
    expect(answer).toHaveLength(4);
    const byId = new Map(answer!.map((message) => [message.id, message]));
    expect(byId.get(1)?.result?.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'echo' })]));
    expect(byId.get(2)?.result).toMatchObject({ content: [{ type: 'text', text: 'in a batch' }] });
    expect(byId.get(null)?.error).toMatchObject({ code: -32600 });
    expect(byId.get(3)?.error).toMatchObject({ code: -32601 });
    // Every answer came in the array, none alone.
    expect(peer.lines.filter((line) => !Array.isArray(line)).map((line) => (line as Message).id)).toEqual(['init']);
  });

  it('writes nothing for a batch of notifications only, and waits for its slowest request; a cancelled one is left out', async () => {
    const peer = await session(version);
    peer.sendLine(JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } }]));
    peer.sendLine(JSON.stringify([request('held', 'tools/call', { name: 'hold', arguments: {} }), request('quick', 'ping')]));
    peer.send(request('alone', 'ping'));
    // The ping sent alone is answered alone, before the batch: the batch waits for its held call.
    await peer.next((message) => message.id === 'alone');
    expect(batchLines(peer)).toEqual([]);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'held' } });
    await peer.next((message) => message.id === 'quick');
    expect(batchLines(peer)).toEqual([[{ jsonrpc: '2.0', id: 'quick', result: {} }]]);
    expect(peer.lines.filter((line) => !Array.isArray(line)).map((line) => (line as Message).id)).toEqual(['init', 'alone']);
  });
});

describe('sessions that have no batches', () => {
  it.each(['2025-06-18', '2025-11-25'])('a %s session refuses a batch as one invalid request (id null), and serves on', async (version) => {
    const peer = await session(version);
    peer.sendLine(JSON.stringify([request(1, 'ping'), request(2, 'ping')]));
    const refused = await peer.next((message) => message.id === null);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('not a JSON object') });
    peer.send(request(3, 'ping'));
    await peer.next((message) => message.id === 3);
    expect(batchLines(peer)).toEqual([]);
    expect(peer.lines.some((line) => (line as Message).id === 1)).toBe(false);
  });

  it('before initialize, a batch is refused as one invalid request (initialize may not be batched)', async () => {
    const peer = serveInProcessStdio(holding());
    peer.sendLine(JSON.stringify([request('init', 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } })]));
    const refused = await peer.next((message) => message.id === null);
    expect(refused.error).toMatchObject({ code: -32600 });
    expect(batchLines(peer)).toEqual([]);
  });
});
