/**
 * The Streamable HTTP client transport against the official servers in child
 * processes over loopback: the 2.x `createMcpHandler` server (modern) and the
 * SDK 1.x sessionful server (legacy). Tiny node:http servers in this file
 * stand in only for what a real server will not do (echo the headers it got,
 * end a stream without a response, send an oversized frame).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpStatusError, StreamEndedError, TransportStartError } from '../../src/protocol/errors.ts';
import type { JsonObject, JsonRpcRequest, RequestId } from '../../src/protocol/jsonrpc.ts';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { HttpTransportOptions } from '../../src/transport/http-options.ts';
import { SseFrameSplitter } from '../../src/transport/sse-stream.ts';
import { InvalidToolHeaderAnnotationError } from '../../src/transport/tool-param-headers.ts';
import type { ClientTransport } from '../../src/transport/transport.ts';
import { unassignedPort } from '../fixtures/free-port.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { RecordingEvents, resultOf } from './recording-events.ts';

class HttpRecordingEvents extends RecordingEvents {
  readonly ended: Array<{ id: RequestId; error: StreamEndedError }> = [];
  private endedWaiters: Array<() => void> = [];

  // Optional parameters keep the override compatible with the stdio recorder's zero-argument method.
  override requestStreamEnded(id?: RequestId, error?: StreamEndedError): void {
    if (id === undefined || error === undefined) throw new Error('requestStreamEnded needs an id and an error');
    this.ended.push({ id, error });
    for (const wake of this.endedWaiters) wake();
    this.endedWaiters = [];
  }

  async streamEnded(id: RequestId): Promise<StreamEndedError> {
    for (;;) {
      const found = this.ended.find((entry) => entry.id === id);
      if (found) return found.error;
      await new Promise<void>((resolve) => this.endedWaiters.push(resolve));
    }
  }
}

const envelope = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientInfo]: { name: 'http-test', version: '1.0.0' }, [MetaKey.clientCapabilities]: {} };

const modernRequest = (id: RequestId, method: string, params: JsonObject = {}): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...envelope, ...(params._meta as JsonObject | undefined) } },
});

const openTransports: ClientTransport[] = [];
const openServers: Server[] = [];

async function open(options: HttpTransportOptions): Promise<{ transport: ClientTransport; events: HttpRecordingEvents }> {
  const transport = httpTransport(options)();
  const events = new HttpRecordingEvents();
  await transport.start(events);
  openTransports.push(transport);
  return { transport, events };
}

/** A scripted node:http peer on 127.0.0.1 with an OS-picked port. */
async function scriptedServer(handle: (headers: IncomingHttpHeaders, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => handle(req.headers, body, res));
  });
  openServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** A fetch that reports each response it hands back, so a test can wait for the GET stream or the DELETE. */
function observedFetch() {
  const seen: Array<{ method: string; status: number }> = [];
  let wake: (() => void) | undefined;
  const fetchImpl: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ method: init?.method ?? 'GET', status: response.status });
    wake?.();
    return response;
  };
  const waitFor = async (method: string) => {
    for (;;) {
      const found = seen.find((entry) => entry.method === method);
      if (found) return found;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return { fetchImpl, seen, waitFor };
}

afterEach(async () => {
  await Promise.all(openTransports.splice(0).map((transport) => transport.close()));
  await Promise.all(openServers.splice(0).map((server) => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); })));
});

