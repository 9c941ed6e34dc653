/**
 * Our server holds a tool's results to its `outputSchema` (MCP: the server
 * MUST return conforming structured content): a successful result whose
 * `structuredContent` is missing or does not fit goes out as the tool's
 * failure, saying why; a tool error passes as it is. An output schema that
 * does not compile fails `defineTool` and registers nothing. Our client
 * (which checks nothing until it has listed the tools) over the in-memory
 * pair, in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.ts';
import { createServer, InvalidToolSchemaError, type McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const COUNT_SCHEMA = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
const RESULTS: Record<string, Record<string, unknown>> = {
  good: { structuredContent: { count: 3 } },
  bad: { structuredContent: { count: 'many' } },
  none: {},
  failed: { isError: true },
};

function countingServer(): McpServer {
  const server = createServer({ name: 'structured-server', version: '1.0.0' });
  const inputSchema = { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] };
  server.defineTool('count', { description: 'Counts', inputSchema, outputSchema: COUNT_SCHEMA }, (args) => ({
    content: [{ type: 'text', text: String(args.mode) }],
    ...RESULTS[String(args.mode)],
  }));
  cleanups.push(() => server.close());
  return server;
}

describe.each(['legacy', 'modern'] as const)('our server and a tool with an outputSchema (%s)', (era) => {
  async function connect(server: McpServer) {
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    return client;
  }

  it('sends a conforming result as it is, and a missing or non-conforming one as the tool failing, saying why', async () => {
    const client = await connect(countingServer());
    expect(await client.callTool('count', { mode: 'good' })).toMatchObject({ structuredContent: { count: 3 } });
    const bad = await client.callTool('count', { mode: 'bad' });
    expect(bad).toMatchObject({ content: [{ type: 'text', text: 'Invalid structured content for tool count: structuredContent/count must be integer' }], isError: true });
    expect(bad.structuredContent).toBeUndefined();
    const none = await client.callTool('count', { mode: 'none' });
    expect(none).toMatchObject({ isError: true, content: [{ text: 'Invalid structured content for tool count: it has an outputSchema and returned none' }] });
    expect(none.structuredContent).toBeUndefined();
    // The tool's own failure is not the server's to check.
    expect(await client.callTool('count', { mode: 'failed' })).toMatchObject({ isError: true, content: [{ text: 'failed' }] });
  });

  it('refuses an output schema that does not compile, and registers nothing', async () => {
    const server = countingServer();
    const define = () =>
      server.defineTool('broken', { description: 'Broken', inputSchema: { type: 'object' }, outputSchema: { $ref: '#/$defs/nowhere' } }, () => ({ content: [] }));
    expect(define).toThrow(InvalidToolSchemaError);
    expect(define).toThrow(expect.objectContaining({ schema: 'outputSchema', tool: 'broken' }));
    const client = await connect(server);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['count']);
  });
});
