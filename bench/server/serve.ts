/**
 * One server under test, in its own process, so its heap is its own:
 *
 *   node --expose-gc --import tsx bench/server/serve.ts <ours|official> <stdio|http> <maxStreams>
 *
 * ours: createServer (src/server) with its stream limits raised to
 * maxStreams; official: @modelcontextprotocol/server 2.4.0, `serveStdio` or
 * `createMcpHandler` on node:http through @modelcontextprotocol/node, with
 * `maxSubscriptions` raised to maxStreams. Both advertise tools.listChanged
 * and resources.subscribe and serve MCP on stdio or on
 * http://127.0.0.1:PORT/mcp.
 *
 * Controlled over the IPC channel when the parent opened one (bench/run.ts):
 * it sends `{ type: 'ready', port? }` once serving, and answers
 * `{ type: 'measure' }` (CPU time so far, then heapUsed and RSS after two full collections) and
 * `{ type: 'publish', match: 'all' | 'one' }` (tools/list_changed, which every
 * bench stream asked for, or resources/updated for `bench://r/0`, which only
 * the first one did). Without IPC (a client benchmark spawns it as its peer)
 * it just serves.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer as OfficialServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createServer } from '../../src/server/index.ts';

/** The URI only the first bench stream listens to. */
export const ONE_URI = 'bench://r/0';

/** Parent → child. */
export type ServeCommand = { type: 'measure' } | { type: 'publish'; match: 'all' | 'one' };
/** Child → parent. */
export type ServeReport = { type: 'ready'; port?: number } | { type: 'measured'; heapUsed: number; rss: number; cpuMs: number };

type Impl = 'ours' | 'official';
type Transport = 'stdio' | 'http';

interface Served {
  publish(match: 'all' | 'one'): void;
  port?: number;
}

async function serveOurs(transport: Transport, maxStreams: number): Promise<Served> {
  const server = createServer({ name: 'ours', version: '1', limits: { maxListenStreams: maxStreams, maxStreamsPerConnection: maxStreams } });
  const publish = (match: 'all' | 'one') => (match === 'all' ? server.notifyToolsListChanged() : server.notifyResourceUpdated(ONE_URI));
  if (transport === 'stdio') {
    server.serveStdio();
    return { publish };
  }
  const handle = await server.listenHttp({ port: 0 });
  return { publish, port: handle.port };
}

function officialInstance(): OfficialServer {
  return new OfficialServer({ name: 'official', version: '1' }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } });
}

async function serveOfficial(transport: Transport, maxStreams: number): Promise<Served> {
  if (transport === 'stdio') {
    // serveStdio builds an instance per opening probe and pins the last one.
    let pinned: OfficialServer | undefined;
    serveStdio(() => (pinned = officialInstance()), { maxSubscriptions: maxStreams });
    return {
      publish: (match) => void (match === 'all' ? pinned?.server.sendToolListChanged() : pinned?.server.sendResourceUpdated({ uri: ONE_URI })),
    };
  }
  const handler = createMcpHandler(() => officialInstance(), { maxSubscriptions: maxStreams });
  const http = createHttpServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    publish: (match) => (match === 'all' ? handler.notify.toolsChanged() : handler.notify.resourceUpdated(ONE_URI)),
    port: (http.address() as AddressInfo).port,
  };
}

const [impl, transport, max] = process.argv.slice(2) as [Impl, Transport, string];
const served = impl === 'ours' ? await serveOurs(transport, Number(max)) : await serveOfficial(transport, Number(max));
const report = (message: ServeReport) => process.send?.(message);
const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (command: ServeCommand) => {
  if (command.type === 'publish') served.publish(command.match);
  else {
    const cpu = process.cpuUsage();
    gc?.();
    gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    report({ type: 'measured', heapUsed, rss, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
// The parent going away ends the benchmark server too.
process.on('disconnect', () => process.exit(0));
report(served.port === undefined ? { type: 'ready' } : { type: 'ready', port: served.port });
