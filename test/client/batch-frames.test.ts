/**
 * JSON-RPC batches from the server. Revision 2025-03-26 says every
 * implementation MUST receive them; no real server we test against sends one
 * on cue (the official SDKs never batch), so a scripted 2025-03-26 peer
 * joined in memory writes them (frames cross as lines and are classified as
 * over stdio).
 */
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

type Message = JsonObject & { id?: number | string; method?: string; result?: JsonObject; error?: JsonObject };

/** A 2025-03-26 server that holds every request after the handshake until the test answers it. */
function batchingPeer() {
  const held: Message[] = [];
  const responses: Message[] = [];
  let wake = () => {};
  const changed = () => new Promise<void>((resolve) => (wake = resolve));
  let writeLine: (text: string) => void = () => {};
  const transport = inMemoryTransport((end) => {
    writeLine = (text) => end.stdout.write(`${text}\n`);
    createInterface({ input: end.stdin }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      if (message.method === undefined) responses.push(message);
      else if (message.method === 'server/discover') {
        writeLine(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      } else if (message.method === 'initialize') {
        const result = { protocolVersion: '2025-03-26', capabilities: { tools: {}, prompts: {}, logging: {} }, serverInfo: { name: 'batching', version: '1' } };
        writeLine(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      } else if (message.id !== undefined) held.push(message);
      wake();
    });
  });
  const until = async (check: () => boolean) => {
    while (!check()) await changed();
  };
  const held1 = (method: string) => held.find((message) => message.method === method)!;
  /** Writes one line: the batch of `elements` as they are (a message needs its own `jsonrpc`). */
  const writeBatch = (elements: unknown[]) => writeLine(JSON.stringify(elements));
  return { transport, held, held1, responses, until, writeBatch };
}

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

describe('a batch from a 2025-03-26 server', () => {
  it('answers every request it holds, delivers its notification, and the client answers the request in it', async () => {
    const peer = batchingPeer();
    const client = createClient({ transport: peer.transport, reconnect: false });
    clients.push(client);
    const messages: unknown[] = [];
    client.onNotification('notifications/message', (params) => void messages.push(params));
    await client.connect();
    expect(client.protocolVersion).toBe('2025-03-26');

    const tools = client.listTools();
    const prompts = client.listPrompts();
    await peer.until(() => peer.held.length === 2);
    peer.writeBatch([
      { jsonrpc: '2.0', id: peer.held1('prompts/list').id, result: { prompts: [{ name: 'greeting' }] } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'in the batch' } },
      { jsonrpc: '2.0', id: 'srv-ping', method: 'ping' },
      { jsonrpc: '2.0', id: peer.held1('tools/list').id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } },
    ]);

    expect((await tools).map((tool) => tool.name)).toEqual(['echo']);
    expect((await prompts).map((prompt) => prompt.name)).toEqual(['greeting']);
    expect(messages).toEqual([{ level: 'info', data: 'in the batch' }]);
    await peer.until(() => peer.responses.some((response) => response.id === 'srv-ping'));
    expect(peer.responses.find((response) => response.id === 'srv-ping')).toEqual({ jsonrpc: '2.0', id: 'srv-ping', result: {} });
  });

  it('an element that is no message is reported, and the others still count; the connection goes on', async () => {
    const peer = batchingPeer();
    const client = createClient({ transport: peer.transport, reconnect: false });
    clients.push(client);
    const errors: Error[] = [];
    client.onError((error) => errors.push(error));
    await client.connect();

    const tools = client.listTools();
    await peer.until(() => peer.held.length === 1);
    peer.writeBatch([42, { jsonrpc: '2.0', id: peer.held1('tools/list').id, result: { tools: [] } }]);
    expect(await tools).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ name: 'FrameError', problem: 'not_an_object' })]);
    expect(client.state).toBe('online.ready.legacy');
  });
});
