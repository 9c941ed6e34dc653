/**
 * A stateless legacy server (the official sdk 1.32.2 transport without
 * session ids, mounted on POST only, as its stateless examples are) answers
 * the GET stream with 404 or 405: that means "no GET stream here", not
 * "session gone", and the connection keeps working (issue 19).
 */
import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { McpClient } from '../../src/client/client.ts';
import { recordEvents } from '../fixtures/client-events.ts';
import { listenOnLoopback } from '../fixtures/loopback-url.ts';
import { OwnClients } from '../fixtures/own-clients.ts';

const ours = new OwnClients();
const servers: Server[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A stateless sdk 1.x server on POST; any GET gets `getStatus`. Resolves `gotGet` once a GET was answered. */
async function statelessServer(getStatus: 404 | 405) {
  let answeredGet: () => void = () => undefined;
  const gotGet = new Promise<void>((resolve) => (answeredGet = resolve));
  const http = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(getStatus).end();
      if (req.method === 'GET') answeredGet();
      return;
    }
    const mcp = new McpServer({ name: 'stateless', version: '1.0.0' });
    mcp.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void mcp.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  servers.push(http);
  return { url: await listenOnLoopback(http), gotGet };
}

const callAdd = async (client: McpClient) => {
  const result = await client.callTool('add', { a: 2, b: 3 });
  return (result.content as { text: string }[])[0]!.text;
};

describe('a stateless legacy server that offers no GET stream', () => {
  it.each([404, 405] as const)('a GET answered %i leaves the connection working', async (status) => {
    const { url, gotGet } = await statelessServer(status);
    const client = await ours.connectHttp(url, { era: 'legacy' });
    const events = recordEvents(client);
    const errors: Error[] = [];
    client.onError((error) => errors.push(error));
    await gotGet;
    expect(await callAdd(client)).toBe('5');
    expect(await callAdd(client)).toBe('5');
    expect(client.state).toBe('online.ready.legacy');
    expect(events.map((event) => event.type)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
