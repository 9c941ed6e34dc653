/**
 * The three consumers of the flood server (bench/client/flood-server.ts),
 * each talking to its own child process of it over stdio:
 * - `ours`: createClient + stdioTransport, one `listen` stream, a callback;
 * - `official`: @modelcontextprotocol/client 2.4.0 `listen()`, deliveries
 *   counted by its `notifications/resources/updated` handler;
 * - `floor`: a bare line reader + JSON.parse, no MCP client.
 *
 * Each exposes the same two workloads: a timed flood through one stream, and
 * opening many streams (distinct URIs) at once. The peer is the flood server,
 * or (`official`) the official @modelcontextprotocol/server 2.4.0 over stdio
 * (bench/server/serve.ts, its subscription limit raised for 50,000 streams).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createClient } from '../../src/client/client.ts';
import type { SubscriberMessage } from '../../src/client/messages.ts';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { stdioTransport } from '../../src/transport/stdio.ts';

export type ConsumerName = 'ours' | 'official' | 'floor';

export interface Consumer {
  /** Opens one stream on `uri`, then times each flood of `count` from the triggering request to the last delivery. */
  floods(uri: string, count: number, rounds: number): Promise<number[]>;
  /** Opens one stream per URI, all at once; resolves when every one is acknowledged. Keeps them open. */
  openStreams(uris: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Which server the consumer talks to. */
export type PeerServer = 'flood' | 'official';

const PEER_ARGS: Record<PeerServer, string[]> = {
  flood: ['--import', 'tsx', fileURLToPath(new URL('./flood-server.ts', import.meta.url))],
  official: ['--import', 'tsx', fileURLToPath(new URL('../server/serve.ts', import.meta.url)), 'official', 'stdio', '50000'],
};

/** Resolves when `counter()` reaches `target`, checked by the caller after each delivery. */
class Countdown {
  count = 0;
  private target = Infinity;
  private reached: (() => void) | undefined;

  expect(target: number): Promise<void> {
    this.count = 0;
    this.target = target;
    return new Promise((resolve) => (this.reached = resolve));
  }

  readonly tick = (): void => {
    if (++this.count === this.target) this.reached?.();
  };
}

async function timedFloods(countdown: Countdown, count: number, rounds: number, trigger: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const delivered = countdown.expect(count);
    const start = performance.now();
    const answered = trigger();
    await delivered;
    times.push(performance.now() - start);
    await answered;
  }
  return times;
}

export async function ourConsumer(peer: PeerServer): Promise<Consumer> {
  const client = createClient({ transport: stdioTransport({ command: process.execPath, args: PEER_ARGS[peer], stderr: 'inherit' }), reconnect: false });
  await client.connect();
  const countdown = new Countdown();
  const onMessage = (message: SubscriberMessage): void => {
    if (message.type === 'notification') countdown.tick();
  };
  return {
    async floods(uri, count, rounds) {
      await client.listen({ resourceSubscriptions: [uri] }, onMessage);
      return timedFloods(countdown, count, rounds, () => client.callTool('flood', { uri, count }));
    },
    async openStreams(uris) {
      await Promise.all(uris.map((uri) => client.listen({ resourceSubscriptions: [uri] }, onMessage)));
    },
    close: () => client.close(),
  };
}

export async function officialConsumer(peer: PeerServer): Promise<Consumer> {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: PEER_ARGS[peer], stderr: 'inherit' }));
  const countdown = new Countdown();
  client.setNotificationHandler('notifications/resources/updated', countdown.tick);
  const held: unknown[] = [];
  return {
    async floods(uri, count, rounds) {
      held.push(await client.listen({ resourceSubscriptions: [uri] }));
      return timedFloods(countdown, count, rounds, () => client.callTool({ name: 'flood', arguments: { uri, count } }));
    },
    async openStreams(uris) {
      held.push(...(await Promise.all(uris.map((uri) => client.listen({ resourceSubscriptions: [uri] })))));
    },
    close: () => client.close(),
  };
}

/** No MCP client: hand-written requests, a line splitter and JSON.parse on every line. */
export async function floorConsumer(peer: PeerServer): Promise<Consumer> {
  const child = spawn(process.execPath, PEER_ARGS[peer], { stdio: ['pipe', 'pipe', 'inherit'] });
  const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };
  const countdown = new Countdown();
  const answers = new Map<string | number, () => void>();
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: string; method?: string; params?: { _meta?: Record<string, string> } };
      if (message.method === 'notifications/resources/updated') countdown.tick();
      else if (message.method === 'notifications/subscriptions/acknowledged') answers.get(message.params!._meta![MetaKey.subscriptionId]!)?.();
      else if (message.id !== undefined) answers.get(message.id)?.();
    }
  });
  let nextId = 0;
  const request = (method: string, params: object = {}): Promise<void> => {
    const id = `r${nextId++}`;
    const answered = new Promise<void>((resolve) => answers.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`);
    return answered;
  };
  await request('server/discover');
  return {
    async floods(uri, count, rounds) {
      await request('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } });
      return timedFloods(countdown, count, rounds, () => request('tools/call', { name: 'flood', arguments: { uri, count } }));
    },
    async openStreams(uris) {
      await Promise.all(uris.map((uri) => request('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } })));
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}

export const consumers: Record<ConsumerName, (peer: PeerServer) => Promise<Consumer>> = {
  ours: ourConsumer,
  official: officialConsumer,
  floor: floorConsumer,
};
