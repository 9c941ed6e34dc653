/**
 * A private `redis-server` for one test: a free loopback port, no
 * persistence (so a restart loses everything, as in the field without
 * AOF/RDB), ready once it says so on stdout. `kill()` SIGKILLs it;
 * `restart()` starts a fresh one on the same port; `stop()` in afterEach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createClient } from 'redis';
import { unassignedPort } from '../fixtures/free-port.ts';

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** One command on a short-lived connection of the test's own. */
  command(args: string[]): Promise<unknown>;
}

/** Every redis-server this worker started and has not seen exit. */
const live = new Set<ChildProcess>();
// A redis-server outlives a test worker that ends before its hooks stopped it (a failed start, a torn-down
// run): Node kills its node children's pipes, but Redis does not read stdin. The last word is this worker's.
process.once('exit', () => live.forEach((child) => child.kill('SIGKILL')));

function launch(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    const onExit = (code: number | null) => reject(new Error(`redis-server exited with ${code}: ${lines.join('\n')}`));
    child.once('exit', onExit);
    child.once('error', reject);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('Ready to accept connections')) {
        child.off('exit', onExit);
        resolve(child);
      }
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function startRedis(): Promise<RedisProcess> {
  let port = await unassignedPort();
  let child: ChildProcess;
  try {
    child = await launch(port);
  } catch {
    // The port was taken between the probe and the launch: one more try on another.
    port = await unassignedPort();
    child = await launch(port);
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => killed(child),
    async restart() {
      await killed(child);
      child = await launch(port);
    },
    stop: () => killed(child),
    async command(args) {
      const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      client.on('error', () => {});
      await client.connect();
      try {
        return await client.sendCommand(args);
      } finally {
        client.destroy();
      }
    },
  };
}
