/**
 * Structured tool results checked against the tool's `outputSchema` (MCP:
 * a server MUST conform, a client SHOULD check): once `listTools()` has
 * given the schemas, a successful result whose `structuredContent` is
 * missing or does not fit rejects with InvalidResultError; a tool error is
 * not checked; a schema that does not compile is reported and its tool's
 * content goes unchecked.
 *
 * The servers that send such results: the official sdk 1.x low-level
 * `Server` (its McpServer, like ours, refuses to), whose handlers answer
 * what the test says, over the SDK's in-memory pair. A conforming result
 * passes against our server over our in-memory pair, in both eras.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.ts';
import { InvalidResultError } from '../../src/protocol/errors.ts';
import { createServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { fromSdkTransport } from '../../src/transport/sdk-adapter.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const COUNT_SCHEMA = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
// A reference to nothing: ajv cannot compile it.
const BROKEN_SCHEMA = { type: 'object', properties: { count: { $ref: '#/$defs/nowhere' } } };
const STRUCTURED: Record<string, { structuredContent?: Record<string, unknown>; isError?: boolean }> = {
  good: { structuredContent: { count: 3 } },
  bad: { structuredContent: { count: 'many' } },
  none: {},
  failed: { isError: true },
};
const INPUT = { type: 'object' as const, properties: { mode: { type: 'string' } }, required: ['mode'] };

/** Our client, connected to an official low-level server that lists `count`, `broken` and `plain` and answers each call as its `mode` says. */
async function connectToLooseServer() {
  const server = new Server({ name: 'loose-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'count', inputSchema: INPUT, outputSchema: COUNT_SCHEMA },
      { name: 'broken', inputSchema: INPUT, outputSchema: BROKEN_SCHEMA },
      { name: 'plain', inputSchema: INPUT },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const mode = String(request.params.arguments?.mode);
    return { content: [{ type: 'text', text: mode }], ...STRUCTURED[mode] };
  });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  cleanups.push(() => server.close());
  const client = createClient({ transport: fromSdkTransport(clientEnd), era: 'legacy', reconnect: false });
  cleanups.push(() => client.close());
  await client.connect();
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  return { client, errors };
}

describe('structured results and output schemas, against a server that sends what it likes', () => {
  it('checks nothing before listTools() gave the schemas', async () => {
    const { client } = await connectToLooseServer();
    expect(await client.callTool('count', { mode: 'bad' })).toMatchObject({ structuredContent: { count: 'many' } });
  });

  it('after listTools(): a conforming result passes, a missing or non-conforming one rejects, a tool error is not checked', async () => {
    const { client } = await connectToLooseServer();
    await client.listTools();
    expect(await client.callTool('count', { mode: 'good' })).toMatchObject({ structuredContent: { count: 3 } });

    const bad = await client.callTool('count', { mode: 'bad' }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(InvalidResultError);
    expect(bad).toMatchObject({ method: 'tools/call', path: 'structuredContent', actual: { count: 'many' } });
    expect((bad as Error).message).toContain('/count must be integer');

    const none = await client.callTool('count', { mode: 'none' }).catch((error: unknown) => error);
    expect(none).toBeInstanceOf(InvalidResultError);
    expect(none).toMatchObject({ path: 'structuredContent', actual: undefined });

    expect(await client.callTool('count', { mode: 'failed' })).toMatchObject({ isError: true });
    // A tool without an output schema is never checked.
    expect(await client.callTool('plain', { mode: 'bad' })).toMatchObject({ structuredContent: { count: 'many' } });
  });

  it('reports an output schema that does not compile, once, and leaves what its tool returns unchecked', async () => {
    const { client, errors } = await connectToLooseServer();
    await client.listTools();
    expect(await client.callTool('broken', { mode: 'bad' })).toMatchObject({ structuredContent: { count: 'many' } });
    expect(await client.callTool('broken', { mode: 'good' })).toMatchObject({ structuredContent: { count: 3 } });
    // Its structured content is still owed: the schema says there is some.
    await expect(client.callTool('broken', { mode: 'none' })).rejects.toBeInstanceOf(InvalidResultError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'InvalidToolSchemaError', tool: 'broken', schema: 'outputSchema' });
  });
});

describe.each(['legacy', 'modern'] as const)('a conforming structured result from our server (%s)', (era) => {
  it('passes the check', async () => {
    const server = createServer({ name: 'structured-server', version: '1.0.0' });
    server.defineTool('count', { description: 'Counts', inputSchema: { type: 'object' }, outputSchema: COUNT_SCHEMA }, () => ({
      content: [{ type: 'text', text: '3' }],
      structuredContent: { count: 3 },
    }));
    cleanups.push(() => server.close());
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    await client.listTools();
    expect(await client.callTool('count')).toMatchObject({ structuredContent: { count: 3 } });
  });
});
