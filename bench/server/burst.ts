/**
 * Burst workload over real stdio (a child process per server): open a
 * connection (modern: one tools listen stream; legacy: an initialized
 * session), ask the server to publish 100,000 tools/list_changed
 * notifications, and immediately send a follow-up request. Measures how long
 * the follow-up and the burst call take to be answered, bounded by a timeout,
 * and, through bench/server/stdio-tap.ts preloaded into the server, how many
 * burst notifications the server itself wrote between reading the follow-up
 * and writing its answer.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { FOLLOW_UP_ID, TAP_PREFIX, type TapReport } from './tap-report.ts';

const TAP = fileURLToPath(new URL('./stdio-tap.ts', import.meta.url));

const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };

/** Milliseconds until answered, or undefined when the timeout came first. */
export interface BurstResult {
  /** From sending the follow-up to reading its answer. */
  followUpMs: number | undefined;
  /** From sending the burst call to reading its answer. */
  burstMs: number | undefined;
  /** Burst notifications read by the time both were answered (or the timeout). */
  notifications: number;
  /** Burst notifications read between sending the follow-up and reading its answer. */
  behind: number | undefined;
  /**
   * Burst notifications the server handed to its output after reading the
   * follow-up and before its answer (stdio: the server's own queue ahead of
   * the answer); undefined where not measured.
   */
  serverAhead?: number | undefined;
  /** Bytes in the server's stdout buffer (not yet taken by the pipe) when it read the follow-up. */
  serverBuffered?: number | undefined;
  /**
   * Burst notifications the server had written when it read the follow-up but
   * the client had not read when it sent it: in the kernel's buffer, or written
   * while the request waited to be read.
   */
  inFlight?: number | undefined;
}

export type BurstEra = 'modern' | 'legacy';

/** What the burst is: `emit` publishes change events; `progress` streams request-scoped progress. */
export type BurstKind = 'emit' | 'progress';

/**
 * `followUpAfter` burst notifications are read before the follow-up is sent
 * (0: right after the burst call, before any), so that it is sent during the burst.
 */
export async function runBurst(fixture: string, era: BurstEra, kind: BurstKind, count: number, timeoutMs: number, followUpAfter = 0): Promise<BurstResult> {
  const counted = kind === 'emit' ? 'notifications/tools/list_changed' : 'notifications/progress';
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', TAP, fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
  let tap: TapReport | undefined;
  let tapPartial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (tapPartial + chunk).split('\n');
    tapPartial = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith(TAP_PREFIX)) tap = JSON.parse(line.slice(TAP_PREFIX.length)) as TapReport;
  });
  let partial = '';
  let notifications = 0;
  /** Resolved once `followUpAfter` burst notifications were read. */
  let reached: (() => void) | undefined;
  /** Each is told how many burst notifications were read before its answer's line (not after the rest of its chunk). */
  const waiters = new Map<string, (readBeforeAnswer: number) => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(counted) && ++notifications === followUpAfter) reached?.();
      for (const [id, resolve] of waiters) {
        if (line.includes(`"id":"${id}"`)) {
          waiters.delete(id);
          resolve(notifications);
        }
      }
    }
  });
  const answer = (id: string) => new Promise<number>((resolve) => waiters.set(id, resolve));
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
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const start = performance.now();
    const burst = answer('burst').then(() => performance.now() - start);
    const during = followUpAfter > 0 ? new Promise<void>((resolve) => (reached = resolve)) : Promise.resolve();
    if (kind === 'emit') send('burst', 'tools/call', { name: 'emit', arguments: { kind: 'tools', count } });
    else send('burst', 'tools/call', { name: 'progress', arguments: { steps: count }, _meta: { ...(era === 'modern' ? meta : {}), progressToken: 'burst' } });
    const followUp = Promise.race([during, timeout]).then(() => {
      const sent = performance.now();
      const readBefore = notifications;
      const answered = answer(FOLLOW_UP_ID).then((readBeforeAnswer) => ({ ms: performance.now() - sent, behind: readBeforeAnswer - readBefore, readBefore }));
      send(FOLLOW_UP_ID, 'tools/call', { name: 'echo', arguments: { text: 'still there?' } });
      return Promise.race([answered, timeout]);
    });
    const [followed, burstMs] = await Promise.all([followUp, Promise.race([burst, timeout])]);
    clearTimeout(timer);
    // The tap's line was written before the answer it reports on; stderr may deliver it a little later.
    if (followed && !tap) {
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([once(child.stderr, 'data'), new Promise((resolve) => (wait = setTimeout(resolve, 2_000)))]);
      clearTimeout(wait);
      await new Promise(setImmediate);
    }
    return { followUpMs: followed?.ms, burstMs, notifications, behind: followed?.behind, serverAhead: tap?.ahead, serverBuffered: tap?.buffered, inFlight: tap && followed ? tap.writtenBeforeRead - followed.readBefore : undefined };
  } finally {
    child.kill('SIGKILL');
  }
}

async function openListen(
  stdout: NodeJS.ReadableStream,
  send: (id: string, method: string, params?: Record<string, unknown>) => void,
  answer: (id: string) => Promise<unknown>,
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
