/**
 * A request's timeout and its progress: with `resetTimeoutOnProgress`, each
 * progress notification of the request restarts its timeout, within
 * `maxTotalTimeoutMs`; without it, progress changes nothing. Our client
 * against our server over the in-memory pair, in both eras; the server's
 * handler reports progress when the test says, and the timeouts run on fake
 * timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import type { RequestOptions } from '../../src/client/ports.ts';
import { RequestTimeoutError } from '../../src/protocol/errors.ts';
import { createServer, type McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';

const servers: McpServer[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server whose `work` tool reports progress, or answers, each time the test calls `step()` or `finish()`. */
async function setUp(era: 'legacy' | 'modern') {
  const commands: ((command: 'progress' | 'finish') => void)[] = [];
  let waiting!: () => void;
  const firstWait = new Promise<void>((resolve) => (waiting = resolve));
  const server = createServer({ name: 'progress-server', version: '1.0.0' });
  server.defineTool('work', { description: 'Reports progress when told, then answers', inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let step = 1; ; step++) {
      const command = await new Promise<'progress' | 'finish'>((resolve) => {
        commands.push(resolve);
        waiting();
      });
      if (command === 'finish') return { content: [{ type: 'text', text: `done after ${step - 1}` }] };
      await context.progress(step);
    }
  });
  servers.push(server);
  const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
  clients.push(client);
  await client.connect();
  const progress: unknown[] = [];
  let heard: (() => void) | undefined;
  const call = (options: RequestOptions) => {
    const outcome = client.callTool('work', {}, { ...options, onProgress: (params) => (progress.push(params.progress), heard?.()) }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return { outcome, settled: settledFlag(outcome) };
  };
  /** The handler reports progress; resolves once the client heard it. */
  const step = async () => {
    const count = progress.length;
    const arrived = new Promise<void>((resolve) => (heard = resolve));
    commands.shift()!('progress');
    await arrived;
    expect(progress).toHaveLength(count + 1);
  };
  const finish = () => commands.shift()!('finish');
  /** Resolves once the handler runs and waits for its first command. */
  const ready = () => firstWait;
  return { call, step, finish, ready, progress };
}

function settledFlag(outcome: Promise<unknown>): () => boolean {
  let settled = false;
  void outcome.then(() => (settled = true));
  return () => settled;
}

describe.each(['legacy', 'modern'] as const)('a request timeout and progress (%s)', (era) => {
  it('with resetTimeoutOnProgress, each progress notification restarts the timeout', async () => {
    const { call, step, finish, ready } = await setUp(era);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { outcome, settled } = call({ timeoutMs: 1_000, resetTimeoutOnProgress: true });
    await ready();
    for (let round = 0; round < 3; round++) {
      await vi.advanceTimersByTimeAsync(900);
      expect(settled()).toBe(false);
      await step();
    }
    // 2,700 ms after the call, three times its timeout: still running, and it answers.
    await vi.advanceTimersByTimeAsync(900);
    finish();
    expect(await outcome).toMatchObject({ result: { content: [{ text: 'done after 3' }] } });
  });

  it('times out a timeout after the last progress, with no progress in it', async () => {
    const { call, step, ready } = await setUp(era);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { outcome, settled } = call({ timeoutMs: 1_000, resetTimeoutOnProgress: true });
    await ready();
    await vi.advanceTimersByTimeAsync(900);
    await step();
    await vi.advanceTimersByTimeAsync(999);
    expect(settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { error } = (await outcome) as { error: unknown };
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: 'tools/call', timeoutMs: 1_000 });
  });

  it('gives up at maxTotalTimeoutMs, whatever the progress', async () => {
    const { call, step, ready } = await setUp(era);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { outcome, settled } = call({ timeoutMs: 1_000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 2_000 });
    await ready();
    await vi.advanceTimersByTimeAsync(900);
    await step();
    await vi.advanceTimersByTimeAsync(900);
    await step();
    await vi.advanceTimersByTimeAsync(199);
    expect(settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { error } = (await outcome) as { error: unknown };
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 2_000 });
  });

  it('without resetTimeoutOnProgress, progress does not extend the timeout', async () => {
    const { call, step, ready, progress } = await setUp(era);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { outcome } = call({ timeoutMs: 1_000 });
    await ready();
    await vi.advanceTimersByTimeAsync(900);
    await step();
    await vi.advanceTimersByTimeAsync(100);
    expect(((await outcome) as { error: unknown }).error).toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 1_000 });
    expect(progress).toEqual([1]);
  });
});
