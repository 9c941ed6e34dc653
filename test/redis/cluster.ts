/**
 * A cluster for the tests: one private redis-server, `count` server nodes
 * (test/fixtures/redis-node.ts, each its own process) and the round-robin
 * proxy in front of them. `stop()` kills everything it started. With
 * `cuttable`, that node reaches Redis through a cuttable link (the test can
 * keep it away from Redis); `maxLen` sets every node's stream retention.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient, httpTransport } from '../../src/index.ts';
import { cuttableLink, type CuttableLink } from './cuttable-link.ts';
import { startRedis, type RedisProcess } from './redis-server.ts';
import { roundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

const NODE_SCRIPT = fileURLToPath(new URL('../fixtures/redis-node.ts', import.meta.url));

/** Every process and proxy started here, so a test that timed out mid-start leaves nothing behind. */
const started = new Set<() => Promise<void>>();

/** Kills everything the clusters of this file started; for afterEach. */
export async function stopAllClusters(): Promise<void> {
  const stops = [...started];
  started.clear();
  await Promise.all(stops.map((stop) => stop()));
}

export interface ClusterNode {
  readonly name: string;
  readonly port: number;
  /** The node's own MCP endpoint, bypassing the proxy. */
  readonly url: string;
  readonly stderr: string[];
  /** Resolves with the first stderr line matching `pattern`, seen already or later; with `from`, only from that line index on (what a test did before is not waited for). */
  waitForStderr(pattern: RegExp, from?: number): Promise<string>;
  /** Whether the process has exited (killed by a test, say). */
  exited(): boolean;
  kill(): Promise<void>;
}

export interface Cluster {
  readonly redis: RedisProcess;
  readonly nodes: ClusterNode[];
  readonly proxy: RoundRobinProxy;
  /** The link of the `cuttable` node, if one was asked for. */
  readonly link: CuttableLink | undefined;
  /** Starts a fresh process in place of each node that exited (same name and Redis, a new port), connected to Redis once it resolves; `proxy` keeps the old ports, a proxy made afterwards has the new ones. */
  revive(): Promise<void>;
  /** Stops every cluster of this file (one shared by the tests that kill nothing, or one per test). */
  stop(): Promise<void>;
}

function startNode(redisUrl: string, name: string, maxLen: number | undefined): Promise<{ node: ClusterNode; child: ChildProcess }> {
  const args = ['--redis', redisUrl, '--name', name, ...(maxLen === undefined ? [] : ['--max-len', String(maxLen)])];
  const child = spawn(process.execPath, [fixtureBundle(NODE_SCRIPT), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  let watchers: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    watchers = watchers.filter((watcher) => !(watcher.pattern.test(line) && (watcher.resolve(line), true)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  started.add(kill);
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${name} exited with ${code}: ${stderr.join('\n')}`));
    child.once('exit', onExit);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      child.off('exit', onExit);
      const port = (JSON.parse(line) as { port: number }).port;
      const node: ClusterNode = {
        name,
        port,
        url: `http://127.0.0.1:${port}/mcp`,
        stderr,
        waitForStderr: (pattern, from = 0) => {
          const seen = stderr.slice(from).find((candidate) => pattern.test(candidate));
          return seen !== undefined ? Promise.resolve(seen) : new Promise((resolveLine) => watchers.push({ pattern, resolve: resolveLine }));
        },
        exited: () => child.exitCode !== null || child.signalCode !== null,
        kill,
      };
      resolve({ node, child });
    });
  });
}

export interface ClusterOptions {
  sticky?: boolean;
  /** Index of the node that reaches Redis through a cuttable link. */
  cuttable?: number;
  /** Every node's stream retention (the bus's `maxLen`). */
  maxLen?: number;
}

export async function startCluster(count: number, options: ClusterOptions = {}): Promise<Cluster> {
  const redis = await startRedis();
  started.add(() => redis.stop());
  const link = options.cuttable === undefined ? undefined : await cuttableLink(redis.port);
  if (link) started.add(() => link.close());
  const urlOf = (i: number) => (i === options.cuttable && link ? link.url : redis.url);
  const connectedNode = async (i: number) => {
    const { node } = await startNode(urlOf(i), `node-${i}`, options.maxLen);
    await node.waitForStderr(/-> connected/);
    return node;
  };
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => connectedNode(i)));
  const proxy = await roundRobinProxy(nodes.map((node) => node.port), options);
  started.add(() => proxy.close());
  const revive = async () => {
    await Promise.all(nodes.map(async (node, i) => {
      if (node.exited()) nodes[i] = await connectedNode(i);
    }));
  };
  return { redis, nodes, proxy, link, revive, stop: stopAllClusters };
}

/** A node's bus logs each health change on stderr as `… <from> -> <to>`. */
const HEALTH_CHANGE = / -> (\w+)$/;

/** The stderr line a node's bus logs when a read barrier gave up waiting. */
const SETTLE_TIMED_OUT = /longer than the settle timeout/;

/**
 * Waits until every node has applied every event published so far, on any
 * node, so that tests can share one cluster: a client of the next test then
 * hears nothing the tests before it published. A tools/list on each node,
 * in two rounds: the server answers it after the bus's read barrier, which
 * asks Redis for the stream's newest id on the node's own writer connection
 * and waits until the node applied it. After the first round, each node's
 * own publishes still in flight have landed (Redis answers one connection's
 * commands in order); the second round makes every node apply all of them.
 * Rejects if a node's bus is not live (a barrier would not wait) or a
 * barrier timed out instead (the node logs that).
 */
export async function settleCluster(cluster: Cluster): Promise<void> {
  for (const node of cluster.nodes) {
    const health = node.stderr.map((line) => HEALTH_CHANGE.exec(line)?.[1]).filter((state) => state !== undefined).at(-1);
    if (health !== 'connected' && health !== 'resynced') throw new Error(`${node.name}: its Redis bus is ${health ?? 'not started'}, not live, so the cluster cannot settle`);
  }
  const timedOutBefore = cluster.nodes.map((node) => node.stderr.filter((line) => SETTLE_TIMED_OUT.test(line)).length);
  for (let round = 0; round < 2; round++) {
    await Promise.all(cluster.nodes.map(async (node) => {
      const client = createClient({ transport: httpTransport({ url: node.url }), era: 'modern' });
      try {
        await client.connect();
        await client.listTools();
      } finally {
        await client.close();
      }
    }));
  }
  cluster.nodes.forEach((node, i) => {
    const timedOut = node.stderr.filter((line) => SETTLE_TIMED_OUT.test(line)).length;
    if (timedOut > timedOutBefore[i]!) throw new Error(`${node.name}: a read barrier timed out while the cluster settled`);
  });
}
