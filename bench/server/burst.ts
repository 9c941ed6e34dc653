/**
 * Burst workload over real stdio (a child process per server): open a
 * connection (modern: one tools listen stream; legacy: an initialized
 * session), ask the server to publish 100,000 tools/list_changed
 * notifications, and immediately send a follow-up request. Measures how long
 * the follow-up and the burst call take to be answered, bounded by a timeout.
 */
import { spawn } from 'node:child_process';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';

const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };

/** Milliseconds until answered, or undefined when the timeout came first. */
export interface BurstResult {
  followUpMs: number | undefined;
  burstMs: number | undefined;
  /** Burst notifications read by the time both were answered (or the timeout). */
  notifications: number;
}

export type BurstEra = 'modern' | 'legacy';

/** What the burst is: `emit` publishes change events; `progress` streams request-scoped progress. */
export type BurstKind = 'emit' | 'progress';

export async function runBurst(fixture: string, era: BurstEra, kind: BurstKind, count: number, timeoutMs: number): Promise<BurstResult> {
  const counted = kind === 'emit' ? 'notifications/tools/list_changed' : 'notifications/progress';
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['pipe', 'pipe', 'ignore'] });
  let partial = '';
  let notifications = 0;
  const waiters = new Map<string, () => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(counted)) notifications++;
      for (const [id, resolve] of waiters) {
        if (line.includes(`"id":"${id}"`)) {
          waiters.delete(id);
          resolve();
        }
      }
    }
  });
  const answer = (id: string) => new Promise<void>((resolve) => waiters.set(id, resolve));
  const send = (id: string, method: string, params: Record<string, unknown> = {}) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: era === 'modern' ? { _meta: meta, ...params } : params })}\n`);
  try {
    if (era === 'modern') await openListen(child.stdout, send, answer);
    else {
      const initialized = answer('init');
      send('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
      await initialized;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    }
    const start = performance.now();
    const since = (promise: Promise<void>) => promise.then(() => performance.now() - start);
    const burst = since(answer('burst'));
    const followUp = since(answer('follow-up'));
    if (kind === 'emit') send('burst', 'tools/call', { name: 'emit', arguments: { kind: 'tools', count } });
    else send('burst', 'tools/call', { name: 'progress', arguments: { steps: count }, _meta: { ...(era === 'modern' ? meta : {}), progressToken: 'burst' } });
    send('follow-up', 'tools/call', { name: 'echo', arguments: { text: 'still there?' } });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const [followUpMs, burstMs] = await Promise.all([Promise.race([followUp, timeout]), Promise.race([burst, timeout])]);
    clearTimeout(timer);
    return { followUpMs, burstMs, notifications };
  } finally {
    child.kill('SIGKILL');
  }
}

async function openListen(
  stdout: NodeJS.ReadableStream,
  send: (id: string, method: string, params?: Record<string, unknown>) => void,
  answer: (id: string) => Promise<void>,
): Promise<void> {
  const discovered = answer('discover');
  send('discover', 'server/discover');
  await discovered;
  const acked = new Promise<void>((resolve) => {
    const check = (chunk: string) => {
      if (!chunk.includes('notifications/subscriptions/acknowledged')) return;
      stdout.off('data', check);
      resolve();
    };
    stdout.on('data', check);
  });
  send('listen', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
  await acked;
}