describe('http transport, modern era (official 2.x server)', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture('official', { args: ['--caps', 'tools,resources,subscribe', '--name', 'modern-under-test'] });
  });
  afterAll(() => fixture.stop());

  it('answers a server/discover probe carrying the _meta envelope with a DiscoverResult', async () => {
    const { transport, events } = await open({ url: fixture.url });
    await transport.send(modernRequest('discover-1', 'server/discover'));
    const result = resultOf(await events.response('discover-1'));
    expect(result.supportedVersions).toContain(MODERN_VERSION);
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: false }, resources: { listChanged: true, subscribe: true } });
    expect((result._meta as JsonObject)[MetaKey.serverInfo]).toMatchObject({ name: 'modern-under-test' });
  });

  it('delivers progress notifications from a tools/call SSE stream before the response', async () => {
    const { transport, events } = await open({ url: fixture.url });
    await transport.send(modernRequest(7, 'tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 'tok' } }));
    const response = await events.response(7);
    expect(resultOf(response).content).toEqual([{ type: 'text', text: 'done 3' }]);
    const kinds = events.frames.map((frame) => (frame.kind === 'notification' ? `${frame.message.method}:${String(frame.message.params?.progress)}` : frame.kind));
    expect(kinds).toEqual(['notifications/progress:1', 'notifications/progress:2', 'notifications/progress:3', 'response']);
  });

  it('keeps a subscriptions/listen stream open and delivers changes tagged with its subscription id', async () => {
    const { transport, events } = await open({ url: fixture.url });
    await transport.send(modernRequest('listen-1', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await events.next((frame) => frame.kind === 'notification' && frame.message.method === 'notifications/subscriptions/acknowledged');
    await transport.send(modernRequest(2, 'tools/call', { name: 'emit', arguments: { kind: 'tools', count: 2 } }));
    await events.response(2);
    const changed = await events.next((frame) => frame.kind === 'notification' && frame.message.method === 'notifications/tools/list_changed');
    expect(changed.kind === 'notification' && changed.message.params?._meta).toEqual({ [MetaKey.subscriptionId]: 'listen-1' });
    expect(transport.abortRequest('listen-1')).toBe(true);
    expect(transport.abortRequest('listen-1')).toBe(false);
  });

  it('abortRequest aborts an in-flight request: no response and no stream-ended report for it', async () => {
    const { transport, events } = await open({ url: fixture.url });
    const slow = transport.send(modernRequest('slow-1', 'tools/call', { name: 'slow', arguments: { ms: 30_000 } }));
    expect(transport.abortRequest('slow-1')).toBe(true);
    await expect(slow).rejects.toMatchObject({ name: 'AbortError' });
    // A later request still works, and nothing was reported for the aborted one.
    await transport.send(modernRequest('echo-1', 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    await events.response('echo-1');
    expect(events.frames.filter((frame) => frame.kind === 'response' && frame.message.id === 'slow-1')).toEqual([]);
    expect(events.ended).toEqual([]);
    expect(transport.abortRequest('slow-1')).toBe(false);
  });

  it('answers an unknown method with 404 and -32601, and an unknown version with 400 and -32022 (modern errors: no era fallback)', async () => {
    const { transport } = await open({ url: fixture.url });
    await expect(transport.send(modernRequest(1, 'bogus/method'))).rejects.toMatchObject({ name: 'HttpStatusError', status: 404, rpcError: { code: -32601 } });
    transport.setProtocol({ era: 'modern', version: '2027-01-01' });
    const future = modernRequest(2, 'server/discover', { _meta: { [MetaKey.protocolVersion]: '2027-01-01' } });
    await expect(transport.send(future)).rejects.toMatchObject({ status: 400, rpcError: { code: -32022, data: { supported: [MODERN_VERSION] } } });
  });

  it('speaks legacy to the stateless 2025 fallback: no session, a 405 on GET is no error, and close sends no DELETE', async () => {
    const observed = observedFetch();
    const { transport, events } = await open({ url: fixture.url, fetch: observed.fetchImpl });
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } } });
    expect(resultOf(await events.response(1)).protocolVersion).toBe('2025-11-25');
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await observed.waitFor('GET')).toEqual({ method: 'GET', status: 405 });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
    expect(resultOf(await events.response(2)).content).toEqual([{ type: 'text', text: 'still here' }]);
    await transport.close();
    expect(observed.seen.map((entry) => entry.method)).toEqual(['POST', 'POST', 'GET', 'POST']);
    expect(events.errors).toEqual([]);
    expect(events.closures).toEqual([]);
  });

  it('rejects a non-http URL at start', async () => {
    const transport = httpTransport({ url: 'ftp://127.0.0.1/mcp' })();
    await expect(transport.start(new HttpRecordingEvents())).rejects.toBeInstanceOf(TransportStartError);
    const bad = httpTransport({ url: 'not a url' })();
    await expect(bad.start(new HttpRecordingEvents())).rejects.toBeInstanceOf(TransportStartError);
  });
});

