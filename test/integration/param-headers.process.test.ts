/**
 * `x-mcp-header` end to end: our client over modern HTTP against our server,
 * which refuses a tools/call whose marked argument has no matching
 * `Mcp-Param-{Name}` header (-32020). The transport sends the header for tools
 * it has seen listed (callTool re-lists and retries once on -32020); a tiny
 * node:http echo server shows the header itself on the wire.
 */
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { ErrorCode, type JsonObject, type JsonRpcRequest } from '../../src/protocol/jsonrpc.ts';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { createServer, type McpServer } from '../../src/server/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { InvalidToolHeaderAnnotationError } from '../../src/transport/tool-param-headers.ts';

const clients: McpClient[] = [];
const servers: McpServer[] = [];
const echoServers: Server[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(echoServers.splice(0).map((server) => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); })));
});

const regionSchema = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
  required: ['query'],
};

/** Our server with a `region_query` tool whose `region` argument is header-mirrored; the handler records what it saw. */
async function regionServer(): Promise<{ url: string; seen: JsonObject[]; server: McpServer }> {
  const seen: JsonObject[] = [];
  const server = createServer({ name: 'param-headers', version: '1.0.0' });
  servers.push(server);
  server.defineTool('region_query', { description: 'Runs a query in a region', inputSchema: regionSchema }, (args) => {
    seen.push(args);
    return { content: [{ type: 'text', text: `ran in ${typeof args.region === 'string' ? args.region : 'the default region'}` }] };
  });
  const handle = await server.listenHttp({ port: 0 });
  return { url: `http://127.0.0.1:${handle.port}/mcp`, seen, server };
}

async function connect(url: string): Promise<{ client: McpClient; errors: Error[] }> {
  const client = createClient({ transport: httpTransport({ url }) });
  clients.push(client);
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  await client.connect();
  return { client, errors };
}

describe('x-mcp-header: our client against our server over modern HTTP', () => {
  it('after listTools, callTool carries Mcp-Param-Region and the handler sees the argument, plain or Base64-encoded', async () => {
    const { url, seen } = await regionServer();
    const { client, errors } = await connect(url);
    expect(client.era).toBe('modern');
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['region_query']);
    expect(await client.callTool('region_query', { region: 'us-west1', query: 'q1' })).toMatchObject({ content: [{ type: 'text', text: 'ran in us-west1' }] });
    expect(await client.callTool('region_query', { region: 'Zürich, 世界', query: 'q2' })).toMatchObject({ content: [{ type: 'text', text: 'ran in Zürich, 世界' }] });
    expect(await client.callTool('region_query', { query: 'q3' })).toMatchObject({ content: [{ type: 'text', text: 'ran in the default region' }] });
    expect(seen).toEqual([{ region: 'us-west1', query: 'q1' }, { region: 'Zürich, 世界', query: 'q2' }, { query: 'q3' }]);
    expect(errors).toEqual([]);
  });

  it('a tools/call before any tools/list goes without the header; the server refuses it with HeaderMismatch, and callTool re-lists and retries once', async () => {
    const { url, seen } = await regionServer();
    const { client } = await connect(url);
    await expect(client.request('tools/call', { name: 'region_query', arguments: { region: 'us-west1', query: 'q0' } })).rejects.toMatchObject({
      name: 'HttpStatusError',
      status: 400,
      rpcError: { code: ErrorCode.HeaderMismatch },
    });
    expect(seen).toEqual([]);
    await client.callTool('region_query', { region: 'us-west1', query: 'q' });
    expect(seen).toEqual([{ region: 'us-west1', query: 'q' }]);
  });

  it('leaves a tool with an invalid x-mcp-header out of listTools and reports it as an error event', async () => {
    const { url, server } = await regionServer();
    server.defineTool('tagged', {
      description: 'Marks an argument inside array items, which the spec forbids',
      inputSchema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } } },
    }, () => ({ content: [] }));
    const { client, errors } = await connect(url);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['region_query']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InvalidToolHeaderAnnotationError);
    expect(errors[0]).toMatchObject({ tool: 'tagged', reason: expect.stringMatching(/\/properties\/tags\/items/) });
  });
});

/** A modern peer that answers discover and tools/list, and answers tools/call with the Mcp-Param headers it received. */
async function echoServer(): Promise<string> {
  const reply = (request: JsonRpcRequest, headers: IncomingHttpHeaders): JsonObject => {
    if (request.method === 'server/discover') {
      return { supportedVersions: [MODERN_VERSION], capabilities: { tools: {} }, _meta: { [MetaKey.serverInfo]: { name: 'echo', version: '1.0.0' } } };
    }
    if (request.method === 'tools/list') return { tools: [{ name: 'region_query', inputSchema: regionSchema }] };
    const mirrored = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('mcp-param-')));
    return { content: [{ type: 'text', text: JSON.stringify(mirrored) }] };
  };
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => {
      const message = JSON.parse(body) as JsonRpcRequest;
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: reply(message, req.headers) }));
    });
  });
  echoServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('x-mcp-header on the wire (node:http echo peer)', () => {
  it('sends Mcp-Param-Region as is for plain ASCII and in the =?base64?…?= form otherwise; none before listing', async () => {
    const { client } = await connect(await echoServer());
    const mirrored = async (args: JsonObject) => {
      const result = await client.callTool('region_query', args);
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, string>;
    };
    expect(await mirrored({ region: 'us-west1', query: 'q' })).toEqual({});
    await client.listTools();
    expect(await mirrored({ region: 'us-west1', query: 'q' })).toEqual({ 'mcp-param-region': 'us-west1' });
    expect(await mirrored({ region: 'Hello, 世界', query: 'q' })).toEqual({ 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' });
    expect(await mirrored({ query: 'q' })).toEqual({});
  });
});
