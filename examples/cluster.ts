/**
 * Three server nodes sharing change events through Redis, in one process for
 * the demonstration (in production each is its own process or machine):
 *
 *   npm run example:cluster      (needs redis-server on PATH; starts its own on a free loopback port)
 *
 * A client listens for tool-list changes on node 0; node 2 adds a tool to the
 * shared catalog and announces it; node 0 reloads its catalog in
 * `onRemoteChange`, then tells the client, whose refetch on node 1 already
 * sees the tool. Then Redis is killed and restarted: every node resyncs and
 * the client hears that the tools may have changed.
 */
import { spawnSync } from 'node:child_process';
import { createClient } from '../src/client/client.ts';
import { httpTransport } from '../src/transport/http.ts';
import { createRedisBus, type RedisBus } from '../src/redis/index.ts';
import { createServer, type McpServer } from '../src/server/index.ts';
import { startRedis } from '../test/redis/redis-server.ts';

if (spawnSync('redis-server', ['--version']).error) {
  console.log('redis-server is not installed (Debian: apt-get install redis-server); nothing to run.');
  process.exit(0);
}

const redis = await startRedis();
console.log(`redis-server on ${redis.url}, persistence off`);
const catalog = new Set<string>(); // stands in for shared storage (a database, a Redis hash)

function load(server: McpServer): void {
  for (const name of catalog) server.defineTool(name, { description: 'from the shared catalog', inputSchema: { type: 'object' } }, () => ({ content: [] }));
}

const nodes: Array<{ server: McpServer; bus: RedisBus; url: string }> = [];
for (let i = 0; i < 3; i++) {
  const bus = await createRedisBus({ redis: redis.url, log: (line) => console.log(`  [node ${i}] ${line.replace(/^mcp-actors redis bus \S+: /, '')}`) });
  const server: McpServer = createServer({ name: `node-${i}`, version: '1.0.0', bus, onRemoteChange: () => load(server) });
  const { url } = await server.listenHttp({ port: 0 });
  nodes.push({ server, bus, url });
}

const client = createClient({ transport: httpTransport({ url: nodes[0]!.url }), era: 'modern' });
await client.connect();
let heard!: () => void;
let announced = new Promise<void>((resolve) => (heard = resolve));
await client.listen({ toolsListChanged: true }, (message) => {
  if (message.type === 'notification') {
    console.log(`client on node 0: ${message.method}`);
    heard();
  }
});

catalog.add('forecast');
load(nodes[2]!.server);
nodes[2]!.server.notifyToolsListChanged();
await announced;
const refetch = createClient({ transport: httpTransport({ url: nodes[1]!.url }), era: 'modern' });
await refetch.connect();
console.log(`refetch on node 1: ${(await refetch.listTools()).map((tool) => tool.name).join(', ')}`);

announced = new Promise<void>((resolve) => (heard = resolve));
console.log('killing redis-server (SIGKILL) and starting a fresh one');
await redis.kill();
await redis.restart();
await announced;

await Promise.all([client.close(), refetch.close()]);
for (const { server, bus } of nodes) {
  await server.close();
  await bus.close();
}
await redis.stop();