describe('http transport, wire details (scripted peers)', () => {
  it('sends MCP-Protocol-Version, Mcp-Method and Mcp-Name, Base64-encoding names that are not plain ASCII', async () => {
    const received: IncomingHttpHeaders[] = [];
    const url = await scriptedServer((headers, body, res) => {
      received.push(headers);
      const message = JSON.parse(body) as { id?: RequestId };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    const { transport, events } = await open({ url, headers: { Authorization: 'Bearer t' } });
    await transport.send(modernRequest(1, 'tools/call', { name: 'Hello, 世界', arguments: {} }));
    await transport.send(modernRequest(2, 'tools/call', { name: 'echo', arguments: {} }));
    await transport.send(modernRequest(3, 'resources/read', { uri: 'test://resource/1' }));
    await transport.send(modernRequest(4, 'prompts/get', { name: ' padded ' }));
    await transport.send(modernRequest(5, 'tools/call', { name: '=?base64?literal?=' }));
    await transport.send(modernRequest(6, 'server/discover'));
    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await Promise.all([1, 2, 3, 4, 5, 6].map((id) => events.response(id)));
    const picked = received.map((headers) => [headers['mcp-protocol-version'], headers['mcp-method'], headers['mcp-name']]);
    expect(picked).toEqual([
      [MODERN_VERSION, 'tools/call', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [MODERN_VERSION, 'tools/call', 'echo'],
      [MODERN_VERSION, 'resources/read', 'test://resource/1'],
      [MODERN_VERSION, 'prompts/get', '=?base64?IHBhZGRlZCA=?='],
      [MODERN_VERSION, 'tools/call', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
      [MODERN_VERSION, 'server/discover', undefined],
      [MODERN_VERSION, 'notifications/cancelled', undefined],
    ]);
    for (const headers of received) {
      expect(headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer t' });
      expect(headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('learns x-mcp-header arguments from tools/list (dropping and reporting invalid tools) and sends Mcp-Param headers on tools/call', async () => {
    const sql = {
      name: 'sql',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          limit: { type: 'integer', 'x-mcp-header': 'Limit' },
          dry: { type: ['boolean', 'null'], 'x-mcp-header': 'Dry-Run' },
          tenant: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'Tenant' } } },
          query: { type: 'string' },
        },
      },
    };
    const broken = { name: 'broken', inputSchema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } } } };
    const greet = { name: 'greet', inputSchema: { type: 'object', properties: { text: { type: 'string', 'x-mcp-header': 'Text' } } } };
    const received: Array<{ id: RequestId; params: Record<string, string | string[] | undefined> }> = [];
    const url = await scriptedServer((headers, body, res) => {
      const { id, method, params } = JSON.parse(body) as JsonRpcRequest;
      received.push({ id, params: Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('mcp-param-'))) });
      if (method === 'tools/list' && params?.cursor === undefined) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [sql, broken], nextCursor: 'p2' } }));
      }
      // The second page comes on an SSE stream: both response shapes are read the same way.
      const result = method === 'tools/list' ? { tools: [greet] } : { content: [] };
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
    });
    const { transport, events } = await open({ url });
    const call = async (id: RequestId, name: string, args: JsonObject) => {
      await transport.send(modernRequest(id, 'tools/call', { name, arguments: args }));
      await events.response(id);
      return received.find((entry) => entry.id === id)?.params;
    };
    // Not listed yet: nothing to mirror.
    expect(await call('before', 'sql', { region: 'us-west1' })).toEqual({});

    await transport.send(modernRequest('page-1', 'tools/list'));
    expect(resultOf(await events.response('page-1'))).toEqual({ tools: [sql], nextCursor: 'p2' });
    expect(events.errors).toHaveLength(1);
    expect(events.errors[0]).toBeInstanceOf(InvalidToolHeaderAnnotationError);
    expect(events.errors[0]).toMatchObject({ tool: 'broken', code: 'invalid_tool_header_annotation', reason: expect.stringMatching(/\/properties\/tags\/items is not reachable/) });
    await transport.send(modernRequest('page-2', 'tools/list', { cursor: 'p2' }));
    expect(resultOf(await events.response('page-2'))).toEqual({ tools: [greet] });

    expect(await call('full', 'sql', { region: 'us-west1', limit: -7, dry: false, tenant: { id: 'Hello, 世界' }, query: 'q' })).toEqual({
      'mcp-param-region': 'us-west1',
      'mcp-param-limit': '-7',
      'mcp-param-dry-run': 'false',
      'mcp-param-tenant': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
    // Absent and null arguments: no header.
    expect(await call('sparse', 'sql', { region: ' padded ', dry: null, query: 'q' })).toEqual({ 'mcp-param-region': '=?base64?IHBhZGRlZCA=?=' });
    expect(await call('newline', 'greet', { text: 'line1\nline2' })).toEqual({ 'mcp-param-text': '=?base64?bGluZTEKbGluZTI=?=' });
    expect(await call('sentinel', 'greet', { text: '=?base64?literal?=' })).toEqual({ 'mcp-param-text': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=' });
    expect(await call('rejected', 'broken', { tags: ['a'] })).toEqual({});
    // Legacy HTTP has no x-mcp-header: nothing is mirrored there.
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    expect(await call('legacy', 'sql', { region: 'us-west1' })).toEqual({});
    expect(events.errors).toHaveLength(1);
  });

  it('legacy: no version header on initialize, then the minted session id and the negotiated version on every request, GET and DELETE', async () => {
    const received: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
    let gotDelete: () => void = () => undefined;
    const deleted = new Promise<void>((resolve) => (gotDelete = resolve));
    let gotGet: () => void = () => undefined;
    const getReceived = new Promise<void>((resolve) => (gotGet = resolve));
    const url = await scriptedServer((headers, body, res) => {
      const method = body === '' ? '' : (JSON.parse(body) as { method?: string }).method ?? '';
      received.push({ method: method || 'none', headers });
      if (headers['mcp-session-id'] === undefined) {
        const { id } = JSON.parse(body) as { id: RequestId };
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-abc' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } }));
      }
      if (body === '') {
        if (headers.accept === 'text/event-stream') {
          res.writeHead(405).end();
          return gotGet();
        }
        res.writeHead(200).end();
        return gotDelete();
      }
      const { id } = JSON.parse(body) as { id?: RequestId };
      if (id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const { transport, events } = await open({ url });
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    await events.response(1);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } });
    await events.response(2);
    await getReceived;
    await transport.close();
    await deleted;
    const picked = received.map(({ method, headers }) => [method, headers['mcp-session-id'], headers['mcp-protocol-version'], headers['mcp-method']]);
    expect(picked).toContainEqual(['initialize', undefined, undefined, undefined]);
    expect(picked).toContainEqual(['notifications/initialized', 'session-abc', '2025-06-18', undefined]);
    expect(picked).toContainEqual(['tools/call', 'session-abc', '2025-06-18', undefined]);
    expect(picked.filter(([method]) => method === 'none')).toEqual([
      ['none', 'session-abc', '2025-06-18', undefined],
      ['none', 'session-abc', '2025-06-18', undefined],
    ]);
    expect(events.closures).toEqual([]);
    expect(events.errors).toEqual([]);
  });

  it('reports requestStreamEnded when a request SSE stream ends before its response', async () => {
    const url = await scriptedServer((_headers, body, res) => {
      const { id } = JSON.parse(body) as { id: RequestId };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } })}\n\n`);
    });
    const { transport, events } = await open({ url });
    await transport.send(modernRequest('r1', 'tools/call', { name: 'echo' }));
    const error = await events.streamEnded('r1');
    expect(error).toBeInstanceOf(StreamEndedError);
    expect(error.requestId).toBe('r1');
    expect(events.frames.map((frame) => frame.kind)).toEqual(['notification']);
    expect(events.closures).toEqual([]);
  });

  it('turns an oversized SSE event or JSON body into one invalid oversized frame and keeps reading', async () => {
    const big = 'x'.repeat(50_000);
    const url = await scriptedServer((_headers, body, res) => {
      const { id, method } = JSON.parse(body) as { id: RequestId; method: string };
      const response = JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } });
      if (method === 'big/json') {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { big } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: big } })}\n\n`);
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'small' } })}\r\n\r\n`);
      res.end(`event: message\ndata: ${response}\n\n`);
    });
    const { transport, events } = await open({ url, maxFrameBytes: 1_000 });
    await transport.send(modernRequest('sse', 'big/sse'));
    expect(resultOf(await events.response('sse'))).toEqual({ ok: true });
    expect(events.frames.map((frame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind))).toEqual(['oversized', 'notification', 'response']);
    await transport.send(modernRequest('json', 'big/json'));
    const ended = await events.streamEnded('json');
    expect(ended.requestId).toBe('json');
    expect(events.frames.at(-1)).toMatchObject({ kind: 'invalid', error: { problem: 'oversized' } });
  });

  it('rejects a send to a refused connection and reports the transport failed once', async () => {
    // Nothing listens there, and no other test's server can be given that port meanwhile.
    const { transport, events } = await open({ url: `http://127.0.0.1:${await unassignedPort()}/mcp` });
    await expect(transport.send(modernRequest(1, 'server/discover'))).rejects.toThrow();
    const closed = await events.whenClosed();
    expect(closed.type).toBe('failed');
    expect(closed.type === 'failed' && (closed.cause as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    await expect(transport.send(modernRequest(2, 'server/discover'))).rejects.toThrow(/failed/);
    expect(events.closures).toHaveLength(1);
  });
});

