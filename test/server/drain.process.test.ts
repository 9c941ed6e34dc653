/**
 * Closing an HTTP server lets the requests it is answering finish, with real clients over loopback: the official
 * 2.x client in both eras and the sdk 1.x client. A tool call running when close() starts gets its answer; a request
 * sent meanwhile gets 503 with Retry-After and -32000, so a client behind a load balancer goes to another node.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { defineHeldTool } from './held-tool.ts';
import { closeAllPeers, connectHttp } from './official-peers.ts';

let server: McpServer | undefined;
const sdkClients: SdkClient[] = [];
afterEach(async () => {
  await closeAllPeers();
  for (const client of sdkClients.splice(0)) await client.close();
  await server?.close();
  server = undefined;
});

/** What a client of each kind needs here: call a tool, and list tools. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<unknown>;
}

const CLIENTS: Record<string, (url: string) => Promise<Caller>> = {
  '@modelcontextprotocol/client 2.4.0, modern': (url) => connectHttp('modern', url),
  '@modelcontextprotocol/client 2.4.0, legacy': (url) => connectHttp('legacy', url),
  '@modelcontextprotocol/sdk 1.32.2': async (url) => {
    const client = new SdkClient({ name: 'sdk-1-client', version: '1.0.0' });
    sdkClients.push(client);
    await client.connect(new SdkHttpTransport(new URL(url)));
    return client;
  },
};

describe.each(Object.keys(CLIENTS))('closing an HTTP server under %s', (kind) => {
  it('answers the call that was running, and refuses a new request with 503 and Retry-After meanwhile', async () => {
    server = buildFixtureServer();
    const held = defineHeldTool(server);
    const { url } = await server.listenHttp({ port: 0 });
    const client = await CLIENTS[kind]!(url);
    const call = client.callTool({ name: 'held', arguments: {} });
    await held.started(1);
    let closed = false;
    const closing = server.close().then(() => (closed = true));

    await expect(client.listTools()).rejects.toThrow();
    const late = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
    expect(await late.json()).toMatchObject({ id: 7, error: { code: -32000, message: expect.stringContaining('no new requests') } });
    expect(closed).toBe(false);

    held.calls[0]!.release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    await closing;
  });
});
