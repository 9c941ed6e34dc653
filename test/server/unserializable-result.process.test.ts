/**
 * A handler whose result JSON cannot carry (a BigInt, a cycle) costs its own
 * request only: the client gets -32603 saying why, and the server goes on
 * serving. Before, serializing the result threw outside every handler's
 * reach and ended the server's process, every client with it. Our client
 * over the in-memory pair (the stdio framing) and over loopback HTTP, both
 * eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { RpcError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { createServer, type McpServer } from '../../src/server/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';

let server: McpServer | undefined;
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  server = undefined;
});

function serverWithUnsendableTool(): McpServer {
  server = createServer({ name: 'unsendable', version: '1.0.0' });
  const cyclic: JsonObject = { type: 'text', text: 'loop' };
  cyclic.self = cyclic;
  server.defineTool('bigint', { description: 'Returns a BigInt', inputSchema: { type: 'object' } }, () => ({
    content: [{ type: 'text', text: 'x' }],
    structuredContent: { n: 1n as unknown as number },
  }));
  server.defineTool('cycle', { description: 'Returns a cycle', inputSchema: { type: 'object' } }, () => ({ content: [cyclic] }));
  server.defineTool('fine', { description: 'Returns text', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'fine' }] }));
  return server;
}

const transports: Record<'stdio framing' | 'HTTP', (server: McpServer) => Promise<TransportFactory>> = {
  'stdio framing': async (target) => inMemoryTransport((end) => target.serveStdio(end)),
  HTTP: async (target) => httpTransport({ url: (await target.listenHttp({ port: 0 })).url }),
};

describe('a handler result JSON cannot carry', () => {
  for (const [name, transportFor] of Object.entries(transports)) {
    for (const era of ['legacy', 'modern'] as const) {
      it(`${name}, ${era}: is answered -32603 saying why, and the server goes on serving`, async () => {
        const target = serverWithUnsendableTool();
        const client = createClient({ transport: await transportFor(target), era, reconnect: false });
        clients.push(client);
        await client.connect();
        for (const tool of ['bigint', 'cycle']) {
          const failure = await client.callTool(tool).catch((error: unknown) => error);
          expect(failure).toBeInstanceOf(RpcError);
          expect(failure).toMatchObject({ rpcCode: -32603, message: expect.stringContaining('the result cannot be sent as JSON') });
        }
        expect(await client.callTool('fine')).toMatchObject({ content: [{ type: 'text', text: 'fine' }] });
        expect(client.state).toBe(`online.ready.${era}`);
      });
    }
  }
});
