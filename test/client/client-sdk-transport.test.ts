/**
 * A user-supplied transport in the official SDK's shape: the client over the
 * SDK's in-memory pair, talking to an official McpServer in this process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { fromSdkTransport } from '../../src/transport/sdk-adapter.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function officialServerPair(): { server: McpServer; clientEnd: InMemoryTransport } {
  const server = new McpServer({ name: 'in-memory', version: '2.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text' as const, text }],
  }));
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  void server.connect(serverEnd);
  cleanups.push(() => server.close());
  return { server, clientEnd };
}

describe('client over an SDK-shaped transport', () => {
  it('negotiates, lists and calls over the in-memory pair', async () => {
    const { clientEnd } = officialServerPair();
    const client: McpClient = createClient({ transport: fromSdkTransport(clientEnd), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.serverInfo).toMatchObject({ name: 'in-memory' });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect((await client.callTool('echo', { text: 'in memory' })).content).toEqual([{ type: 'text', text: 'in memory' }]);
  });

  it('receives list_changed through a fallback handler', async () => {
    const { server, clientEnd } = officialServerPair();
    const client = createClient({ transport: fromSdkTransport(clientEnd), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    const changed = new Promise((resolve) => client.onNotification('notifications/tools/list_changed', resolve));
    server.sendToolListChanged();
    await expect(changed).resolves.toBeDefined();
  });
});
