/**
 * The Redis bus against the in-process bus, in one run: 1, 3 and 5 server
 * nodes (servers in this process, each with its own bus connections to a
 * private redis-server on loopback) and 10,000 listen streams spread evenly
 * over them (in-memory stdio connections, all following one URI).
 *
 * - events/s: 5,000 `resources/updated` for a URI nobody follows, published
 *   on node 0, until the last node has applied all of them;
 * - latency: one `resources/updated` for the followed URI published on node 0
 *   until every stream of the last node (another node, when there are
 *   several) has its notification; p50 and p99 of 200 publishes.
 *
 *   npx tsx bench/redis-bus.ts    (needs redis-server on PATH)
 */
import { loadavg } from 'node:os';
import { createRedisBus, type RedisBus } from '../src/redis/index.ts';
import { createInProcessBus, createServer, type ChangeBus, type McpServer } from '../src/server/index.ts';
import { startRedis } from '../test/redis/redis-server.ts';
import { openStreams, URI } from './server/fanout.ts';
import { MemoryPeer } from './server/memory-peer.ts';

const STREAMS = 10_000;
const EVENTS = 5_000;
const ROUNDS = 200;

interface Node {
  server: McpServer;
  bus: ChangeBus;
  peer: MemoryPeer;
  streams: number;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

async function startNodes(count: number, makeBus: () => Promise<ChangeBus>): Promise<Node[]> {
  const nodes: Node[] = [];
  for (let i = 0; i < count; i++) {
    const streams = Math.floor(STREAMS / count) + (i < STREAMS % count ? 1 : 0);
    const bus = await makeBus();
    const server = createServer({ name: `node-${i}`, version: '1', bus, limits: { maxListenStreams: streams + 10, maxStreamsPerConnection: streams + 10 } });
    const peer = new MemoryPeer();
    server.serveStdio({ stdin: peer.stdin, stdout: peer.stdout });
    await openStreams({ peer, publish: () => {}, close: async () => {} }, Array.from({ length: streams }, () => URI));
    nodes.push({ server, bus, peer, streams });
  }
  return nodes;
}

async function throughput(nodes: Node[]): Promise<number> {
  const last = nodes.at(-1)!;
  let applied = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const stop = last.bus.subscribe((event) => {
    if (event.type === 'resource_updated' && event.uri.startsWith('bench://cold/') && ++applied === EVENTS) done();
  });
  const start = performance.now();
  for (let i = 0; i < EVENTS; i++) nodes[0]!.server.notifyResourceUpdated(`bench://cold/${i}`);
  await all;
  stop();
  return EVENTS / ((performance.now() - start) / 1000);
}

async function latency(nodes: Node[]): Promise<{ p50: number; p99: number }> {
  const last = nodes.at(-1)!;
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const delivered = last.peer.expect(last.streams, (line) => line.includes('notifications/resources/updated'));
    const start = performance.now();
    nodes[0]!.server.notifyResourceUpdated(URI);
    await delivered;
    times.push(performance.now() - start);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const redis = await startRedis();
const rows: string[] = [];
try {
  for (const count of [1, 3, 5]) {
    for (const kind of ['in-process', 'redis'] as const) {
      const shared = createInProcessBus();
      const buses: RedisBus[] = [];
      const key = `bench-${count}-${Date.now()}`;
      const nodes = await startNodes(count, async () => {
        if (kind === 'in-process') return shared;
        const bus = await createRedisBus({ redis: redis.url, prefix: key, log: () => {} });
        buses.push(bus);
        await new Promise<void>((resolve) => (bus.health === 'connected' ? resolve() : bus.onHealth((health) => health === 'connected' && resolve())));
        return bus;
      });
      const rate = await throughput(nodes);
      const { p50, p99 } = await latency(nodes);
      rows.push(`| ${count} | ${kind} | ${Math.round(rate).toLocaleString('en-US')} | ${p50.toFixed(2)} ms | ${p99.toFixed(2)} ms | ${loadavg()[0]!.toFixed(2)} |`);
      await Promise.all(nodes.map((node) => node.server.close()));
      await Promise.all(buses.map((bus) => bus.close()));
    }
  }
} finally {
  await redis.stop();
}

console.log(`Node ${process.version}, ${new Date().toISOString()}, ${STREAMS.toLocaleString('en-US')} listen streams spread over the nodes\n`);
console.log('| nodes | bus | events/s (node 0 → last node applied) | p50 notify → every stream of the last node | p99 | load avg (1 min) |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