describe('SSE frame splitter', () => {
  const note = (text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: text } });
  const stream = `: keep-alive\n\ndata: ${note('a')}\n\nid: 9\ndata: ${note('x'.repeat(6_000))}\r\n\r\ndata:\n\ndata: ${note('b')}\r\rdata: ${note('c')}\n\n`;

  it('skips an oversized event and reads the others, wherever the chunks split', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const seen: string[] = [];
        const splitter = new SseFrameSplitter(1_000, (frame) => {
          seen.push(frame.kind === 'invalid' ? frame.error.problem : String(frame.kind === 'notification' && frame.message.params?.data));
        });
        const points = [0, ...cuts.sort((x, y) => x - y), stream.length];
        for (let i = 1; i < points.length; i++) splitter.push(stream.slice(points[i - 1], points[i]));
        splitter.end();
        expect(seen).toEqual(['a', 'oversized', 'b', 'c']);
      }),
    );
  });

  it('reads an event that carries a batch as its messages, in order', () => {
    const seen: string[] = [];
    const splitter = new SseFrameSplitter(1_000, (frame) => {
      seen.push(frame.kind === 'invalid' ? frame.error.problem : String(frame.kind === 'notification' && frame.message.params?.data));
    });
    splitter.push(`data: [${note('a')},${note('b')},[]]\n\ndata: ${note('c')}\n\n`);
    splitter.end();
    expect(seen).toEqual(['a', 'b', 'not_an_object', 'c']);
  });
});

