/**
 * Legacy POST response streams resume (issue 18): a tool call sends progress,
 * a loopback proxy swallows and then cuts the POST's connection, the tool
 * sends more progress and its result; the client resumes with a GET carrying
 * the stream's `Last-Event-ID` and gets every progress once and the result.
 * Our client and the official client 2.4.0, both against our server (in this
 * process, loopback HTTP). The session's own GET stream keeps its messages:
 * a resumed POST stream never carries them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import type { McpServer } from '../../src/server/index.ts';
import { CuttingProxy } from '../fixtures/cutting-proxy.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { closeAllPeers, connectHttp as connectOfficial, NotificationLog, progressOnWire, TOOLS_CHANGED, wire } from '../server/official-peers.ts';
import { inbox } from '../fixtures/subscriber-inbox.ts';

const ours = new OwnClients();
const servers: McpServer[] = [];
const proxies: CuttingProxy[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await closeAllPeers();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Gated {
  server: McpServer;
  proxy: CuttingProxy;
  url: string;
  /** Lets the `gated` tool go on after its first progress. */
  open(): void;
}

/**
 * Our server behind a cutting proxy (a short `retry`, so the resume comes
 * soon) with a `gated` tool: progress 1 of 3, then it waits for `open()`,
 * then progress 2 and 3 and its result.
 */
async function serveGated(): Promise<Gated> {
  const server = buildFixtureServer({ limits: { sseRetryMs: 10 } });
  servers.push(server);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  server.defineTool('gated', { description: 'Progress, a wait, more progress, a result', inputSchema: { type: 'object' } }, async (_args, context) => {
    await context.progress(1, 3);
    await gate;
    await context.progress(2, 3);
    await context.progress(3, 3);
    return { content: [{ type: 'text', text: 'gated done' }] };
  });
  const handle = await server.listenHttp({ port: 0 });
  const proxy = await CuttingProxy.start(handle.port);
  proxies.push(proxy);
  return { server, proxy, url: `http://127.0.0.1:${proxy.port}/mcp`, open };
}

/** Progress values as they arrive, with a wait for the first. */
function progressLog() {
  const values: unknown[] = [];
  let first!: () => void;
  const started = new Promise<void>((resolve) => (first = resolve));
  const onProgress = (params: JsonObject) => {
    values.push(params.progress);
    first();
  };
  return { values, started, onProgress };
}

describe('our client against our server: a POST stream cut after the first progress', () => {
  it('resumes with the stream Last-Event-ID: every progress once, then the result, and no GET-stream message', async () => {
    const { server, proxy, url, open } = await serveGated();
    const client = await ours.connectHttp(url, { era: 'legacy' });
    const box = inbox();
    await client.subscribeNotifications({ toolsListChanged: true }, box.subscriber);
    server.notifyToolsListChanged();
    await box.next('notification');

    const progress = progressLog();
    const call = client.callTool('gated', {}, { onProgress: progress.onProgress });
    await progress.started;
    proxy.blackhole('POST');
    open();
    // Progress 2 went into the dead connection (its id names the POST stream), then the connection is cut.
    const [swallowed] = await proxy.swallowedEvents(1);
    expect(swallowed).toMatch(/^p\d+-\d+$/);
    // A message for the session's GET stream meanwhile: it must come once, on the GET stream only.
    server.notifyToolsListChanged();
    await box.next('notification');
    proxy.cut();

    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'gated done' }]);
    expect(progress.values).toEqual([1, 2, 3]);
    // A marker after the resume: a change replayed twice would have come before it.
    server.notifyToolsListChanged();
    await box.next('notification');
    expect(box.count('notification')).toBe(3);
  });
});

describe('the official client 2.4.0 (legacy) against our server: a POST stream cut after the first progress', () => {
  it('resumes it with Last-Event-ID: every progress once, then the result', async () => {
    const { server, proxy, url, open } = await serveGated();
    const client = await connectOfficial('legacy', url);
    const log = new NotificationLog(client, [TOOLS_CHANGED]);
    let first!: () => void;
    const started = new Promise<void>((resolve) => (first = resolve));
    const call = client.callTool({ name: 'gated', arguments: {} }, { onprogress: () => first() });
    await started;
    proxy.blackhole('POST');
    open();
    const [swallowed] = await proxy.swallowedEvents(1);
    expect(swallowed).toMatch(/^p\d+-\d+$/);
    server.notifyToolsListChanged();
    await log.waitFor(TOOLS_CHANGED);
    proxy.cut();

    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'gated done' }]);
    expect(progressOnWire(client)).toEqual([1, 2, 3]);
    expect(wire(client).filter((message) => message.method === TOOLS_CHANGED)).toHaveLength(1);
  });
});
