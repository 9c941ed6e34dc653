/**
 * `mcp-actors watch --json -- <official server>`: the official
 * @modelcontextprotocol/server 2.x over stdio, changing its tool list every
 * 100 ms, in both eras. The server is killed by the pid the CLI reported and
 * the CLI reconnects to a fresh process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { alive, fixture, killAllCliRuns, watchCli, type JsonLine } from './cli-process.ts';

afterEach(killAllCliRuns);

const server = ['--', process.execPath, '--import', 'tsx', fixture('official-changing-server.ts'), '--interval-ms', '100'];
const isType = (type: string) => (event: JsonLine) => event.type === type;
const flickerDiff = (event: JsonLine) =>
  event.type === 'list_diff' && event.list === 'tools' && [...(event.added as string[]), ...(event.removed as string[])].includes('flicker');

describe.each(['modern', 'legacy'] as const)('watch (official server 2.x, %s era)', (era) => {
  it('prints the era line, notifications and tool diffs, reconnects after the server is killed, exits 0 on SIGINT', async () => {
    const run = watchCli(['--json', '--era', era, ...server]);
    const { event: connected } = await run.event(isType('connected'), 'the connected line');
    expect(connected).toMatchObject({
      era,
      server: { name: 'official-changing-server', version: '1.0.0' },
      changes: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: false, resourceSubscribe: false },
      filter: { toolsListChanged: true, promptsListChanged: true },
    });
    await run.event((event) => event.type === 'notification' && event.method === 'notifications/tools/list_changed', 'a tools notification');
    await run.event(flickerDiff, 'a flicker diff');

    const [pid] = run.serverPids;
    process.kill(pid!, 'SIGKILL');
    const { index: lostAt } = await run.event(isType('lost'), 'the lost connection');
    await run.event(isType('reconnecting'), 'reconnecting', lostAt);
    const { event: respawned } = await run.event(isType('spawned'), 'a new server process', lostAt);
    expect(respawned.pid).not.toBe(pid);
    await run.event((event) => event.type === 'reconnected' && event.era === era, 'reconnected', lostAt);
    const { index: resyncedAt } = await run.event((event) => event.type === 'cache' && event.label === 'resynced', 'resynced', lostAt);
    await run.event(flickerDiff, 'a diff from the new process', resyncedAt + 1);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.events.at(-1)).toMatchObject({ type: 'closed', reason: 'disconnected' });
    // A clean close leaves no server behind.
    expect(run.serverPids.filter(alive)).toEqual([]);
  });
});
