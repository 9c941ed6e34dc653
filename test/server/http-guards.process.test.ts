/**
 * The HTTP endpoint against hostile or malformed requests: DNS rebinding
 * (Origin/Host), oversized bodies, malformed JSON, header/body mismatches,
 * unsupported versions, unknown methods, unknown sessions and listen floods.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/jsonrpc.ts';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { rawPost } from '../fixtures/raw-http.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => server?.close());

async function start(options: Parameters<typeof buildFixtureServer>[0] = {}): Promise<{ url: string; port: number }> {
  server = buildFixtureServer(options);
  const handle = await server.listenHttp({ port: 0 });
  return { url: handle.url, port: handle.port };
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: { id?: unknown; error?: { code: number; data?: unknown } } | undefined }> {
  const response = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

describe('DNS rebinding protection', () => {
  it('refuses a foreign Origin or Host with 403 and accepts loopback ones', async () => {
    const { port } = await start();
    const body = JSON.stringify(INIT);
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect(await rawPost(port, { ...json, origin: 'http://evil.example.com' }, body)).toBe(403);
    expect(await rawPost(port, { ...json, host: 'evil.example.com' }, body)).toBe(403);
    expect(await rawPost(port, { ...json, host: `localhost:${port}`, origin: `http://localhost:${port}` }, body)).toBe(200);
  });

  it('bound to any loopback address accepts its own Host, and every loopback name, and no other', async () => {
    server = buildFixtureServer();
    const { port, url } = await server.listenHttp({ port: 0, host: '127.0.0.2' });
    expect(url).toBe(`http://127.0.0.2:${port}/mcp`);
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const body = JSON.stringify(INIT);
    const status = (headers: Record<string, string>) => rawPost(port, { ...json, ...headers }, body, '127.0.0.2');
    expect(await status({ host: `127.0.0.2:${port}` })).toBe(200);
    expect(await status({ host: `127.0.0.2:${port}`, origin: `http://127.0.0.2:${port}` })).toBe(200);
    expect(await status({ host: `127.255.0.9:${port}` })).toBe(200);
    expect(await status({ host: `[::1]:${port}` })).toBe(200);
    expect(await status({ host: `localhost:${port}` })).toBe(200);
    expect(await status({ host: `128.0.0.2:${port}` })).toBe(403);
    expect(await status({ host: `127.0.0.2.evil.example:${port}` })).toBe(403);
    expect(await status({ host: `127.0.0.2:${port}`, origin: 'http://evil.example' })).toBe(403);
  });

  it('bound to ::1 accepts its own Host', async () => {
    server = buildFixtureServer();
    const { port, url } = await server.listenHttp({ port: 0, host: '::1' });
    expect(url).toBe(`http://[::1]:${port}/mcp`);
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect(await rawPost(port, { ...json, host: `[::1]:${port}` }, JSON.stringify(INIT), '::1')).toBe(200);
    expect(await rawPost(port, { ...json, host: `evil.example:${port}` }, JSON.stringify(INIT), '::1')).toBe(403);
  });

  it('accepts exactly the configured origins', async () => {
    server = buildFixtureServer();
    const { port } = await server.listenHttp({ port: 0, allowedOrigins: ['https://app.example.com'] });
    const json = { 'content-type': 'application/json' };
    expect(await rawPost(port, { ...json, origin: 'https://app.example.com' }, JSON.stringify(INIT))).toBe(200);
    expect(await rawPost(port, { ...json, origin: `http://localhost:${port}` }, JSON.stringify(INIT))).toBe(403);
  });

  it('on a non-loopback bind without allowedOrigins, refuses any Origin, even one matching Host (a rebound page)', async () => {
    server = buildFixtureServer();
    const { port } = await server.listenHttp({ port: 0, host: '0.0.0.0' });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const body = JSON.stringify(INIT);
    expect(await rawPost(port, { ...json, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, body)).toBe(403);
    expect(await rawPost(port, { ...json, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, body)).toBe(403);
    // A client that sends no Origin (not a browser) is served.
    expect(await rawPost(port, { ...json, host: `mcp.example:${port}` }, body)).toBe(200);
  });
});

describe('bad input over HTTP', () => {
  it('answers malformed JSON with 400 and -32700, an oversized body with 413', async () => {
    const { url } = await start({ limits: { maxBodyBytes: 1024 } });
    const parse = await post(url, '{"jsonrpc":', modernHeaders('tools/list'));
    expect(parse).toEqual({ status: 400, json: { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: ErrorCode.ParseError }) } });
    const big = await fetch(url, { method: 'POST', headers: modernHeaders('tools/list'), body: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
  });

  it('checks the mirrored headers against the body (-32020, 400)', async () => {
    const { url } = await start();
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { _meta: modernMeta(), name: 'echo', arguments: { text: 'hi' } } };
    const cases = [
      { ...modernHeaders('tools/call', 'echo'), 'mcp-protocol-version': '' },
      modernHeaders('tools/list', 'echo'),
      modernHeaders('tools/call'),
      modernHeaders('tools/call', 'other'),
    ];
    for (const headers of cases) {
      if (headers['mcp-protocol-version'] === '') delete (headers as Record<string, string>)['mcp-protocol-version'];
      const answer = await post(url, call, headers);
      expect(answer.status).toBe(400);
      expect(answer.json?.error?.code).toBe(ErrorCode.HeaderMismatch);
      expect(answer.json?.id).toBe(7);
    }
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    expect((await post(url, call, modernHeaders('tools/call', encoded))).status).toBe(200);
  });

  it('checks Mcp-Param headers of x-mcp-header arguments against the body', async () => {
    const { url } = await start();
    server!.defineTool('region_query', {
      description: 'Has a header-mirrored argument',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } } },
    }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const call = (region: string | undefined) => ({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { _meta: modernMeta(), name: 'region_query', arguments: region === undefined ? { query: 'q' } : { region, query: 'q' } } });
    const headers = modernHeaders('tools/call', 'region_query');
    expect((await post(url, call('us-west1'), { ...headers, 'mcp-param-region': 'us-west1' })).status).toBe(200);
    expect((await post(url, call('Hello, 世界'), { ...headers, 'mcp-param-region': `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=` })).status).toBe(200);
    expect((await post(url, call(undefined), headers)).status).toBe(200);
    const missing = await post(url, call('us-west1'), headers);
    expect([missing.status, missing.json?.error?.code]).toEqual([400, ErrorCode.HeaderMismatch]);
    const wrong = await post(url, call('us-west1'), { ...headers, 'mcp-param-region': 'eu-north1' });
    expect([wrong.status, wrong.json?.error?.code]).toEqual([400, ErrorCode.HeaderMismatch]);
  });

  it('refuses a Base64 sentinel value with bad characters or bad padding (400, -32020), as Mcp-Param and as Mcp-Name', async () => {
    const { url } = await start();
    server!.defineTool('region_query', {
      description: 'Has a header-mirrored argument',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const call = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { _meta: modernMeta(), name: 'region_query', arguments: { region: 'Hello' } } };
    const headers = modernHeaders('tools/call', 'region_query');
    expect((await post(url, call, { ...headers, 'mcp-param-region': '=?base64?SGVsbG8=?=' })).status).toBe(200);
    for (const value of ['=?base64?SGVs!!!bG8=?=', '=?base64?SGVsbG8?=']) {
      const refused = await post(url, call, { ...headers, 'mcp-param-region': value });
      expect([refused.status, refused.json?.error?.code, refused.json?.id]).toEqual([400, ErrorCode.HeaderMismatch, 11]);
    }
    const badName = await post(url, call, { ...modernHeaders('tools/call', '=?base64?cmVnaW9u!X3F1ZXJ5?='), 'mcp-param-region': 'Hello' });
    expect([badName.status, badName.json?.error?.code]).toEqual([400, ErrorCode.HeaderMismatch]);
  });

  it('answers an unsupported version with -32022 and the supported list, an unknown method with 404', async () => {
    const { url } = await start();
    const old = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) } };
    const refused = await post(url, old, { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' });
    expect(refused).toEqual({
      status: 400,
      json: { jsonrpc: '2.0', id: 1, error: { code: ErrorCode.UnsupportedProtocolVersion, message: 'Unsupported protocol version', data: { requested: '2099-01-01', supported: ['2026-07-28'] } } },
    });
    const unknown = await post(url, { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: modernMeta() } }, modernHeaders('ping'));
    expect(unknown.status).toBe(404);
    expect(unknown.json?.error?.code).toBe(ErrorCode.MethodNotFound);
    const missing = await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, modernHeaders('tools/list'));
    expect(missing.status).toBe(400);
    expect(missing.json?.error?.code).toBe(ErrorCode.InvalidParams);
  });

  it('refuses unknown and deleted legacy sessions, and keeps sessions apart', async () => {
    const { url } = await start();
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, { method: 'POST', headers: json, body: JSON.stringify(INIT) });
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    const withSession = { ...json, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(url, list, withSession)).status).toBe(200);
    expect((await post(url, list, { ...withSession, 'mcp-session-id': 'not-a-session' })).status).toBe(404);
    expect(server!.openSessionCount).toBe(1);
    expect((await fetch(url, { method: 'DELETE', headers: withSession })).status).toBe(200);
    expect(server!.openSessionCount).toBe(0);
    expect((await post(url, list, withSession)).status).toBe(404);
  });

  it('refuses listen streams past maxListenStreams with 429', async () => {
    const { url } = await start({ limits: { maxListenStreams: 2 } });
    const listen = (id: number) => fetch(url, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { toolsListChanged: true } } }),
    });
    const open = [await listen(1), await listen(2)];
    expect(open.map((response) => response.headers.get('content-type'))).toEqual(['text/event-stream', 'text/event-stream']);
    const third = await listen(3);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(open.map((response) => response.headers.get('retry-after'))).toEqual([null, null]);
    expect(await third.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Limit reached: maxListenStreams (2)', data: { limit: 'maxListenStreams', max: 2 } } });
    for (const response of open) await response.body?.cancel();
  });
});