describe('http transport, legacy era (official SDK 1.x sessionful server)', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture('legacy', { args: ['--fail-subscribe', 'test://resource/5'] });
  });
  afterAll(() => fixture.stop());

  const initialize = (id: RequestId): JsonRpcRequest => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } },
  });

  it('answers a modern server/discover probe with HTTP 400 and a non-modern JSON-RPC error (-32000): the era fallback signal', async () => {
    const { transport } = await open({ url: fixture.url });
    const probe = transport.send(modernRequest('probe', 'server/discover'));
    await expect(probe).rejects.toBeInstanceOf(HttpStatusError);
    await expect(probe).rejects.toMatchObject({ status: 400, rpcError: { code: -32000, message: 'Bad Request: Server not initialized' } });
  });

  it('captures the session on initialize, receives list_changed on the GET stream, and DELETEs the session on close', async () => {
    const observed = observedFetch();
    const { transport, events } = await open({ url: fixture.url, fetch: observed.fetchImpl });
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    await transport.send(initialize(1));
    expect(resultOf(await events.response(1)).protocolVersion).toBe('2025-11-25');
    const opened = await fixture.waitForStderr(/^session opened /);
    const sessionId = opened.slice('session opened '.length);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await observed.waitFor('GET')).toEqual({ method: 'GET', status: 200 });
    // The server only accepts this with our session id.
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'emit', arguments: { kind: 'tools' } } });
    expect(resultOf(await events.response(2)).content).toEqual([{ type: 'text', text: 'emitted 1 tools' }]);
    await events.next((frame) => frame.kind === 'notification' && frame.message.method === 'notifications/tools/list_changed');
    await transport.close();
    expect(await observed.waitFor('DELETE')).toEqual({ method: 'DELETE', status: 200 });
    expect(await fixture.waitForStderr(/^session closed /)).toBe(`session closed ${sessionId}`);
    expect(events.closures).toEqual([]);
  });

  it('records resources/subscribe per session and refuses the --fail-subscribe URI with a JSON-RPC error', async () => {
    const { transport, events } = await open({ url: fixture.url });
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    await transport.send(initialize(1));
    await events.response(1);
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'test://resource/1' } });
    await transport.send({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'test://resource/5' } });
    expect(resultOf(await events.response(2))).toEqual({});
    expect(await events.response(3)).toMatchObject({ error: { code: -32602 } });
    await transport.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'subscriptions', arguments: {} } });
    expect(resultOf(await events.response(4)).content).toEqual([{ type: 'text', text: '["test://resource/1"]' }]);
  });

  it('reports the transport failed when a request names a session the server no longer knows (404)', async () => {
    const { transport, events } = await open({ url: fixture.url });
    transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
    await transport.send(initialize(1));
    await events.response(1);
    await fixture.restart();
    const list = transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await expect(list).rejects.toMatchObject({ name: 'HttpStatusError', status: 404 });
    const closed = await events.whenClosed();
    expect(closed).toMatchObject({ type: 'failed', cause: { status: 404 } });
  });

  it('reports the transport failed when the server process dies under the GET stream', async () => {
    const own = await startHttpFixture('legacy');
    try {
      const observed = observedFetch();
      const { transport, events } = await open({ url: own.url, fetch: observed.fetchImpl });
      transport.setProtocol({ era: 'legacy', version: '2025-11-25' });
      await transport.send(initialize(1));
      await events.response(1);
      await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await observed.waitFor('GET');
      await own.kill();
      const closed = await events.whenClosed();
      expect(closed.type).toBe('failed');
      expect(events.closures).toHaveLength(1);
    } finally {
      await own.stop();
    }
  });
});
