/**
 * JSON-RPC batches over legacy Streamable HTTP, on loopback. A session of a
 * revision that has them (2025-03-26 requires servers to receive them) gets
 * one JSON array answering every request of a batch POST once all are done,
 * and 202 for a batch without requests; a later revision's session, and a
 * POST without a session, get the one -32600 that an array was before. A
 * batched request's handler asks its client over the session's GET stream
 * (the batch has no stream of its own), and without one fails the ask at once.
 * The peer is scripted: no official client sends batches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { DEFAULT_LIMITS } from '../../src/server/limits.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { holdingServer } from './holding-server.ts';
import { RawLegacySession } from './raw-http-peer.ts';
import type { Message } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A holding server (its `hold` waits for a cancel) on a loopback port, closed after the test. */
async function holdingEndpoint() {
  const made = holdingServer();
  server = made.server;
  const { url } = await server.listenHttp({ port: 0 });
  return { url, started: made.started };
}

const request = (id: number | string, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/** POSTs `batch` in `session` (or with no session headers at all) and reads the whole answer. */
async function postBatch(url: string, headers: Record<string, string>, batch: unknown[]) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(batch),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('a 2025-03-26 session over legacy HTTP', () => {
  it('answers a batch POST with one JSON array: an answer per request, invalid elements included, none for its notifications', async () => {
    const { url } = await holdingEndpoint();
    const session = await RawLegacySession.open(url, true, '2025-03-26');
    const answer = await postBatch(url, session.headers, [
      request(1, 'tools/list'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } },
      request(2, 'tools/call', { name: 'echo', arguments: { text: 'in a batch' } }),
      'junk',
      request(3, 'no/such-method'),
    ]);
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^application\/json/);
    const messages = answer.body as Message[];
    expect(messages).toHaveLength(4);
    const byId = new Map(messages.map((message) => [message.id, message]));
    expect(byId.get(1)?.result?.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'echo' })]));
    expect(byId.get(2)?.result).toMatchObject({ content: [{ type: 'text', text: 'in a batch' }] });
    expect(byId.get(null)?.error).toMatchObject({ code: -32600 });
    expect(byId.get(3)?.error).toMatchObject({ code: -32601 });
  });

  it('answers a batch without requests with 202, and one whose request was cancelled without it', async () => {
    const { url, started } = await holdingEndpoint();
    const session = await RawLegacySession.open(url, true, '2025-03-26');
    expect(await postBatch(url, session.headers, [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } }])).toEqual({
      status: 202,
      type: null,
      body: undefined,
    });
    const batch = postBatch(url, session.headers, [request('held', 'tools/call', { name: 'hold', arguments: {} }), request('quick', 'ping')]);
    await started;
    await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'held' } })).ended;
    expect((await batch).body).toEqual([{ jsonrpc: '2.0', id: 'quick', result: {} }]);
  });
});

describe('where there are no batches', () => {
  it('a 2025-11-25 session refuses a batch POST with 400 and one -32600 naming its revision, and runs none of it', async () => {
    const { url } = await holdingEndpoint();
    const session = await RawLegacySession.open(url, true, '2025-11-25');
    const refused = await postBatch(url, session.headers, [request(1, 'tools/call', { name: 'hold', arguments: {} })]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('2025-11-25 has no JSON-RPC batches') } });
    // The session goes on.
    const ping = await session.request(2, 'ping');
    await ping.ended;
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('a batch POST without a session (an initialize in it, say) is one invalid request', async () => {
    const { url } = await holdingEndpoint();
    const refused = await postBatch(url, {}, [request(0, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } })]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('not a JSON object') } });
  });
});

describe("a batched request's asks to the client", () => {
  /** A 2025-03-26 session that declared `roots`, on a server whose `list-roots` tool reports what its ask gave. */
  async function askingSession() {
    server = buildFixtureServer();
    server.defineTool('list-roots', { description: 'Asks the client for its roots', inputSchema: { type: 'object' } }, async (_args, context) => {
      try {
        const { roots } = await context.listRoots();
        return { content: [{ type: 'text', text: `roots: ${roots.map((root) => root.uri).join(' ')}` }] };
      } catch (error) {
        const { name, why } = error as { name: string; why?: string };
        return { content: [{ type: 'text', text: `failed: ${name} ${String(why)}` }] };
      }
    });
    const { url } = await server.listenHttp({ port: 0 });
    const session = await RawLegacySession.open(url, true, '2025-03-26', { roots: {} });
    return { url, session };
  }
  const textOf = (answer: unknown) => ((answer as Message[])[0]?.result?.content as { text: string }[] | undefined)?.[0]?.text;

  it('go on the session GET stream, and the client answer reaches the handler', async () => {
    const { url, session } = await askingSession();
    const stream = await session.stream();
    const batch = postBatch(url, session.headers, [request(1, 'tools/call', { name: 'list-roots', arguments: {} })]);
    const ask = await stream.next((message) => message.method === 'roots/list');
    await (await session.post({ jsonrpc: '2.0', id: ask.id!, result: { roots: [{ uri: 'file:///work', name: 'work' }] } })).ended;
    expect(textOf((await batch).body)).toBe('roots: file:///work');
  });

  it('fail at once (ClientRequestCancelledError, why no_stream) while the session has no GET stream, instead of waiting clientRequestTimeoutMs', async () => {
    const { url, session } = await askingSession();
    const started = Date.now();
    const answer = await postBatch(url, session.headers, [request(1, 'tools/call', { name: 'list-roots', arguments: {} })]);
    expect(textOf(answer.body)).toBe('failed: ClientRequestCancelledError no_stream');
    expect(Date.now() - started).toBeLessThan(DEFAULT_LIMITS.clientRequestTimeoutMs / 2);
  });
});
