/**
 * Fan-out workload: listen streams over one in-memory stdio connection, then
 * the time from one `resources/updated` publish until every notification it
 * causes was read back. Same workload for our server and the
 * official @modelcontextprotocol/server 2.x serveStdio.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { createServer } from '../../src/server/index.ts';
import { MemoryPeer } from './memory-peer.ts';

export const URI = 'bench://resource/hot';
const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };

export interface FanoutTarget {
  peer: MemoryPeer;
  publish(uri: string): void;
  close(): Promise<void>;
}

export function ourTarget(streams: number): FanoutTarget {
  const server = createServer({
    name: 'ours',
    version: '1',
    limits: { maxListenStreams: streams + 10, maxStreamsPerConnection: streams + 10 },
  });
  const peer = new MemoryPeer();
  server.serveStdio({ stdin: peer.stdin, stdout: peer.stdout });
  return { peer, publish: (uri) => server.notifyResourceUpdated(uri), close: () => server.close() };
}

export function officialTarget(streams: number): FanoutTarget {
  const peer = new MemoryPeer();
  let pinned: McpServer | undefined;
  const handle = serveStdio(() => {
    pinned = new McpServer({ name: 'official', version: '1' }, { capabilities: { resources: { subscribe: true, listChanged: true } } });
    pinned.registerResource('hot', URI, { mimeType: 'text/plain' }, async () => ({ contents: [{ uri: URI, text: 'hot' }] }));
    return pinned;
  }, { transport: new StdioServerTransport(peer.stdin, peer.stdout), maxSubscriptions: streams + 10 });
  return {
    peer,
    publish: (uri) => void pinned?.server.sendResourceUpdated({ uri }),
    close: () => handle.close(),
  };
}

/** Opens the connection (server/discover) and one listen stream per entry of `uris`; resolves once all are acknowledged. */
export async function openStreams(target: FanoutTarget, uris: readonly string[]): Promise<void> {
  const streams = uris.length;
  const discovered = target.peer.expect(1, (line) => line.includes('"id":"discover"'));
  target.peer.send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: meta } });
  await discovered;
  const acked = target.peer.expect(streams, (line) => line.includes('notifications/subscriptions/acknowledged'));
  for (let i = 0; i < streams; i++) {
    target.peer.send({ jsonrpc: '2.0', id: `listen-${i}`, method: 'subscriptions/listen', params: { _meta: meta, notifications: { resourceSubscriptions: [uris[i]!] } } });
  }
  await acked;
}

/** Milliseconds from one publish to `uri` until the `streams` notifications it causes were read. */
export async function timeOneFanout(target: FanoutTarget, uri: string, streams: number): Promise<number> {
  const delivered = target.peer.expect(streams, (line) => line.includes('notifications/resources/updated'));
  const start = performance.now();
  target.publish(uri);
  await delivered;
  return performance.now() - start;
}
