/**
 * `mcp-actors watch --json` against the bundled demo server (our own server
 * API over stdio), as a child process: the era line, notifications, list
 * diffs, the demo's one crash and the reconnect and resync after it, and a
 * clean exit on SIGINT.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, CliRun, fastDemoEnv, killAllCliRuns, watchCli, type JsonLine } from './cli-process.ts';

const isType = (type: string) => (event: JsonLine) => event.type === type;

describe('watch (demo server)', () => {
  afterEach(killAllCliRuns);

  it.each([
    ['auto', 'modern', '2026-07-28'],
    ['legacy', 'legacy', '2025-11-25'],
  ])('--era %s: prints the era (%s), server info and advertised changes, then notifications and list diffs', async (flag, era, protocolVersion) => {
    const run = watchCli(['--json', '--era', flag], fastDemoEnv(0));
    const { event: connected } = await run.event(isType('connected'), 'the connected line');
    expect(connected).toMatchObject({
      era,
      protocolVersion,
      server: { name: 'mcp-actors-demo', version: '0.1.0' },
      changes: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscribe: true },
      filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['demo://clock', 'demo://readme'] },
    });
    await run.event((event) => event.type === 'list' && event.list === 'tools', 'the first tools list');
    await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'a tools notification');
    const { event: added } = await run.event(
      (event) => event.type === 'list_diff' && event.list === 'tools' && (event.added as string[]).includes('forecast'),
      'forecast added',
    );
    expect(added).toMatchObject({ removed: [], changed: [], count: 3 });
    await run.event(
      (event) => event.type === 'list_diff' && event.list === 'prompts' && (event.changed as string[]).includes('greeting'),
      'greeting changed',
    );
    await run.event((event) => event.type === 'resource_updated' && event.uri === 'demo://clock', 'a clock update');
    await run.event(
      (event) => event.type === 'list_diff' && event.list === 'tools' && (event.removed as string[]).includes('forecast'),
      'forecast removed',
    );

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
    expect(run.stderr).toBe('');
  });

  it('shows the demo’s crash as lost, reconnecting with attempt and delay, reconnected and resynced', async () => {
    const run = watchCli(['--json'], fastDemoEnv(600));
    const { event: first } = await run.event(isType('spawned'), 'the first demo process');
    const { index: lostAt, event: lost } = await run.event(isType('lost'), 'the crash');
    expect(lost.cause).toMatch(/exited \(code 75\)/);
    const { event: reconnecting } = await run.event(isType('reconnecting'), 'reconnecting', lostAt);
    // The demo crashed 600 ms after it was ready: a short-lived connection, which lengthens the delay.
    expect(reconnecting).toMatchObject({ attempt: 1, quickReadies: 1 });
    expect(reconnecting.delayMs).toBeGreaterThan(0);
    const { event: second } = await run.event(isType('spawned'), 'the restarted demo process', lostAt);
    expect(second.pid).not.toBe(first.pid);
    await run.event((event) => event.type === 'reconnected' && event.era === 'modern' && event.generation === 2, 'reconnected', lostAt);
    await run.event((event) => event.type === 'cache' && event.state === 'recovering', 'the cache pausing', lostAt);
    const { index: resyncedAt } = await run.event((event) => event.type === 'cache' && event.state === 'listening' && event.resumed === true, 'the cache resyncing', lostAt);
    // Changes keep arriving from the new process.
    await run.event((event) => event.type === 'list_diff', 'a diff after the resync', resyncedAt + 1);

    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
  });
});

describe('watch --tools (demo server), run through the bin shim from another working directory', () => {
  // One watcher for both tests (a run is a CLI and a demo process): the first restarts the demo the way a graceful
  // shutdown does, which the second's facts (the filter, tools diffs, no prompts) hold across. It ends on SIGINT after both.
  let run: CliRun;
  beforeAll(() => {
    run = new CliRun(process.execPath, [BIN, 'watch', '--json', '--tools'], { cwd: '/', env: fastDemoEnv(0) });
  });
  afterAll(async () => {
    try {
      run.child.kill('SIGINT');
      expect((await run.exited).code).toBe(0);
    } finally {
      await killAllCliRuns();
    }
  });

  it('after a graceful server shutdown (stream completed) the same cache listens again on the restarted server', async () => {
    await run.event((event) => event.type === 'list_diff', 'a first diff');
    process.kill(run.serverPids[0]!, 'SIGTERM');
    const { index: completedAt } = await run.event((event) => event.type === 'cache' && event.state === 'completed', 'the cache completing');
    const { index: reconnectedAt } = await run.event(isType('reconnected'), 'reconnected', completedAt);
    const { index: relistenAt } = await run.event(
      (event) => event.type === 'cache' && event.state === 'awaitingAck' && event.previous === 'completed',
      'the cache listening again',
      reconnectedAt,
    );
    const { index: resyncedAt } = await run.event(
      (event) => event.type === 'cache' && event.state === 'listening' && event.resumed === true,
      'its listen acknowledged',
      relistenAt,
    );
    await run.event((event) => event.type === 'list_diff', 'a diff from the new server', resyncedAt);
    // One cache throughout: the tools are listed once, later changes come as diffs.
    expect(run.events.filter((event) => event.type === 'list' && event.list === 'tools')).toHaveLength(1);
    expect(run.events.slice(completedAt).some((event) => event.type === 'cache' && event.state === 'recovering')).toBe(false);
  });

  it('runs from another working directory through the bin shim', async () => {
    const { event } = await run.event(isType('connected'), 'the connected line');
    expect(event.filter).toEqual({ toolsListChanged: true });
    await run.event((line) => line.type === 'list_diff' && line.list === 'tools', 'a tools diff');
    expect(run.events.some((line) => line.type === 'list' && line.list === 'prompts')).toBe(false);
  });
});
