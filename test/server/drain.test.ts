/**
 * Closing a server lets the requests it is answering finish: our client over the stdio framing (the in-memory
 * pair), both eras. A call running when close() starts gets its answer; a request sent meanwhile is refused; a call
 * still running after drainTimeoutMs has its handler's signal aborted, and the close goes on. Over HTTP, with the
 * official clients: test/server/drain.process.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, inMemoryTransport, type McpClient } from '../../src/index.ts';
import { ServerClosingError } from '../../src/server/errors.ts';
import { createServer, type McpServer, type ServerLimits } from '../../src/server/index.ts';
import { defineHeldTool } from './held-tool.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('closing a server whose handler asked a legacy client something', () => {
  it("takes the client's answer meanwhile, and the call gets its result", async () => {
    const server = createServer({ name: 'draining', version: '1.0.0', limits: { drainTimeoutMs: 600_000 } });
    cleanups.push(() => server.close());
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    server.defineTool('ask', { description: 'Asks for a name', inputSchema: { type: 'object' } }, async (_args, context) => {
      const answer = await context.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return { content: [{ type: 'text', text: String(answer.content?.name) }] };
    });
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    let answerNow!: () => void;
    const answering = new Promise<void>((resolve) => (answerNow = resolve));
    client.onRequest('elicitation/create', async () => {
      asked();
      await answering;
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect();
    const call = client.callTool('ask');
    await wasAsked;
    const closing = server.close();
    answerNow();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'Ada' }] });
    await closing;
  });
});

describe('a legacy client pinging a draining server', () => {
  it('is answered (its receiver must answer a ping promptly), while other requests are refused', async () => {
    const server = createServer({ name: 'draining', version: '1.0.0' });
    const held = defineHeldTool(server);
    cleanups.push(() => server.close());
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era: 'legacy', reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    const call = client.callTool('held');
    await held.started(1);
    const closing = server.close();
    await expect(client.request('ping')).resolves.toBeTypeOf('object');
    await expect(client.listTools()).rejects.toMatchObject({ rpcCode: -32000 });
    held.calls[0]!.release();
    await call;
    await closing;
  });
});

describe.each(['legacy', 'modern'] as const)('closing a server over the stdio framing, %s era', (era) => {
  async function start(limits: Partial<ServerLimits> = {}): Promise<{ server: McpServer; client: McpClient; held: ReturnType<typeof defineHeldTool> }> {
    const server = createServer({ name: 'draining', version: '1.0.0', limits });
    const held = defineHeldTool(server);
    cleanups.push(() => server.close());
    const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    return { server, client, held };
  }

  it('lets a running call finish and answer, and refuses the requests sent meanwhile', async () => {
    const { server, client, held } = await start();
    const call = client.callTool('held');
    await held.started(1);
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    const refused = await client.listTools().catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'RpcError', rpcCode: -32000, message: expect.stringContaining('no new requests') });
    expect(closed).toBe(false);
    held.calls[0]!.release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    await closing;
    expect(held.calls[0]!.signal.aborted).toBe(false);
  });

  it("stops waiting for a call its client cancels meanwhile: the cancellation is still taken", async () => {
    // A bound no test outlives: only the cancellation can end this drain.
    const { server, client, held } = await start({ drainTimeoutMs: 600_000 });
    const controller = new AbortController();
    const call = client.callTool('held', {}, { signal: controller.signal }).catch((error: unknown) => error);
    await held.started(1);
    const closing = server.close();
    controller.abort();
    await closing;
    expect(held.calls[0]!.signal.aborted).toBe(true);
    expect(await call).toMatchObject({ name: 'RequestAbortedError' });
  });

  it('past drainTimeoutMs, aborts the handler still running and closes', async () => {
    const { server, client, held } = await start({ drainTimeoutMs: 5_000 });
    const call = client.callTool('held').catch((error: unknown) => error);
    await held.started(1);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect([held.calls[0]!.signal.aborted, closed]).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(held.calls[0]!.signal.reason).toBeInstanceOf(ServerClosingError);
    await closing;
    // The connection closed under the call: it fails rather than waiting for an answer that will not come.
    expect(await call).toBeInstanceOf(Error);
  });
});
