/**
 * The watcher a person keeps open: our HTTP server (a child process on
 * loopback) goes away and comes back. The watcher stays, prints every
 * attempt with its delay, and resumes the same timeline; --max-attempts
 * bounds it; --once reports what the server offers and exits.
 * The outage lasts as long as the watcher takes to print six attempts (more
 * than the library's default of five): readiness lines, not sleeps.
 * A server that is down when the watcher starts is waited for the same way
 * (the connection machine's `firstConnect: 'retry'`); its port is one the
 * system gave out and took back, where our fixture then starts.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { createClient } from '../../src/client/client.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { startHttpFixture, type HttpFixture, type HttpFixtureOptions } from '../fixtures/http-fixture-process.ts';
import { watchCliOfTest, type CliRun, type JsonLine } from './cli-process.ts';
import { unassignedPort } from '../fixtures/free-port.ts';

/** Our HTTP fixture, stopped when the test ends. */
async function ownServer(onTestFinished: TestContext['onTestFinished'], options?: HttpFixtureOptions): Promise<HttpFixture> {
  const server = await startHttpFixture('own', options);
  onTestFinished(() => server.stop());
  return server;
}

const reconnecting = (events: JsonLine[]) => events.filter((event) => event.type === 'reconnecting');

/** Asks the fixture to announce a tools list change, through a client of its own. */
async function announceToolsChange(url: string): Promise<void> {
  const client = createClient({ transport: httpTransport({ url: new URL(url) }), reconnect: false });
  try {
    await client.connect();
    await client.callTool('emit', { kind: 'tools' });
  } finally {
    await client.close();
  }
}

/** Waits for `count` attempts; each is numbered in turn, unbounded, with a delay within the 10 s cap. */
async function unboundedAttempts(run: CliRun, count: number): Promise<JsonLine[]> {
  await run.until(() => (reconnecting(run.events).length >= count ? true : undefined), `${count} reconnect attempts`, 30_000);
  const attempts = reconnecting(run.events);
  expect(attempts.map((event) => event.attempt)).toEqual(attempts.map((_, index) => index + 1));
  for (const event of attempts) {
    expect(event.maxAttempts).toBeUndefined();
    expect(event.delayMs).toBeGreaterThan(0);
    expect(event.delayMs).toBeLessThanOrEqual(10_000);
  }
  return attempts;
}

/** A change on the server shows on the timeline; Ctrl-C then ends the watcher cleanly. */
async function changeShowsThenCtrlC(run: CliRun, url: string): Promise<void> {
  const from = run.events.length;
  await announceToolsChange(url);
  await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'the tools notification', from);
  run.child.kill('SIGINT');
  expect(await run.exited).toEqual({ code: 0, signal: null });
}

