/**
 * Structured tool results checked against the tool's `outputSchema` (MCP:
 * a server MUST conform, a client SHOULD check): once `listTools()` has
 * given the schemas, a successful result whose `structuredContent` is
 * missing or does not fit rejects with InvalidResultError; a tool error is
 * not checked; a schema that does not compile is reported and its tool goes
 * unchecked. Our client against our server (which sends what its handlers
 * return, unchecked) over the in-memory pair, in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { InvalidResultError } from '../../src/protocol/errors.ts';
import { createServer, type McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';

const servers: McpServer[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const COUNT_SCHEMA = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
const STRUCTURED: Record<string, { structuredContent?: Record<string, unknown>; isError?: boolean }> = {
  good: { structuredContent: { count: 3 } },
  bad: { structuredContent: { count: 'many' } },
  none: {},
  failed: { isError: true },
};

async function setUp(era: 'legacy' | 'modern') {
  const server = createServer({ name: 'structured-server', version: '1.0.0' });
  const handler = (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args.mode) }], ...STRUCTURED[String(args.mode)] });
  const inputSchema = { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] };
  server.defineTool('count', { description: 'Counts', inputSchema, outputSchema: COUNT_SCHEMA }, handler);
  // A reference to nothing: ajv cannot compile it.
  const broken = { type: 'object', properties: { count: { $ref: '#/$defs/nowhere' } } };
  server.defineTool('broken', { description: 'Has a schema no one can check against', inputSchema, outputSchema: broken }, handler);
  server.defineTool('plain', { description: 'Has no output schema', inputSchema }, handler);
  servers.push(server);
  const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
  clients.push(client);
  await client.connect();
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  return { client, errors };
}

describe.each(['legacy', 'modern'] as const)('structured results and output schemas (%s)', (era) => {
  it('checks nothing before listTools() gave the schemas', async () => {
    const { client } = await setUp(era);
    expect(await client.callTool('count', { mode: 'bad' })).toMatchObject({ structuredContent: { count: 'many' } });
  });

  it('after listTools(): a conforming result passes, a missing or non-conforming one rejects, a tool error is not checked', async () => {
    const { client } = await setUp(era);
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
    const { client, errors } = await setUp(era);
    await client.listTools();
    expect(await client.callTool('broken', { mode: 'bad' })).toMatchObject({ structuredContent: { count: 'many' } });
    expect(await client.callTool('broken', { mode: 'good' })).toMatchObject({ structuredContent: { count: 3 } });
    // Its structured content is still owed: the schema says there is some.
    await expect(client.callTool('broken', { mode: 'none' })).rejects.toBeInstanceOf(InvalidResultError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'InvalidToolSchemaError' });
  });
});
