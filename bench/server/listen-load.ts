/**
 * The listen-stream workload against one server process (bench/server/serve.ts):
 * open N listen streams (stream i asks for tools/list_changed and
 * resources/updated of `bench://r/i`), then measure the server's heap and RSS
 * per stream after GC, and the time one publish takes to reach every stream
 * (tools/list_changed: all match) and the one it matches
 * (resources/updated of `bench://r/0`): the median of `rounds` publishes
 * after a warm-up, or the first alone when it took seconds. Over stdio (one connection, all N
 * streams on it) or over loopback HTTP (one POST and SSE response per stream,
 * from as many loopback source addresses as the ephemeral ports require).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, type ClientRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { hostLimits, sourceAddresses } from './host-limits.ts';
import { LineCounter } from './line-counter.ts';
import { postMcp } from './http-post.ts';
import { MemoryPeer } from './memory-peer.ts';
import type { ServeCommand, ServeReport } from './serve.ts';
import { median } from '../median.ts';

export type Impl = 'ours' | 'official';
export type Transport = 'stdio' | 'http';

/** What one run measured. */
export interface ListenLoadResult {
  openMs: number;
  /** CPU time of the server process while they opened. */
  openCpuMs: number;
  heapPerStream: number;
  rssPerStream: number;
  /** Undefined: not delivered within FANOUT_TIMEOUT_MS. */
  fanoutAllMs: number | undefined;
  /** Undefined: not delivered within FANOUT_TIMEOUT_MS. Measured before fan-out to all. */
  fanoutOneMs: number | undefined;
}

/** How long one publish may take to reach its streams before the figure is given as "more than this". */
export const FANOUT_TIMEOUT_MS = 60_000;
/** A first publish slower than this is the figure: no warm-up is needed to tell it apart, and rounds would take minutes. */
const SLOW_FANOUT_MS = 2_000;

const SERVE = fileURLToPath(new URL('./serve.ts', import.meta.url));
const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };
/** Listen POSTs in flight at once over HTTP (unacknowledged): more only overflows the accept queue. */
const HTTP_WINDOW = 256;

const listenParams = (i: number) => ({ _meta: meta, notifications: { toolsListChanged: true, resourceSubscriptions: [`bench://r/${i}`] } });
const isAck = (line: string) => line.includes('notifications/subscriptions/acknowledged');
const isAll = (line: string) => line.includes('notifications/tools/list_changed');
const isOne = (line: string) => line.includes('notifications/resources/updated');

/** The server process and its IPC controls. */
class ServerProcess {
  private waiting: { resolve: (report: ServeReport) => void; reject: (error: Error) => void }[] = [];

  private constructor(readonly child: ChildProcess) {
    child.on('message', (report: ServeReport) => this.waiting.shift()?.resolve(report));
    child.on('exit', (code, signal) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`benchmark server exited (${code ?? signal})`));
    });
  }

  static async start(impl: Impl, transport: Transport, maxStreams: number): Promise<{ server: ServerProcess; port: number | undefined }> {
    const stdio = transport === 'stdio' ? (['pipe', 'pipe', 'inherit', 'ipc'] as const) : (['ignore', 'ignore', 'inherit', 'ipc'] as const);
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SERVE, impl, transport, String(maxStreams + 16)], { stdio: [...stdio] });
    const server = new ServerProcess(child);
    const ready = await server.next();
    return { server, port: ready.type === 'ready' ? ready.port : undefined };
  }

  private next(): Promise<ServeReport> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  async measure(): Promise<{ heapUsed: number; rss: number; cpuMs: number }> {
    const measured = this.next();
    this.child.send({ type: 'measure' } satisfies ServeCommand);
    const report = await measured;
    if (report.type !== 'measured') throw new Error('unexpected report');
    return report;
  }

  publish(match: 'all' | 'one'): void {
    this.child.send({ type: 'publish', match } satisfies ServeCommand);
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

/** How the benchmark talks MCP to the server: open streams and count what they receive. */
interface Streams {
  counter: LineCounter;
  /** One warm-up request before the baseline measurement. */
  warm(): Promise<void>;
  open(count: number): Promise<void>;
  close(): void;
}

function stdioStreams(child: ChildProcess): Streams {
  const peer = new MemoryPeer(child.stdin!, child.stdout!);
  return {
    counter: peer,
    async warm() {
      const discovered = peer.expect(1, (line) => line.includes('"id":"discover"'));
      peer.send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: meta } });
      await discovered;
    },
    async open(count) {
      const acked = peer.expect(count, isAck);
      for (let i = 0; i < count; i++) peer.send({ jsonrpc: '2.0', id: `listen-${i}`, method: 'subscriptions/listen', params: listenParams(i) });
      await acked;
    },
    close: () => undefined,
  };
}

