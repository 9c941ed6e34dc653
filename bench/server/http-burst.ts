/**
 * The burst workload over loopback HTTP (modern era, a child process per
 * server that prints `{"port":N}` once listening): a `tools/call` of
 * `progress {steps}` streams its progress on its own SSE response; once
 * `followUpAfter` of them were read, a second POST (`echo`) is sent and the
 * time to its answer is measured, with the progress read meanwhile.
 */
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import { MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import type { BurstResult } from './burst.ts';
import { postMcp } from './http-post.ts';

const meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {}, [MetaKey.clientInfo]: { name: 'bench', version: '1' } };

/** POSTs one request; resolves when its response ended. */
function post(port: number, agent: Agent, id: string, method: string, params: object, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => postMcp(port, agent, id, method, params, onLine, resolve).on('error', reject));
}

export async function runHttpBurst(fixture: string, count: number, followUpAfter: number, timeoutMs: number): Promise<BurstResult> {
  // stdin a pipe held open: a fixture may exit when its stdin ends.
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['pipe', 'pipe', 'ignore'] });
  const agent = new Agent({ keepAlive: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const port = await new Promise<number>((resolve) => {
      child.stdout.setEncoding('utf8');
      child.stdout.once('data', (chunk: string) => resolve((JSON.parse(chunk.split('\n')[0]!) as { port: number }).port));
    });
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    let notifications = 0;
    let reached!: () => void;
    const during = new Promise<void>((resolve) => (reached = resolve));
    const start = performance.now();
    const burst = post(port, agent, 'burst', 'tools/call', { name: 'progress', arguments: { steps: count }, _meta: { ...meta, progressToken: 'burst' } }, (line) => {
      if (line.includes('notifications/progress') && ++notifications === followUpAfter) reached();
    }).then(() => performance.now() - start);
    const followUp = Promise.race([during, timeout]).then(() => {
      const sent = performance.now();
      const readBefore = notifications;
      const answered = post(port, agent, 'follow-up', 'tools/call', { name: 'echo', arguments: { text: 'still there?' }, _meta: meta }, () => undefined)
        .then(() => ({ ms: performance.now() - sent, behind: notifications - readBefore }));
      return Promise.race([answered, timeout]);
    });
    const [followed, burstMs] = await Promise.all([followUp, Promise.race([burst, timeout])]);
    return { followUpMs: followed?.ms, burstMs, notifications, behind: followed?.behind };
  } finally {
    clearTimeout(timer);
    agent.destroy();
    child.kill('SIGKILL');
  }
}
