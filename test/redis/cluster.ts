/**
 * A cluster for the tests: one private redis-server, `count` server nodes
 * (test/fixtures/redis-node.ts, each its own process) and the round-robin
 * proxy in front of them. `stop()` kills everything it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startRedis, type RedisProcess } from './redis-server.ts';
import { roundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';

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
  readonly stderr: string[];
  /** Resolves with the first stderr line (seen already or later) matching `pattern`. */
  waitForStderr(pattern: RegExp): Promise<string>;
  kill(): Promise<void>;
}

export interface Cluster {
  readonly redis: RedisProcess;
  readonly nodes: ClusterNode[];
  readonly proxy: RoundRobinProxy;
  /** Stops every cluster of this file (there is one per test). */
  stop(): Promise<void>;
}

function startNode(redisUrl: string, name: string): Promise<{ node: ClusterNode; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, '--redis', redisUrl, '--name', name], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      const node: ClusterNode = {
        name,
        port: (JSON.parse(line) as { port: number }).port,
        stderr,
        waitForStderr: (pattern) => {
          const seen = stderr.find((candidate) => pattern.test(candidate));
          return seen !== undefined ? Promise.resolve(seen) : new Promise((resolveLine) => watchers.push({ pattern, resolve: resolveLine }));
        },
        kill,
      };
      resolve({ node, child });
    });
  });
}

export async function startCluster(count: number, options: { sticky?: boolean } = {}): Promise<Cluster> {
  const redis = await startRedis();
  started.add(() => redis.stop());
  const nodes = (await Promise.all(Array.from({ length: count }, (_, i) => startNode(redis.url, `node-${i}`)))).map(({ node }) => node);
  await Promise.all(nodes.map((node) => node.waitForStderr(/-> connected/)));
  const proxy = await roundRobinProxy(nodes.map((node) => node.port), options);
  started.add(() => proxy.close());
  return { redis, nodes, proxy, stop: stopAllClusters };
}