function httpStreams(port: number, count: number): Streams {
  const counter = new LineCounter();
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: ClientRequest[] = [];
  // More streams than one source address has ephemeral ports: spread them over 127.0.0.2, …
  const sources = sourceAddresses(count, hostLimits());
  const post = (id: string, method: string, params: object): void => {
    const source = sources.length > 1 ? sources[requests.length % sources.length] : undefined;
    // Errors are expected at the end: the server is killed with streams open.
    requests.push(postMcp(port, agent, id, method, params, (line) => counter.line(line), undefined, source).on('error', () => undefined));
  };
  return {
    counter,
    async warm() {
      const discovered = counter.expect(1, (line) => line.includes('"id":"discover"'));
      post('discover', 'server/discover', { _meta: meta });
      await discovered;
    },
    async open(count) {
      let sent = 0;
      let acked = 0;
      while (acked < count) {
        const batch = Math.min(HTTP_WINDOW - (sent - acked), count - sent);
        for (let i = 0; i < batch; i++, sent++) post(`listen-${sent}`, 'subscriptions/listen', listenParams(sent));
        const next = Math.min(count - acked, Math.max(1, HTTP_WINDOW / 2));
        await counter.expect(next, isAck);
        acked += next;
      }
    },
    close() {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

/** Opens `count` streams on a fresh server process and measures it; `rounds` publishes per fan-out figure after a warm-up. */
export async function runListenLoad(impl: Impl, transport: Transport, count: number, rounds: number): Promise<ListenLoadResult> {
  const { server, port } = await ServerProcess.start(impl, transport, count);
  const streams = transport === 'stdio' ? stdioStreams(server.child) : httpStreams(port!, count);
  try {
    await streams.warm();
    const before = await server.measure();
    const start = performance.now();
    await streams.open(count);
    const openMs = performance.now() - start;
    const after = await server.measure();
    const fanout = async (match: 'all' | 'one'): Promise<number | undefined> => {
      const times: number[] = [];
      for (let round = 0; round <= rounds; round++) {
        const delivered = streams.counter.expect(match === 'all' ? count : 1, match === 'all' ? isAll : isOne);
        const started = performance.now();
        server.publish(match);
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), FANOUT_TIMEOUT_MS)));
        const outcome = await Promise.race([delivered, timedOut]);
        clearTimeout(timer);
        if (outcome === 'timeout') return undefined;
        times.push(performance.now() - started);
        if (round === 0 && times[0]! > SLOW_FANOUT_MS) return times[0];
      }
      return median(times.slice(1)); // the first publish warms up
    };
    // One first: a server still busy with the tail of a fan-out to all would slow it down.
    const fanoutOneMs = await fanout('one');
    const fanoutAllMs = await fanout('all');
    return {
      openMs,
      openCpuMs: after.cpuMs - before.cpuMs,
      heapPerStream: (after.heapUsed - before.heapUsed) / count,
      rssPerStream: (after.rss - before.rss) / count,
      fanoutAllMs,
      fanoutOneMs,
    };
  } finally {
    streams.close();
    server.stop();
  }
}