// One concurrent suite around both: the outage and the down-at-start cases wait out their delays side by side.
describe.concurrent('watch, with its server gone', () => {
  describe.concurrent('watch through an outage', () => {
    it('keeps retrying past the library default, shows each attempt and delay, and resumes the timeline', async ({ onTestFinished }) => {
      const server = await ownServer(onTestFinished);
      const run = watchCliOfTest(onTestFinished, ['--json', server.url]);
      await run.event((event) => event.type === 'connected', 'the connected line');
      await run.event((event) => event.type === 'list' && event.list === 'tools', 'the tools listed');
      await run.event((event) => event.type === 'cache' && event.state === 'listening', 'the cache listening');

      await server.kill();
      await run.event((event) => event.type === 'lost', 'the connection lost');
      const attempts = await unboundedAttempts(run, 6);
      // Doubling: the sixth wait is longer than the first, jitter and all.
      expect(attempts[5]!.delayMs as number).toBeGreaterThan(attempts[0]!.delayMs as number);
      expect(run.child.exitCode).toBeNull();
      expect(run.events.some((event) => event.type === 'closed')).toBe(false);

      await server.restart();
      const { index } = await run.event((event) => event.type === 'reconnected', 'the reconnect', 0);
      expect(run.events[index]).toMatchObject({ era: 'modern', server: { name: 'own-fixture' }, generation: 2 });
      await run.event((event) => event.type === 'cache' && event.state === 'listening', 'the cache listening again', index);

      // The same timeline goes on: a change after the outage is reported like one before it.
      await changeShowsThenCtrlC(run, server.url);
      expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
    }, 60_000);

    it('--max-attempts N gives up after N attempts and exits 1', async ({ onTestFinished }) => {
      const server = await ownServer(onTestFinished);
      const run = watchCliOfTest(onTestFinished, ['--json', '--max-attempts', '2', server.url]);
      await run.event((event) => event.type === 'cache' && event.state === 'listening', 'the cache listening');
      await server.kill();
      expect(await run.exited).toEqual({ code: 1, signal: null });
      expect(reconnecting(run.events).map((event) => [event.attempt, event.maxAttempts])).toEqual([[1, 2], [2, 2]]);
      expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'reconnect_exhausted' });
    });

    it('--once prints the era, the capabilities and every list, then exits 0', async ({ onTestFinished }) => {
      const server = await ownServer(onTestFinished);
      const run = watchCliOfTest(onTestFinished, ['--json', '--once', server.url]);
      expect(await run.exited).toEqual({ code: 0, signal: null });
      const types = run.events.map((event) => event.type);
      expect(types[0]).toBe('connected');
      expect(run.events[0]).toMatchObject({ era: 'modern', changes: { toolsListChanged: true, promptsListChanged: true } });
      const lists = run.events.filter((event) => event.type === 'list');
      expect(lists.map((event) => event.list).sort()).toEqual(['prompts', 'resources', 'tools']);
      expect(lists.find((event) => event.list === 'tools')!.items).toContain('echo');
      expect(types).not.toContain('reconnecting');
    });
  });

  /**
   * The address our HTTP server will have, with nothing listening on it yet (no server started and killed to find it),
   * below the ephemeral range: no other test's server can come up there meanwhile.
   */
  async function downAddress(): Promise<{ port: number; url: string }> {
    const port = await unassignedPort();
    return { port, url: `http://127.0.0.1:${port}/mcp` };
  }

  describe.concurrent('watch a server that is down at the start', () => {
    it('keeps trying, showing each attempt and delay, then connects and follows changes when the server comes up', async ({ onTestFinished }) => {
      const down = await downAddress();
      const run = watchCliOfTest(onTestFinished, ['--json', down.url]);
      const attempts = await unboundedAttempts(run, 3);
      for (const event of attempts) expect(event.cause).toBe(`ECONNREFUSED 127.0.0.1:${down.port}`);
      // Waiting for a server is not losing one, and not an error.
      expect(run.events.map((event) => event.type)).not.toEqual(expect.arrayContaining(['lost']));
      expect(run.events.some((event) => event.type === 'error' || event.type === 'closed')).toBe(false);
      expect(run.child.exitCode).toBeNull();

      const server = await ownServer(onTestFinished, { port: down.port });
      expect(server.url).toBe(down.url);
      const { index } = await run.event((event) => event.type === 'connected', 'the connected line', 0);
      expect(run.events[index]).toMatchObject({ era: 'modern', server: { name: 'own-fixture' } });
      await run.event((event) => event.type === 'cache' && event.state === 'listening', 'the cache listening', index);
      await changeShowsThenCtrlC(run, server.url);
    }, 60_000);

    it('--max-attempts 2 against nothing exits 1 after two attempts with the actionable error line', async ({ onTestFinished }) => {
      const down = await downAddress();
      const run = watchCliOfTest(onTestFinished, ['--json', '--max-attempts', '2', down.url]);
      expect(await run.exited).toEqual({ code: 1, signal: null });
      expect(reconnecting(run.events).map((event) => [event.attempt, event.maxAttempts])).toEqual([[1, 2], [2, 2]]);
      expect(run.stderr.trim().split('\n')).toEqual([`mcp-actors: cannot watch ${down.url}: ECONNREFUSED 127.0.0.1:${down.port}`]);
      expect(run.events.at(-1)).toMatchObject({ type: 'error', error: { name: 'WatchConnectError', code: 'watch_connect' } });
    });
  });
});
